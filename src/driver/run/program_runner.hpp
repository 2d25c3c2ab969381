// One program on one device: its points run in children until every point is reported or
// charged, restarting after crashes and timeouts (docs/driver.md, "Isolation"). The child and
// the clock come in from outside, so tests drive the runner with a scripted fake child
// (tests/run/test_program_runner.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/untrusted.hpp"
#include "driver/common/child.hpp"
#include "driver/common/manifest.hpp"

namespace pitot::driver::run {

using SteadyClock = std::chrono::steady_clock;

// A running benchmark program as the runner sees it: driver::Child, or a fake in tests.
class ChildProcess {
 public:
  virtual ~ChildProcess() = default;
  // Waits up to `timeout` for output; the complete result lines that arrived.
  virtual std::vector<std::string> wait(std::chrono::milliseconds timeout) = 0;
  virtual bool running() const = 0;
  virtual const ChildEnd& end() const = 0;
  virtual void kill_group() = 0;
  virtual bool line_overflow() const = 0;  // a result line passed ChildSpec::max_line_bytes
  virtual const std::string& stderr_text() const = 0;
};
// Starts a program (argv[0] its path) with a result channel; throws std::exception saying why
// it cannot start.
using StartChild = std::function<std::unique_ptr<ChildProcess>(const std::vector<std::string>& argv)>;
StartChild start_real_child();

// Where the runner's news goes: the database and the progress display in `pitot run`.
class RunnerOutput {
 public:
  virtual ~RunnerOutput() = default;
  virtual void record(std::vector<PointResult> points) = 0;  // finished points: reported or charged
  virtual void note(const std::string& line) = 0;            // a restart, a hunt for the culprit
  virtual void running(const std::string& point) = 0;        // the point believed running ("": not known)
  virtual void tick() = 0;                                   // called from the wait loop
  virtual void started() {}  // a child said a point began: its start-up is over (run/costs.hpp)
};

struct RunnerSettings {
  double timeout = 0;                     // --timeout S for every point; 0: each benchmark's own
  int interleave = 8;                     // points a child samples at once; 1: one after another
  std::vector<std::string> program_args;  // given to every child: --axis, engine knobs, --timing...
  std::optional<int> device;              // --device N
  // --ranks N for programs with .multi_rank() benchmarks (run/ranked_child.hpp); 0: one rank per
  // GPU the program reported (one on a machine without).
  int ranks = 0;
  // --untrusted: each point's samples are checked against the driver's own clock of its sampling
  // turns (src/core/untrusted.hpp, DriverClock).
  bool untrusted = false;
  // How long a point may run past its timeout (message and scheduling delays), and, before a
  // child's first message, the allowance for process start and device init instead.
  double point_grace_seconds = 2;
  double startup_grace_seconds = 10;
};

// "bench_x" or "bench_x (gpu 1)": how notes and progress name a program on a device.
std::string where_of(const ProgramInfo& program, std::optional<int> device);
// "0-3,7": point ids as a --points list (ranges keep a thousand points short).
std::string id_list(const std::vector<int>& ids);

class ProgramRunner {
 public:
  ProgramRunner(RunnerSettings settings, const ProgramInfo& program, const std::vector<const PlannedPoint*>& points,
                RunnerOutput& out, const std::atomic<bool>& interrupted, StartChild start = start_real_child(),
                std::function<SteadyClock::time_point()> now = SteadyClock::now);

  // Runs until every point is reported or charged, or `interrupted` is set.
  void run();

 private:
  // The points one child is asked for, and how it runs them.
  struct Batch {
    std::vector<int> ids;
    bool serial = false;  // one at a time (--no-interleave)
    int window = 1;       // points live at once
  };
  // What one child did.
  struct Attempt {
    std::string start_error;  // could not start at all
    ChildEnd end;
    bool done = false, got_any = false, timed_out = false;
    int reported = 0;
    std::vector<int> started;  // "start" messages, in order
    std::string protocol_error;
    std::string timeout_reason;
    std::string reason;  // why it ended early, for the failed point
    std::string stderr_tail;
  };
  // The watchdog's view of one child: when each started point began, what was said last.
  struct Watch {
    std::set<int> asked;
    SteadyClock::time_point last;                       // the last message
    std::map<int, SteadyClock::time_point> started_at;  // started, not yet reported
    int last_started = -1;                              // the last message was this point's "start"
    untrusted::DriverClock sampling;                    // --untrusted: its "sampling" and "sampled"
  };

  // The steps of run().
  Batch next_batch() const;
  Attempt attempt(const Batch& batch);
  void forget_finished_suspects();
  bool settle(const Batch& batch, const Attempt& a);  // false: the program is given up

  // The steps of attempt().
  std::vector<std::string> child_argv(const Batch& batch) const;
  void read_lines(const std::vector<std::string>& lines, const Batch& batch, Watch& watch, Attempt& a);
  void on_point(PointResult p, Watch& watch, Attempt& a, std::vector<PointResult>& arrived);
  void on_start(int id, Watch& watch, Attempt& a);
  std::string watchdog(const Batch& batch, const Watch& watch, const Attempt& a) const;
  std::string serial_timeout(const Batch& batch, const Watch& watch, const Attempt& a, double waited) const;
  std::string interleaved_timeout(const Batch& batch, const Watch& watch, const Attempt& a, double waited) const;
  static std::string end_reason(const Attempt& a);

  // The steps of settle().
  static bool ended_cleanly(const Attempt& a);
  static bool refused_command_line(const Attempt& a);
  bool silent_twice(const Attempt& a);
  void charge_running_point(const Attempt& a, const std::vector<int>& left, const std::vector<int>& started_left,
                            const std::string& detail);
  void suspect_unfinished(const Attempt& a, const std::vector<int>& left, const std::vector<int>& started_left);

  // Helpers.
  std::vector<int> unreported_of(const std::vector<int>& ids) const;
  std::vector<int> all_unreported() const { return {unreported_.begin(), unreported_.end()}; }
  int first_unreported(const Batch& batch) const;  // -1 when none
  double timeout_of(int id) const;
  // The runner's clock in seconds (any epoch), for the untrusted checks.
  double driver_seconds() const { return std::chrono::duration<double>(now_().time_since_epoch()).count(); }
  std::string timeout_source(int id) const;
  const std::string& name_of(int id) const { return by_id_.at(id)->name; }
  void fail_all(const std::vector<int>& ids, const std::string& reason);

  RunnerSettings settings_;
  const ProgramInfo& program_;
  RunnerOutput& out_;
  const std::atomic<bool>& interrupted_;
  StartChild start_;
  std::function<SteadyClock::time_point()> now_;
  std::string where_;
  std::map<int, const PlannedPoint*> by_id_;
  std::set<int> unreported_;
  std::set<int> suspects_;
  int silent_runs_ = 0;  // children in a row that ended before any message
};

}  // namespace pitot::driver::run

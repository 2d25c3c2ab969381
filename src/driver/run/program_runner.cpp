#include "driver/run/program_runner.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "core/protocol.hpp"
#include "core/text.hpp"

namespace pitot::driver::run {

namespace {

class RealChild final : public ChildProcess {
 public:
  explicit RealChild(const ChildSpec& spec) : child_(spec) {}
  std::vector<std::string> wait(std::chrono::milliseconds timeout) override { return child_.wait(timeout); }
  bool running() const override { return child_.running(); }
  const ChildEnd& end() const override { return child_.end(); }
  void kill_group() override { child_.kill_group(); }
  bool line_overflow() const override { return child_.line_overflow(); }
  const std::string& stderr_text() const override { return child_.stderr_text(); }

 private:
  Child child_;
};

constexpr std::chrono::milliseconds kWaitStep{100};

std::string explain_end(const ChildEnd& end) {
  std::string s = end.describe();
  if (end.exited && end.code == kExitDeviceLost) s += " (sticky device error)";
  return s;
}

double seconds_between(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

StartChild start_real_child() {
  return [](const std::vector<std::string>& argv) -> std::unique_ptr<ChildProcess> {
    ChildSpec spec;
    spec.argv = argv;
    return std::make_unique<RealChild>(spec);
  };
}

std::string where_of(const ProgramInfo& program, std::optional<int> device) {
  return program.program + (device ? fmt::format(" (gpu {})", *device) : std::string());
}

std::string id_list(const std::vector<int>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
    i = j + 1;
  }
  return out;
}

ProgramRunner::ProgramRunner(RunnerSettings settings, const ProgramInfo& program,
                             const std::vector<const PlannedPoint*>& points, RunnerOutput& out,
                             const std::atomic<bool>& interrupted, StartChild start,
                             std::function<SteadyClock::time_point()> now)
    : settings_(std::move(settings)), program_(program), out_(out), interrupted_(interrupted), start_(std::move(start)), now_(std::move(now)), where_(where_of(program, settings_.device)) {
  for (const auto* p : points) {
    by_id_[p->id] = p;
    unreported_.insert(p->id);
  }
}

// ---- run(): a child per batch until every point is reported or charged ---------------------

void ProgramRunner::run() {
  while (!unreported_.empty() && !interrupted_) {
    const Batch batch = next_batch();
    const Attempt a = attempt(batch);
    forget_finished_suspects();
    if (interrupted_) return;
    if (!settle(batch, a)) return;
  }
}

// Suspects one at a time while there are any; else every point not yet reported, interleaved
// unless asked otherwise.
ProgramRunner::Batch ProgramRunner::next_batch() const {
  Batch b;
  b.serial = !suspects_.empty() || settings_.interleave <= 1;
  b.ids = suspects_.empty() ? all_unreported() : std::vector<int>(suspects_.begin(), suspects_.end());
  b.window = b.serial ? 1 : std::min<int>(settings_.interleave, static_cast<int>(b.ids.size()));
  return b;
}

void ProgramRunner::forget_finished_suspects() {
  for (auto it = suspects_.begin(); it != suspects_.end();) it = unreported_.count(*it) ? std::next(it) : suspects_.erase(it);
}

// What the end of a child means for the points of its batch it left unreported.
bool ProgramRunner::settle(const Batch& batch, const Attempt& a) {
  const std::vector<int> left = unreported_of(batch.ids);
  if (left.empty()) {
    silent_runs_ = 0;
    return true;
  }
  if (!a.start_error.empty()) {
    fail_all(all_unreported(), a.start_error);
    return false;
  }
  const std::string tail = tail_lines(a.stderr_tail);
  const std::string detail = a.reason + (tail.empty() ? "" : "\nstderr (end):\n" + tail);
  if (ended_cleanly(a)) {
    fail_all(left, "the program finished without reporting this point");
    return true;
  }
  if (refused_command_line(a)) {
    fail_all(left, "the program refused its command line: " + detail);
    return true;
  }
  if (silent_twice(a)) {
    fail_all(all_unreported(), "the program " + a.reason + " before reporting any point, twice in a row\n" +
                                   (tail.empty() ? "" : "stderr (end):\n" + tail));
    return false;
  }
  const std::vector<int> started_left = unreported_of(a.started);
  if (batch.serial) charge_running_point(a, left, started_left, detail);
  else suspect_unfinished(a, left, started_left);
  return true;
}

// ---- attempt(): one child, its messages and its watchdog ----------------------------------

ProgramRunner::Attempt ProgramRunner::attempt(const Batch& batch) {
  Attempt a;
  std::unique_ptr<ChildProcess> child;
  try {
    child = start_(child_argv(batch));
  } catch (const std::exception& e) {
    a.start_error = e.what();
    return a;
  }
  Watch watch;
  watch.asked = std::set<int>(batch.ids.begin(), batch.ids.end());
  watch.last = now_();
  bool killed = false;
  out_.running(batch.serial ? name_of(batch.ids.front()) : "");
  while (child->running()) {
    read_lines(child->wait(kWaitStep), batch, watch, a);
    if (killed) continue;
    if (child->line_overflow() && a.protocol_error.empty())
      a.protocol_error = fmt::format("wrote a result line longer than {} bytes", ChildSpec{}.max_line_bytes);
    a.timeout_reason = watchdog(batch, watch, a);
    if (!a.protocol_error.empty() || interrupted_ || !a.timeout_reason.empty()) {
      a.timed_out = a.protocol_error.empty() && !interrupted_ && !a.timeout_reason.empty();
      child->kill_group();
      killed = true;
    }
    out_.tick();
  }
  a.end = child->end();
  a.stderr_tail = valid_utf8(child->stderr_text());
  a.reason = end_reason(a);
  return a;
}

std::vector<std::string> ProgramRunner::child_argv(const Batch& batch) const {
  std::vector<std::string> argv = program_command(program_.ref);  // python3 FILE for a Python file
  argv.insert(argv.end(), {"--quiet", "--points", id_list(batch.ids)});
  argv.insert(argv.end(), settings_.program_args.begin(), settings_.program_args.end());
  if (batch.serial) argv.push_back("--no-interleave");
  else argv.insert(argv.end(), {"--interleave", std::to_string(settings_.interleave)});
  if (settings_.device) argv.insert(argv.end(), {"--device", std::to_string(*settings_.device)});
  return argv;
}

void ProgramRunner::read_lines(const std::vector<std::string>& lines, const Batch& batch, Watch& watch, Attempt& a) {
  std::vector<PointResult> arrived;
  for (const auto& line : lines) {
    if (!a.protocol_error.empty()) break;
    try {
      // Bytes that are not UTF-8 become U+FFFD.
      std::visit(
          [&](auto&& m) {
            using M = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<M, PointMessage>) on_point(std::move(m.point), watch, a, arrived);
            else if constexpr (std::is_same_v<M, StartMessage>) on_start(m.id, watch, a);
            else if constexpr (std::is_same_v<M, SamplingMessage>) watch.sampling.sampling(m.id, driver_seconds());
            else if constexpr (std::is_same_v<M, SampledMessage>) watch.sampling.sampled(m.id, driver_seconds(), m.harness);
            else if constexpr (std::is_same_v<M, DoneMessage>) a.done = true;
            // OtherMessage: newer programs may send more types; ignored.
          },
          parse_result_message(line));
    } catch (const nlohmann::json::exception& e) {
      const std::string shown = valid_utf8(line.size() > 200 ? line.substr(0, 200) + "..." : line);
      a.protocol_error = fmt::format("wrote something that is not a pitot result line ({}): {}", e.what(), shown);
    }
  }
  if (arrived.empty()) return;
  if (batch.serial)
    if (const int next = first_unreported(batch); next >= 0) out_.running(name_of(next));
  out_.record(std::move(arrived));
}

void ProgramRunner::on_point(PointResult p, Watch& watch, Attempt& a, std::vector<PointResult>& arrived) {
  if (!watch.asked.count(p.id) || !unreported_.count(p.id)) {
    a.protocol_error = fmt::format("reported point id {} ({}), which was not asked for or came twice", p.id, p.name);
    return;
  }
  p.program = program_.program;  // asv names follow the listing, whatever the child says
  // The child's clock is the code under test's to tamper with; the driver's is not.
  if (settings_.untrusted) watch.sampling.check(p, driver_seconds());
  unreported_.erase(p.id);
  watch.started_at.erase(p.id);
  watch.last_started = -1;
  a.got_any = true;
  ++a.reported;
  watch.last = now_();
  arrived.push_back(std::move(p));
}

void ProgramRunner::on_start(int id, Watch& watch, Attempt& a) {
  a.started.push_back(id);
  a.got_any = true;
  watch.last = now_();
  out_.started();
  if (watch.asked.count(id) && unreported_.count(id)) {
    watch.started_at[id] = watch.last;
    watch.last_started = id;
  }
  if (by_id_.count(id)) out_.running(name_of(id));
}

// The watchdog (docs/driver.md, "Isolation"): why the child is out of time ("" while it is not).
// Every bound is a point's own timeout (its .timeout(), or --timeout) times the share of the
// time it gets.
std::string ProgramRunner::watchdog(const Batch& batch, const Watch& watch, const Attempt& a) const {
  const double waited = seconds_between(watch.last, now_());
  return batch.serial ? serial_timeout(batch, watch, a, waited) : interleaved_timeout(batch, watch, a, waited);
}

// One point at a time: the first not reported (or the one announced) runs; the clock starts at
// the last message.
std::string ProgramRunner::serial_timeout(const Batch& batch, const Watch& watch, const Attempt& a, double waited) const {
  const int running = watch.last_started >= 0 ? watch.last_started : first_unreported(batch);
  if (running < 0) return "";
  const double limit = timeout_of(running);
  const double allowed = limit + (a.got_any ? settings_.point_grace_seconds : settings_.startup_grace_seconds);
  if (limit <= 0 || waited <= allowed) return "";
  return fmt::format("timed out after {} s ({}; {} s of grace{})", limit, timeout_source(running), allowed - limit,
                     a.got_any ? "" : " for process start-up");
}

std::string ProgramRunner::interleaved_timeout(const Batch& batch, const Watch& watch, const Attempt& a,
                                               double waited) const {
  const double grace = settings_.point_grace_seconds;
  const int window = batch.window;
  double longest = 0;
  int longest_id = -1;
  std::size_t live_cap = 0;
  for (int id : batch.ids)
    if (unreported_.count(id)) {
      ++live_cap;
      if (timeout_of(id) > longest) longest = timeout_of(id), longest_id = id;
    }
  live_cap = std::min<std::size_t>(live_cap, static_cast<std::size_t>(window));
  // (1) A point's first turn (its setup and first batch) holds the turn: while the window still
  //     has points to start, the last one announced is the one running, alone.
  if (watch.last_started >= 0 && watch.started_at.size() < live_cap && waited > timeout_of(watch.last_started) + grace)
    return fmt::format("timed out: {} started and held the turn for more than {} s ({}; {} s of grace)",
                       name_of(watch.last_started), timeout_of(watch.last_started), timeout_source(watch.last_started),
                       grace);
  // (2) A started point gets about 1/W of the time: it must finish within W x its timeout.
  const auto now = now_();
  for (const auto& [id, at] : watch.started_at) {
    const double share = static_cast<double>(window) * timeout_of(id);
    if (seconds_between(at, now) > share + grace)
      return fmt::format(
          "timed out: {} did not finish within {} s of its start ({} interleaved points x {}; {} s of "
          "grace)",
          name_of(id), share, window, timeout_source(id), grace);
  }
  // (3) Without start messages: some point must finish within W x the longest timeout.
  const double limit = window * longest;
  const double allowed = limit + (a.got_any ? grace : settings_.startup_grace_seconds);
  if (longest > 0 && waited > allowed)
    return fmt::format(
        "timed out: no point finished within {} s ({} interleaved points x the longest timeout, {}; "
        "{} s of grace{})",
        limit, window, timeout_source(longest_id), allowed - limit, a.got_any ? "" : " for process start-up");
  return "";
}

std::string ProgramRunner::end_reason(const Attempt& a) {
  if (a.timed_out) return a.timeout_reason;
  if (!a.protocol_error.empty()) return "broke the result protocol: it " + a.protocol_error;
  if (a.end.exited && (a.end.code == kExitOk || a.end.code == kExitPointsFailed) && !a.done)
    return explain_end(a.end) + " without finishing its report";
  return explain_end(a.end);
}

// ---- settle()'s cases --------------------------------------------------------------------

// Exit 0 or 1 after "done", nothing broken: a point it left out was never going to come.
bool ProgramRunner::ended_cleanly(const Attempt& a) {
  return a.end.exited && (a.end.code == kExitOk || a.end.code == kExitPointsFailed) && a.done && a.protocol_error.empty() && !a.timed_out;
}

// A usage error (exit 2 before the program said anything) repeats on every restart: give up on
// the batch. Once a point started or was reported, exit 2 came from a benchmark's body: a crash
// like any other, charged to the point that was running.
bool ProgramRunner::refused_command_line(const Attempt& a) {
  return a.end.exited && a.end.code == kExitUsage && !a.timed_out && a.protocol_error.empty() && !a.got_any;
}

// A program that dies before its first message twice in a row (a crash at start-up) is given up:
// no endless restarts.
bool ProgramRunner::silent_twice(const Attempt& a) {
  if (a.got_any) {
    silent_runs_ = 0;
    return false;
  }
  return ++silent_runs_ >= 2;
}

// One point at a time: the one that was running is the one announced, else the first not
// reported. A sticky device error after a reported point charges nothing: the rest run again.
void ProgramRunner::charge_running_point(const Attempt& a, const std::vector<int>& left,
                                         const std::vector<int>& started_left, const std::string& detail) {
  if (a.end.exited && a.end.code == kExitDeviceLost && a.reported > 0 && started_left.empty()) {
    out_.note(fmt::format("{}: {}; restarting after the last reported point", where_, a.reason));
    return;
  }
  const int culprit = started_left.empty() ? left.front() : started_left.front();
  fail_all({culprit}, detail);
  suspects_.erase(culprit);
  if (!unreported_.empty()) out_.note(fmt::format("{}: {} {}; restarting after it", where_, name_of(culprit), a.reason));
}

// Interleaved: any of the running points may be at fault. They run again one at a time; the one
// that fails alone is charged, the others are measured normally.
void ProgramRunner::suspect_unfinished(const Attempt& a, const std::vector<int>& left,
                                       const std::vector<int>& started_left) {
  const std::vector<int>& suspects = started_left.empty() ? left : started_left;
  suspects_.insert(suspects.begin(), suspects.end());
  out_.note(fmt::format("{}: {} with {} point(s) unfinished; running them one at a time to find the one at fault",
                        where_, a.reason, suspects.size()));
}

// ---- helpers -----------------------------------------------------------------------------

std::vector<int> ProgramRunner::unreported_of(const std::vector<int>& ids) const {
  std::vector<int> out;
  for (int id : ids)
    if (unreported_.count(id)) out.push_back(id);
  return out;
}

int ProgramRunner::first_unreported(const Batch& batch) const {
  for (int id : batch.ids)
    if (unreported_.count(id)) return id;
  return -1;
}

double ProgramRunner::timeout_of(int id) const {
  return settings_.timeout > 0 ? settings_.timeout : by_id_.at(id)->timeout_seconds;
}

// Where a point's timeout comes from, for the reason of a timed-out point.
std::string ProgramRunner::timeout_source(int id) const {
  return settings_.timeout > 0 ? fmt::format("--timeout {}", settings_.timeout)
                               : fmt::format("the benchmark's .timeout(), {} s", by_id_.at(id)->timeout_seconds);
}

void ProgramRunner::fail_all(const std::vector<int>& ids, const std::string& reason) {
  std::vector<PointResult> failed;
  for (int id : ids) {
    if (!unreported_.erase(id)) continue;
    PointResult r = skeleton(program_, *by_id_.at(id));
    r.status = PointStatus::Failed;
    r.reason = reason;
    // asv shows when a row was measured; a failed point alone must not say 1970.
    r.started_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    failed.push_back(std::move(r));
  }
  out_.record(std::move(failed));
}

}  // namespace pitot::driver::run

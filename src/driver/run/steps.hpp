// pitot run's steps, shared with pitot ab (two builds, alternated): the options, the sink that
// records finished points into the asv database, and the steps run_command takes in order (list
// the programs, select the points, prepare the database, start the runners).
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/settings.hpp"
#include "asv/config.hpp"
#include "driver/common/interrupt.hpp"
#include "driver/common/manifest.hpp"
#include "driver/common/progress.hpp"
#include "driver/common/sandbox.hpp"
#include "driver/run/program_runner.hpp"
#include "asv/write.hpp"
#include "asv/env.hpp"
#include "host/machine.hpp"

namespace pitot::driver::run {

// --progress: a live line on a terminal (auto), always (live), a line per point (plain), or nothing.
enum class ProgressMode { Auto, Live, Plain, None };
const std::vector<std::pair<std::string, ProgressMode>> kProgressModes = {
    {"auto", ProgressMode::Auto}, {"live", ProgressMode::Live}, {"plain", ProgressMode::Plain}, {"none", ProgressMode::None}};

struct RunOptions {
  std::vector<std::string> inputs;
  std::string build_dir = ".";
  std::string filter;
  std::vector<std::string> axes;
  std::string asv_dir, config, machine, commit, env;
  bool no_asv = false;
  double timeout = 0;  // 0: each benchmark's own
  std::string devices;
  int ranks = 0;  // --ranks N: processes of a multi-rank program (0: one per GPU; run/ranked_child.hpp)
  std::string shard;
  std::string json_path;
  ProgressMode progress = ProgressMode::Auto;
  int interleave = 8;
  bool no_interleave = false;
  int processes = 1;                               // each program runs this many times, alternated; samples pooled per point
  bool estimate_only = false;                      // --estimate: say what it would cost, run nothing (run/estimate.hpp)
  std::map<std::string, std::string> passthrough;  // engine knobs for the programs, checked as they check them
  std::optional<Timing> timing;                    // --timing and --clock, for the programs
  std::optional<GpuClock> clock;
  std::string self_timed;  // --self-timed for the Python programs ("": asv.conf.json's, else theirs)
  std::optional<SandboxMode> sandbox;  // --sandbox (none: auto under --untrusted, else off)
  // What the run's fence turned out to be (settle_sandbox): the run report's "sandbox" key.
  std::string sandbox_said;
  bool untrusted() const { return passthrough.count("--untrusted") > 0; }
};

// What every worker shares: the database, the results so far, the progress display.
class Sink {
 public:
  // clock_suffix: kernel-clock rows go to the env with kKernelClockEnvSuffix (not under a user's --env).
  // pool: a point may come from several processes (pitot run --processes K > 1, pitot ab): its runs
  // are pooled.
  Sink(Progress& progress, std::optional<std::filesystem::path> dir, bool clock_suffix, bool pool)
      : progress_(progress), dir_(std::move(dir)), clock_suffix_(clock_suffix), pool_(pool) {}

  // Records finished points of one program on one device: database first, then memory. With
  // several processes, a point's runs so far are pooled (merge_processes) and the pool replaces
  // what the database held for it, so an interrupted run keeps every finished process.
  void record(const AsvRun* run, const ProgramInfo& program, const std::string& where,
              std::vector<PointResult> points) {
    if (points.empty()) return;
    std::lock_guard lock(mutex_);
    std::vector<std::string> keys;
    if (pool_) {
      for (auto& p : points) {
        const std::string key = where + "\n" + program.program + "\n" + std::to_string(p.id);
        auto& runs = runs_[key];
        runs.push_back(p);
        p = merge_processes(runs);
        keys.push_back(key);
      }
    }
    if (dir_ && run && !fatal_) {
      try {
        for (const auto& [env, group] : split_by_clock(run->env_name, points, clock_suffix_)) {
          std::vector<BenchmarkInfo> benchmarks;
          std::set<std::string> seen;
          for (const auto& p : group)
            for (const auto& b : program.benchmarks)
              if (b.name == p.benchmark && seen.insert(b.name).second) benchmarks.push_back(b);
          AsvRun clocked = *run;
          clocked.env_name = env;
          write_asv(*dir_, clocked, benchmarks, group);
        }
      } catch (const AsvError& e) {
        fatal_ = true;
        fatal_message_ = e.what();
        interrupted() = true;  // stop every worker: the database refuses our writes
      }
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      progress_.done(where, points[i]);
      if (pool_) merged_[keys[i]] = std::move(points[i]);
      else all_.push_back(std::move(points[i]));
    }
  }

  bool fatal() const { return fatal_; }
  const std::string& fatal_message() const { return fatal_message_; }
  // Every point so far (with several processes, each point's pool): what a look at the results sees.
  std::vector<PointResult> snapshot() {
    std::lock_guard lock(mutex_);
    std::vector<PointResult> out = all_;
    for (const auto& [key, p] : merged_) out.push_back(p);
    return out;
  }
  std::vector<PointResult> take() {
    std::lock_guard lock(mutex_);
    for (auto& [key, p] : merged_) all_.push_back(std::move(p));
    merged_.clear();
    return std::move(all_);
  }
  Progress& progress() { return progress_; }

 private:
  Progress& progress_;
  std::optional<std::filesystem::path> dir_;
  bool clock_suffix_ = true;
  std::mutex mutex_;
  bool pool_ = false;
  std::vector<PointResult> all_;
  std::map<std::string, std::vector<PointResult>> runs_;  // with processes: each point's runs so far
  std::map<std::string, PointResult> merged_;             // ... and their pool
  bool fatal_ = false;
  std::string fatal_message_;
};

// The runner's news, to the shared sink, for one program on one device.
class SinkOutput final : public RunnerOutput {
 public:
  SinkOutput(Sink& sink, const AsvRun* run, const ProgramInfo& program, std::string where)
      : sink_(sink), run_(run), program_(program), where_(std::move(where)) {}
  void record(std::vector<PointResult> points) override { sink_.record(run_, program_, where_, std::move(points)); }
  void note(const std::string& line) override { sink_.progress().note(line); }
  void running(const std::string& point) override { sink_.progress().running(where_, point); }
  void tick() override { sink_.progress().tick(); }

 private:
  Sink& sink_;
  const AsvRun* run_;
  const ProgramInfo& program_;
  std::string where_;
};

// The points of each program this run takes (--filter, --shard), and how many in all.
struct Selection {
  std::vector<std::vector<const PlannedPoint*>> per_program;
  std::size_t total = 0;
};

// The asv database: its folder and one AsvRun per program and device (key: program index, device
// or -1 without --devices). Each program's rows carry its own environment: a C++ and a Python
// program, or an optimized and an unoptimized build, run side by side keep their histories apart.
struct Database {
  std::optional<std::filesystem::path> dir;
  std::map<std::pair<std::size_t, int>, AsvRun> runs;
  const AsvRun* run_for(std::size_t program, std::optional<int> device) const {
    return dir ? &runs.at({program, device.value_or(-1)}) : nullptr;
  }
};

// The pair of device settings the programs would refuse, refused before any of them starts.
void check_device_settings(const RunOptions& o);
// Step 0: the asv.conf.json the rows follow (its results_dir and repo), for RunOptions::config:
// --config, or the one given as a program input (`pitot run path/asv.conf.json`, from any
// folder). Throws InputError when two different configs are given (inputs, or an input and
// --config).
std::string run_config_path(const RunOptions& o);
// Step 1's answer: the programs that listed their points, and those that could not.
struct Programs {
  std::vector<ProgramInfo> listed;
  std::vector<ProgramFailure> failed;
};
// Step 1: the programs and what each holds (`--list --json` with the run's --axis and --filter).
// A program that cannot be listed costs only its own points: it is named on stderr, kept in
// `failed`, and the others run. Throws InputError when none can be listed.
Programs list_programs(const RunOptions& o);
// Step 2: the points to run (--filter, --shard).
Selection select_points(const RunOptions& o, const std::vector<ProgramInfo>& programs);
// Step 3: the devices, one worker each (nullopt: the programs' default device, no --device).
std::vector<std::optional<int>> choose_devices(const RunOptions& o, const std::vector<ProgramInfo>& programs);
// Step 4: the database, checked before anything runs: machine per device, env per program.
Database prepare_database(const RunOptions& o, const std::vector<ProgramInfo>& programs,
                          const std::vector<std::optional<int>>& devices);
// What every child is given besides its points: --axis, the engine knobs, --timing and --clock.
RunnerSettings runner_settings(const RunOptions& o, std::optional<int> device);
// --json FILE: every result with the benchmarks they belong to, the programs that could not be
// listed (- for stdout), and the fence the programs ran in (`sandbox`, when one was asked for).
void write_json_report(const std::string& path, const Programs& programs, const std::vector<PointResult>& results,
                       const std::string& sandbox = "");
// The options every command that runs programs takes (pitot run, pitot ab): --axis, --filter,
// --timeout, --progress, --interleave, --sandbox and the engine and device knobs passed to each
// program.
void add_program_options(CLI::App* cmd, const std::shared_ptr<RunOptions>& o);
// Where the rows go: --asv-dir, --config and --machine (pitot run, pitot ab).
void add_database_options(CLI::App* cmd, const std::shared_ptr<RunOptions>& o);

}  // namespace pitot::driver::run

// pitot run: runs benchmark programs as isolated children and grows the asv database. Its
// command line, and run_command in the steps of run/steps.hpp: list the programs, select the
// points, choose the devices, prepare the database, run every program on every device
// (run/program_runner.cpp: the scheduling and failure rules of docs/driver.md, "Isolation"), report.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/settings.hpp"
#include "driver/common/command.hpp"
#include "asv/config.hpp"
#include "driver/common/manifest.hpp"
#include "driver/common/progress.hpp"
#include "driver/run/estimate.hpp"
#include "driver/run/program_runner.hpp"
#include "driver/run/steps.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace pitot::driver::run {

namespace {

// Step 5: one line saying what runs where, and a warning for programs built without optimization.
void announce(Progress& progress, const RunOptions& o, const std::vector<ProgramInfo>& programs, const Database& db,
              std::size_t points) {
  if (!db.dir) return;
  const AsvRun& first = db.runs.begin()->second;
  std::set<std::string> envs;
  std::vector<std::string> unoptimized;
  for (const auto& [key, run] : db.runs) {
    envs.insert(run.env_name);
    // Only CUDA programs can time with the kernel clock: name its env only for them.
    if (o.env.empty() && programs[key.first].list.backend == "cuda") envs.insert(run.env_name + kKernelClockEnvSuffix);
    const auto build = run.requirements.find("build_type");
    if (build != run.requirements.end() && (build->second == "unoptimized" || build->second == "Debug") &&
        key.second == db.runs.begin()->first.second)
      unoptimized.push_back(programs[key.first].program);
  }
  progress.note(fmt::format("pitot: {} point{} of {} program{} -> {} (machine {}, commit {}, env{} {})", points,
                            points == 1 ? "" : "s", programs.size(), programs.size() == 1 ? "" : "s", db.dir->string(),
                            first.machine, first.commit_hash.substr(0, 8), envs.size() == 1 ? "" : "s",
                            fmt::join(envs, ", ")));
  if (!unoptimized.empty())
    progress.note(fmt::format(
        "pitot: WARNING: {} built without optimization: {} times are not those of an optimized build "
        "(the rows go to an env of their own). Configure with -DCMAKE_BUILD_TYPE=Release.",
        fmt::join(unoptimized, ", "), unoptimized.size() == 1 ? "its" : "their"));
}

// Step 6: one worker per device; each runs the programs one after another, and with
// --processes K the whole sequence K times (program 1, program 2, ..., program 1 again, ...):
// alternated, so slow drift of the machine spreads over every program's processes alike.
void run_everywhere(const RunOptions& o, const std::vector<ProgramInfo>& programs, const Selection& selection,
                    const std::vector<std::optional<int>>& devices, const Database& db, Sink& sink, CostMeter& costs) {
  auto work = [&](std::optional<int> device) {
    const RunnerSettings settings = runner_settings(o, device);
    for (int round = 0; round < o.processes && !interrupted(); ++round)
      for (std::size_t i = 0; i < programs.size() && !interrupted(); ++i) {
        if (selection.per_program[i].empty()) continue;
        SinkOutput out(sink, db.run_for(i, device), programs[i], where_of(programs[i], device));
        costs.run(settings, programs[i], selection.per_program[i], out, interrupted());
      }
  };
  if (devices.size() == 1) {
    work(devices.front());
    return;
  }
  std::vector<std::thread> threads;
  for (const auto& d : devices) threads.emplace_back(work, d);
  for (auto& t : threads) t.join();
}

// After the summary: the programs that could not be listed, each with the first line of its reason
// (the whole reason was said before the run, and is in --json).
void print_failed_programs(const RunOptions& o, const std::vector<ProgramFailure>& failed) {
  if (failed.empty() || o.progress == ProgressMode::None) return;
  std::printf("\nPrograms that could not be listed (none of their points ran):\n");
  for (const auto& f : failed) {
    const std::string first_line = f.reason.substr(0, f.reason.find('\n'));
    std::printf("  %s  %s%s\n", f.ref.path.string().c_str(), first_line.c_str(),
                first_line.size() < f.reason.size() ? " ..." : "");
  }
  std::fflush(stdout);
}

int run_command(RunOptions o) {
  const auto t0 = Clock::now();
  const CatchInterrupts catching;  // Ctrl-C stops the children and keeps what finished
  check_device_settings(o);
  if (!o.no_asv) o.config = run_config_path(o);
  o.sandbox_said = settle_sandbox(o.sandbox, o.untrusted(), "run");  // before the listing runs their code
  const Programs listing = list_programs(o);
  const std::vector<ProgramInfo>& programs = listing.listed;
  const Selection selection = select_points(o, programs);
  const std::vector<std::optional<int>> devices = choose_devices(o, programs);
  say_run_estimate(o, programs, selection, devices.size());
  if (o.estimate_only) return kOk;  // nothing runs, nothing is written
  const Database db = prepare_database(o, programs, devices);

  const bool live = o.progress == ProgressMode::Live || (o.progress == ProgressMode::Auto && isatty(STDERR_FILENO));
  Progress progress(o.progress == ProgressMode::None ? nullptr : stderr, live,
                    selection.total * devices.size() * o.processes);
  Sink sink(progress, db.dir, o.env.empty(), o.processes > 1);
  announce(progress, o, programs, db, selection.total * devices.size());
  CostMeter costs(CostBook::default_path(), cost_knobs(o));
  run_everywhere(o, programs, selection, devices, db, sink, costs);
  progress.finish();
  if (const std::string note = costs.save(); !note.empty()) std::fprintf(stderr, "pitot run: note: %s\n", note.c_str());

  std::vector<PointResult> results = sink.take();
  std::sort(results.begin(), results.end(), [](const PointResult& a, const PointResult& b) {
    return std::tie(a.program, a.id) < std::tie(b.program, b.id);
  });
  if (!o.json_path.empty()) write_json_report(o.json_path, listing, results, o.sandbox_said);
  if (sink.fatal()) {
    std::fprintf(stderr, "pitot run: the asv database refused the results: %s\n", sink.fatal_message().c_str());
    return kUsage;
  }
  const bool stopped = interrupted().load();
  if (o.progress != ProgressMode::None)
    print_summary(stdout, results, std::chrono::duration<double>(Clock::now() - t0).count(), stopped);
  print_failed_programs(o, listing.failed);
  const bool any_failed =
      !listing.failed.empty() ||
      std::any_of(results.begin(), results.end(), [](const PointResult& p) { return p.status == PointStatus::Failed; });
  return any_failed || stopped ? kFailed : kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("run", "Run benchmark programs, each point isolated, and grow the asv database");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("programs", o->inputs, "Programs or folders to run (default: those of <build-dir>/pitot-manifest.json)");
  add_build_dir_option(cmd, o->build_dir);
  add_database_options(cmd, o);
  cmd->add_flag("--no-asv", o->no_asv, "Do not write the asv database (use --json for the results)");
  cmd->add_option("--commit", o->commit, "Commit the results belong to (default: HEAD of the config's repo or of .)");
  cmd->add_option("--env", o->env, "asv environment name (default: compiler, version, build type, CUDA)");
  cmd->add_option("--devices", o->devices, "Run on these GPUs in parallel, one child each: all, or 0,1");
  cmd->add_option("--ranks", o->ranks,
                  "Processes of a multi-rank program, one per GPU, timed together (default: one per GPU; docs/ranks.md)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", o->shard, "Run only the k-th of N deterministic shares of all points, e.g. 2/4");
  cmd->add_option("--json", o->json_path, "Write every result (failures with their reasons) as JSON to FILE (- for stdout)");
  cmd->add_option("--processes", o->processes,
                  "Run each program K times as separate processes, alternated, and pool each point's samples "
                  "(the per-process medians are kept for pitot compare)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  add_program_options(cmd, o);
  cmd->callback([o] { run_guarded("run", [&] { return run_command(*o); }); });
}

}  // namespace

void add_run_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

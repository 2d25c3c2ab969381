// pitot run: runs benchmark programs as isolated children and grows the asv database. Its
// command line, and run_command in steps: list the programs, select the points, choose the
// devices, prepare the database, run every program on every device (run/program_runner.cpp:
// the scheduling and failure rules of docs/driver.md, "Isolation"), report.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/bounded_json.hpp"
#include "core/point_filter.hpp"
#include "core/settings.hpp"
#include "driver/common/child.hpp"
#include "driver/common/command.hpp"
#include "program/cli_hints.hpp"
#include "driver/common/database.hpp"
#include "driver/common/manifest.hpp"
#include "driver/common/progress.hpp"
#include "driver/run/program_runner.hpp"
#include "output/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace pitot::driver::run {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

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
  std::string shard;
  std::string json_path;
  ProgressMode progress = ProgressMode::Auto;
  int interleave = 8;
  bool no_interleave = false;
  int processes = 1;                               // each program runs this many times, alternated; samples pooled per point
  std::map<std::string, std::string> passthrough;  // engine knobs for the programs, checked as they check them
  std::optional<Timing> timing;                    // --timing and --clock, for the programs
  std::optional<GpuClock> clock;
};

// What every worker shares: the database, the results so far, the progress display.
class Sink {
 public:
  // clock_suffix: kernel-clock rows go to the env with kKernelClockEnvSuffix (not under a user's --env).
  Sink(Progress& progress, std::optional<fs::path> dir, bool clock_suffix, int processes)
      : progress_(progress), dir_(std::move(dir)), clock_suffix_(clock_suffix), processes_(processes) {}

  // Records finished points of one program on one device: database first, then memory. With
  // several processes, a point's runs so far are pooled (merge_processes) and the pool replaces
  // what the database held for it, so an interrupted run keeps every finished process.
  void record(const AsvRun* run, const ProgramInfo& program, const std::string& where,
              std::vector<PointResult> points) {
    if (points.empty()) return;
    std::lock_guard lock(mutex_);
    std::vector<std::string> keys;
    if (processes_ > 1) {
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
        g_interrupted = true;  // stop every worker: the database refuses our writes
      }
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      progress_.done(where, points[i]);
      if (processes_ > 1) merged_[keys[i]] = std::move(points[i]);
      else all_.push_back(std::move(points[i]));
    }
  }

  bool fatal() const { return fatal_; }
  const std::string& fatal_message() const { return fatal_message_; }
  std::vector<PointResult> take() {
    std::lock_guard lock(mutex_);
    for (auto& [key, p] : merged_) all_.push_back(std::move(p));
    merged_.clear();
    return std::move(all_);
  }
  Progress& progress() { return progress_; }

 private:
  Progress& progress_;
  std::optional<fs::path> dir_;
  bool clock_suffix_ = true;
  std::mutex mutex_;
  int processes_ = 1;
  std::vector<PointResult> all_;
  std::map<std::string, std::vector<PointResult>> runs_;  // with processes: each point's runs so far
  std::map<std::string, PointResult> merged_;             // ... and their pool
  bool fatal_ = false;
  std::string fatal_message_;
};

std::vector<int> parse_devices(const std::string& text, int available) {
  if (text == "all") {
    if (available <= 0)
      throw InputError("--devices all: no program reported a GPU (build with a GPU backend, or list devices as 0,1)");
    std::vector<int> all;
    for (int i = 0; i < available; ++i) all.push_back(i);
    return all;
  }
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    try {
      std::size_t used = 0;
      int d = std::stoi(part, &used);
      if (used != part.size() || d < 0) throw std::invalid_argument(part);
      if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    } catch (const std::exception&) {
      throw InputError("--devices '" + text + "': write all, or device numbers like 0,1");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::pair<int, int> parse_shard_text(const std::string& text) {
  const auto shard = shard_from_text(text);
  if (!shard) throw InputError("--shard '" + text + "': " + kShardHelp);
  return *shard;
}

void write_json_file(const std::string& path, const json& doc) {
  // Belt and braces: any text still not UTF-8 is replaced rather than losing the whole report.
  std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw InputError("cannot write " + tmp);
  }
  fs::rename(tmp, path);
}

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
  std::optional<fs::path> dir;
  std::map<std::pair<std::size_t, int>, AsvRun> runs;
  const AsvRun* run_for(std::size_t program, std::optional<int> device) const {
    return dir ? &runs.at({program, device.value_or(-1)}) : nullptr;
  }
};

// Ctrl-C and SIGTERM stop the children and keep what finished; a closed stdout is not fatal.
void catch_interrupts() {
  g_interrupted = false;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

// The pair of device settings the programs would refuse, refused before any of them starts, in
// their words.
void check_device_settings(const RunOptions& o) {
  if (const std::string problem = device_settings_problem(o.timing.value_or(Timing::Cold), o.clock); !problem.empty())
    throw InputError(problem);
}

// Step 1: the programs and what each holds (`--list --json` with the run's --axis and --filter).
std::vector<ProgramInfo> list_programs(const RunOptions& o) {
  std::vector<std::string> list_args;
  for (const auto& a : o.axes) list_args.insert(list_args.end(), {"--axis", a});
  if (!o.filter.empty()) list_args.insert(list_args.end(), {"--filter", o.filter});
  std::vector<ProgramInfo> programs;
  for (const auto& r : find_programs(o.inputs, o.build_dir)) programs.push_back(list_program(r, list_args));
  return programs;
}

// Step 2: the points to run. The shard takes every N-th point of the whole suite, in manifest and
// id order: balanced, and the same on every host that has the same build.
Selection select_points(const RunOptions& o, const std::vector<ProgramInfo>& programs) {
  const std::optional<std::regex> filter = compile_point_filter<InputError>(o.filter);
  int shard_k = 1, shard_n = 1;
  if (!o.shard.empty()) std::tie(shard_k, shard_n) = parse_shard_text(o.shard);
  Selection s;
  s.per_program.resize(programs.size());
  std::size_t global = 0;
  for (std::size_t i = 0; i < programs.size(); ++i)
    for (const auto& p : programs[i].points) {
      if (filter && !std::regex_search(p.name, *filter)) continue;
      if (static_cast<int>(global++ % shard_n) != shard_k - 1) continue;
      s.per_program[i].push_back(&p);
      ++s.total;
    }
  if (s.total == 0) throw InputError("no point to run: the programs hold none that match --filter/--shard (see pitot list)");
  return s;
}

// Step 3: the devices, one worker each (nullopt: the programs' default device, no --device).
std::vector<std::optional<int>> choose_devices(const RunOptions& o, const std::vector<ProgramInfo>& programs) {
  if (o.devices.empty()) return {std::nullopt};
  int available = 0;
  for (const auto& p : programs) available = std::max(available, p.list.device_count);
  std::vector<std::optional<int>> devices;
  for (int d : parse_devices(o.devices, available)) devices.push_back(d);
  return devices;
}

// The build a program reports (its --list --json), else the driver's own.
std::map<std::string, std::string> program_requirements(const ProgramInfo& program) {
  return program.list.requirements ? *program.list.requirements : build_requirements();
}

// A program's env names its own build, not the driver's: a project built without optimization
// must not land in a Release env, nor a Python file in a C++ one. --env names every program's.
std::string program_env(const RunOptions& o, const ProgramInfo& program) {
  if (!o.env.empty()) return o.env;
  return env_name(program_requirements(program)) + timing_env_suffix(o.timing.value_or(Timing::Cold));
}

// Step 4: the database, checked before anything runs: machine per device, env per program.
Database prepare_database(const RunOptions& o, const std::vector<ProgramInfo>& programs,
                          const std::vector<std::optional<int>>& devices) {
  Database db;
  if (o.no_asv) return db;
  std::optional<AsvConfig> config = find_asv_config(o.config);
  db.dir = results_dir(o.asv_dir, config);
  const CommitInfo commit = resolve_commit(o.commit, config ? config->repo : fs::path("."));
  for (const auto& d : devices) {
    AsvRun machine_run;
    machine_run.commit_hash = commit.hash;
    machine_run.commit_date_ms = commit.date_ms;
    json facts = nullptr;
    for (const auto& p : programs) {
      facts = listed_device_facts(p.list, d.value_or(0));
      if (!facts.is_null()) break;
    }
    fill_machine(machine_run, o.machine, facts);
    for (std::size_t i = 0; i < programs.size(); ++i) {
      AsvRun run = machine_run;
      run.requirements = program_requirements(programs[i]);
      run.env_name = program_env(o, programs[i]);
      if (d) {
        // Each GPU keeps its own results file and its own line in asv's graphs.
        run.env_name += fmt::format("-dev{}", *d);
        run.requirements["device"] = std::to_string(*d);
      }
      try {
        checked_name("--env", run.env_name);
      } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
      }
      db.runs[{i, d.value_or(-1)}] = run;
    }
  }
  return db;
}

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

// What every child of this run is given besides its points: --axis, the engine knobs, --timing
// and --clock by their names.
RunnerSettings runner_settings(const RunOptions& o, std::optional<int> device) {
  RunnerSettings s;
  s.timeout = o.timeout;
  s.interleave = o.no_interleave ? 1 : o.interleave;
  s.device = device;
  for (const auto& a : o.axes) s.program_args.insert(s.program_args.end(), {"--axis", a});
  for (const auto& [flag, value] : o.passthrough) s.program_args.insert(s.program_args.end(), {flag, value});
  if (o.timing) s.program_args.insert(s.program_args.end(), {"--timing", name_of(*o.timing)});
  if (o.clock) s.program_args.insert(s.program_args.end(), {"--clock", name_of(*o.clock)});
  return s;
}

// Step 6: one worker per device; each runs the programs one after another, and with
// --processes K the whole sequence K times (program 1, program 2, ..., program 1 again, ...):
// alternated, so slow drift of the machine spreads over every program's processes alike.
void run_everywhere(const RunOptions& o, const std::vector<ProgramInfo>& programs, const Selection& selection,
                    const std::vector<std::optional<int>>& devices, const Database& db, Sink& sink) {
  auto work = [&](std::optional<int> device) {
    const RunnerSettings settings = runner_settings(o, device);
    for (int round = 0; round < o.processes && !g_interrupted; ++round)
      for (std::size_t i = 0; i < programs.size() && !g_interrupted; ++i) {
        if (selection.per_program[i].empty()) continue;
        SinkOutput out(sink, db.run_for(i, device), programs[i], where_of(programs[i], device));
        ProgramRunner(settings, programs[i], selection.per_program[i], out, g_interrupted).run();
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

// Step 7: --json FILE, every result with the benchmarks they belong to.
void write_json_report(const std::string& path, const std::vector<ProgramInfo>& programs,
                       const std::vector<PointResult>& results) {
  json doc = {{"driver", "pitot run"}, {"benchmarks", json::array()}, {"points", json::array()}};
  for (const auto& p : programs)
    for (const auto& b : p.benchmarks) doc["benchmarks"].push_back(to_json(b));
  for (const auto& r : results) doc["points"].push_back(to_json(r));
  write_json_file(path, doc);
}

int run_command(RunOptions o) {
  const auto t0 = Clock::now();
  catch_interrupts();
  check_device_settings(o);
  const std::vector<ProgramInfo> programs = list_programs(o);
  const Selection selection = select_points(o, programs);
  const std::vector<std::optional<int>> devices = choose_devices(o, programs);
  const Database db = prepare_database(o, programs, devices);

  const bool live = o.progress == ProgressMode::Live || (o.progress == ProgressMode::Auto && isatty(STDERR_FILENO));
  Progress progress(o.progress == ProgressMode::None ? nullptr : stderr, live,
                    selection.total * devices.size() * o.processes);
  Sink sink(progress, db.dir, o.env.empty(), o.processes);
  announce(progress, o, programs, db, selection.total * devices.size());
  run_everywhere(o, programs, selection, devices, db, sink);
  progress.finish();

  std::vector<PointResult> results = sink.take();
  std::sort(results.begin(), results.end(), [](const PointResult& a, const PointResult& b) {
    return std::tie(a.program, a.id) < std::tie(b.program, b.id);
  });
  if (!o.json_path.empty()) write_json_report(o.json_path, programs, results);
  if (sink.fatal()) {
    std::fprintf(stderr, "pitot run: the asv database refused the results: %s\n", sink.fatal_message().c_str());
    return kUsage;
  }
  const bool interrupted = g_interrupted.load();
  if (o.progress != ProgressMode::None)
    print_summary(stdout, results, std::chrono::duration<double>(Clock::now() - t0).count(), interrupted);
  const bool any_failed =
      std::any_of(results.begin(), results.end(), [](const PointResult& p) { return p.status == PointStatus::Failed; });
  return any_failed || interrupted ? kFailed : kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("run", "Run benchmark programs, each point isolated, and grow the asv database");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("programs", o->inputs, "Programs or folders to run (default: those of <build-dir>/pitot-manifest.json)");
  add_build_dir_option(cmd, o->build_dir);
  add_point_options(cmd, o->filter, o->axes, "Run only");
  cmd->add_option("--asv-dir", o->asv_dir, "asv results folder (default: results_dir of ./asv.conf.json, else ./asv-results)");
  cmd->add_option("--config", o->config, "asv.conf.json to take results_dir and the git repository from");
  cmd->add_flag("--no-asv", o->no_asv, "Do not write the asv database (use --json for the results)");
  cmd->add_option("--machine", o->machine, "asv machine name (default: from the GPU product, else the CPU model)");
  cmd->add_option("--commit", o->commit, "Commit the results belong to (default: HEAD of the config's repo or of .)");
  cmd->add_option("--env", o->env, "asv environment name (default: compiler, version, build type, CUDA)");
  cmd->add_option("--timeout", o->timeout, "Seconds a point may take, for every benchmark (default: each benchmark's own, 60)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--devices", o->devices, "Run on these GPUs in parallel, one child each: all, or 0,1");
  cmd->add_option("--shard", o->shard, "Run only the k-th of N deterministic shares of all points, e.g. 2/4");
  cmd->add_option("--json", o->json_path, "Write every result (failures with their reasons) as JSON to FILE (- for stdout)");
  std::vector<std::string> progress_names;
  for (const auto& [name, mode] : kProgressModes) progress_names.push_back(name);
  cmd->add_option_function<std::string>(
         "--progress", [o](const std::string& name) {
           for (const auto& [known, mode] : kProgressModes)
             if (name == known) o->progress = mode;
         },
         "auto (live line on a terminal), live, plain (a line per point) or none")
      ->check(CLI::IsMember(progress_names))
      ->default_str("auto");
  cmd->add_option("--interleave", o->interleave, "Points each program samples round-robin at once")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--no-interleave", o->no_interleave, "Run each program's points one after another");
  cmd->add_option("--processes", o->processes,
                  "Run each program K times as separate processes, alternated, and pool each point's samples "
                  "(the per-process medians are kept for pitot compare)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  // Engine and device knobs go to every program unchanged (see docs/program-cli.md).
  // Checked here as the programs check them, so a bad value is one message, not one per program.
  // --timing and --clock are parsed into their enums here, as the programs parse them.
  const char* const passed = "Passed to every program (see its --help)";
  auto add_knobs = [&](const std::vector<std::pair<const char*, CLI::Validator>>& knobs) {
    for (const auto& [flag, check] : knobs)
      cmd->add_option_function<std::string>(
             flag, [o, flag = flag](const std::string& v) { o->passthrough[flag] = v; },
             passed)
          ->check(check);
  };
  add_knobs({{"--warmup", cli::non_negative()}, {"--min-samples", CLI::Range(2, 100000000)}, {"--min-time", cli::non_negative()}, {"--max-time", cli::positive()}, {"--max-samples", CLI::Range(1, 100000000)}, {"--ci-target", cli::positive()}, {"--batch-time", cli::positive()}, {"--min-sample-time", cli::non_negative()}, {"--seed", CLI::NonNegativeNumber}});
  cli::add_timing_option(
      *cmd, [o](Timing t) { o->timing = t; }, passed);
  cli::add_clock_option(
      *cmd, [o](GpuClock c) { o->clock = c; }, passed);
  add_knobs({{"--graph-launches", CLI::Range(0, 1000000)}, {"--throttle-ratio", cli::within(0.0, 1.0)}});
  cmd->callback([o] { run_guarded("run", [&] { return run_command(*o); }); });
}

}  // namespace

void add_run_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

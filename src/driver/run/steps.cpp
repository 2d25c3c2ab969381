// pitot run's steps (run/steps.hpp), shared by pitot run and pitot ab.
#include "driver/run/steps.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "asv/run_record.hpp"
#include "core/knobs.hpp"
#include "core/rethrow.hpp"
#include "core/point_filter.hpp"
#include "driver/common/child.hpp"
#include "driver/common/command.hpp"
#include "driver/common/files.hpp"
#include "driver/run/ranked_child.hpp"
#include "driver/run/self_timed.hpp"
#include "program/cli_hints.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::run {

namespace {

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
  // The atomic writer (fsync before and after the rename); a missing folder stays an error, as
  // for any file the user names.
  try {
    pitot::replace_files({{path, text}});
  } catch (const FileError& e) {
    throw InputError(e.what());
  }
}

}  // namespace

// The pair of device settings the programs would refuse, refused before any of them starts, in
// their words.
void check_device_settings(const RunOptions& o) {
  if (const std::string problem = device_settings_problem(o.timing.value_or(Timing::Cold), o.clock); !problem.empty())
    throw InputError(problem);
}

// Step 0 (see steps.hpp).
std::string run_config_path(const RunOptions& o) {
  std::string input;
  for (const auto& in : o.inputs) {
    if (!is_asv_config_input(in)) continue;
    if (!input.empty() && fs::weakly_canonical(in) != fs::weakly_canonical(input))
      throw InputError("two asv configs given, " + input + " and " + in +
                       ": their results go to different folders and commits; run one suite at a time");
    input = in;
  }
  if (input.empty()) return o.config;
  std::error_code ec;
  const fs::path config = fs::is_directory(o.config, ec) ? fs::path(o.config) / "asv.conf.json" : fs::path(o.config);
  if (!o.config.empty() && fs::weakly_canonical(config) != fs::weakly_canonical(input))
    throw InputError("--config " + o.config + " is not the asv config given to run, " + input +
                     ": the rows follow one config; drop --config, or give that one");
  return input;
}

// Step 1: the programs and what each holds (`--list --json` with the run's --axis and --filter).
Programs list_programs(const RunOptions& o) {
  std::vector<std::string> list_args;
  for (const auto& a : o.axes) list_args.insert(list_args.end(), {"--axis", a});
  if (!o.filter.empty()) list_args.insert(list_args.end(), {"--filter", o.filter});
  Programs programs;
  const std::vector<ProgramRef> refs = find_programs(o.inputs, o.build_dir);
  const std::string self_timed = self_timed_mode(o.self_timed, self_timed_config(o.inputs, o.config));
  for (const auto& r : refs) {
    try {
      programs.listed.push_back(list_program(with_self_timed(r, self_timed), list_args));
    } catch (const InputError& e) {
      programs.failed.push_back({r, e.what()});
    }
  }
  if (programs.listed.empty()) {
    if (programs.failed.size() == 1) throw InputError(programs.failed.front().reason);
    std::string why;
    for (const auto& f : programs.failed) why += "\n  " + f.ref.path.string() + ": " + f.reason;
    throw InputError("none of the " + std::to_string(refs.size()) + " programs could be listed:" + why);
  }
  for (const auto& f : programs.failed)
    std::fprintf(stderr, "pitot: FAILED: program %s could not be listed; its points do not run, the others do: %s\n",
                 f.ref.path.string().c_str(), f.reason.c_str());
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
  // One worker per GPU runs a multi-rank program as a world of one rank on its GPU: N ranks would
  // take the other workers' GPUs.
  if (o.ranks > 1)
    throw InputError("--devices and --ranks: ranks take one GPU each, a worker per GPU takes one; give one of them");
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
  std::set<std::string> notes;  // said once, not once per program
  db.dir = asv_results_dir(o.asv_dir, config);
  std::string machine_note, commit_note;
  const json machine_file = read_asv_machine_file(machine_note);
  const CommitInfo commit = rethrow_as<AsvError, InputError>(
      [&] { return asv_commit(o.commit, config ? config->repo : fs::path("."), commit_note); });
  const AsvFacts host = host_facts();
  for (const auto& d : devices) {
    const ListedDevice device = listed_device(programs, d.value_or(0));
    for (std::size_t i = 0; i < programs.size(); ++i) {
      // The run record is built as a program alone builds its own (asv/run_record.hpp).
      RunRecordInputs in{{o.machine, machine_file, asv_host_name(), host, device.facts, device.machine}, commit, "", {}};
      in.requirements = program_requirements(programs[i]);
      in.environments = config ? &config->environments : nullptr;
      in.env = program_env(o, programs[i]);
      // A multi-rank program's rows say how many ranks (GPUs) each point spanned, in an env of their own.
      if (const int ranks = d ? 1 : program_ranks(o.ranks, programs[i]); ranks > 1) {
        in.env += fmt::format("-ranks{}", ranks);
        in.requirements["ranks"] = std::to_string(ranks);
      }
      if (d) {
        // Each GPU keeps its own results file and its own line in asv's graphs.
        in.env += fmt::format("-dev{}", *d);
        in.requirements["device"] = std::to_string(*d);
      }
      db.runs[{i, d.value_or(-1)}] = rethrow_as<AsvError, InputError>([&] { return asv_run_record(in, notes); });
    }
  }
  for (const std::string& note : {machine_note, commit_note})
    if (!note.empty()) notes.insert(note);
  for (const auto& note : notes) std::fprintf(stderr, "pitot run: note: %s\n", note.c_str());
  return db;
}

// What every child of this run is given besides its points: --axis, the engine knobs, --timing
// and --clock by their names.
RunnerSettings runner_settings(const RunOptions& o, std::optional<int> device) {
  RunnerSettings s;
  s.timeout = o.timeout;
  s.interleave = o.no_interleave ? 1 : o.interleave;
  s.device = device;
  s.ranks = device ? 1 : o.ranks;  // a worker per GPU (--devices): one rank on its GPU
  for (const auto& a : o.axes) s.program_args.insert(s.program_args.end(), {"--axis", a});
  for (const auto& [flag, value] : o.passthrough) {
    s.program_args.push_back(flag);
    if (!value.empty()) s.program_args.push_back(value);  // a flag knob (--untrusted) has none
  }
  s.untrusted = o.untrusted();
  if (o.timing) s.program_args.insert(s.program_args.end(), {"--timing", name_of(*o.timing)});
  if (o.clock) s.program_args.insert(s.program_args.end(), {"--clock", name_of(*o.clock)});
  return s;
}

// Step 7: --json FILE, every result with the benchmarks they belong to.
void write_json_report(const std::string& path, const Programs& programs, const std::vector<PointResult>& results,
                       const std::string& sandbox) {
  json doc = {{"driver", "pitot run"}, {"benchmarks", json::array()}, {"points", json::array()},
              {"programs_failed", json::array()}};
  if (!sandbox.empty()) doc["sandbox"] = sandbox;
  for (const auto& p : programs.listed)
    for (const auto& b : p.benchmarks) doc["benchmarks"].push_back(to_json(b));
  for (const auto& f : programs.failed)
    doc["programs_failed"].push_back(
        {{"program", expected_program_name(f.ref)}, {"path", f.ref.path.string()}, {"reason", f.reason}});
  for (const auto& r : results) doc["points"].push_back(to_json(r));
  write_json_file(path, doc);
}

void add_program_options(CLI::App* cmd, const std::shared_ptr<RunOptions>& o) {
  add_point_options(cmd, o->filter, o->axes, "Run only");
  cmd->add_option("--timeout", o->timeout, "Seconds a point may take, for every benchmark (default: each benchmark's own, 60)")
      ->check(CLI::PositiveNumber);
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
      ->check(CLI::Range(1, kMaxInterleave))
      ->capture_default_str();
  cmd->add_flag("--no-interleave", o->no_interleave, "Run each program's points one after another");
  std::vector<std::string> sandbox_names;
  for (const auto& [name, mode] : sandbox_modes()) sandbox_names.push_back(name);
  cmd->add_option_function<std::string>(
         "--sandbox", [o](const std::string& name) {
           for (const auto& [known, mode] : sandbox_modes())
             if (name == known) o->sandbox = mode;
         },
         "Run each program under bubblewrap: no network, files read-only but a scratch folder (docs/untrusted.md). "
         "auto: when this machine allows it, else say why not; require: exit 2 when it does not; off")
      ->check(CLI::IsMember(sandbox_names))
      ->default_str("auto under --untrusted, else off");
  cmd->add_flag("--estimate", o->estimate_only,
                "Say what the run would cost (points, processes, minutes, from the last run of the same programs "
                "where there is one) and exit without running anything");
  // Engine and device knobs go to every program unchanged (see docs/program-cli.md), declared
  // once with the programs' own (core/knobs.hpp) and checked here as the programs check them, so
  // a bad value is one message, not one per program. --timing and --clock are parsed into their
  // enums here, as the programs parse them.
  const char* const passed = "Passed to every program (see its --help)";
  auto add_knobs = [&](bool engine) {
    for (const Knob& k : knobs())
      if (k.engine() == engine && k.flag_only())  // passed on alone (runner_settings)
        cmd->add_flag_callback(k.flag, [o, flag = std::string(k.flag)] { o->passthrough[flag] = ""; }, passed);
      else if (k.engine() == engine)
        cmd->add_option_function<std::string>(
               k.flag, [o, flag = std::string(k.flag)](const std::string& v) { o->passthrough[flag] = v; }, passed)
            ->check(cli::knob_check(k.bounds));
  };
  add_knobs(true);
  cli::add_timing_option(
      *cmd, [o](Timing t) { o->timing = t; }, passed);
  cli::add_clock_option(
      *cmd, [o](GpuClock c) { o->clock = c; }, passed);
  add_knobs(false);
  add_self_timed_option(cmd, o->self_timed);
}

void add_database_options(CLI::App* cmd, const std::shared_ptr<RunOptions>& o) {
  cmd->add_option("--asv-dir", o->asv_dir, "asv results folder (default: results_dir of ./asv.conf.json, else ./asv-results)");
  cmd->add_option("--config", o->config, "asv.conf.json to take results_dir and the git repository from");
  cmd->add_option("--machine", o->machine, "asv machine name (default: from the GPU product, else the CPU model)");
}

}  // namespace pitot::driver::run

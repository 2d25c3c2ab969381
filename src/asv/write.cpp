// The asv results database writer: write_asv's steps, in order (the run checked, the files read,
// machine.json updated, each benchmark's entries and rows, the results file's own keys, the files
// replaced). The format and the reasons behind each rule are in docs/asv-format.md (section numbers
// below); the rows it rebuilds are in asv/write_rows.cpp, a results file's rows and text are shared
// with its readers (asv/results.cpp), and files are loaded as every reader loads them (asv/database.cpp).
#include "asv/write.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "asv/benchmarks.hpp"
#include "asv/database.hpp"
#include "asv/machine.hpp"
#include "asv/write_rows.hpp"
#include "core/rethrow.hpp"
#include "core/text.hpp"
#include "output/atomic_file.hpp"
#include "host/machine.hpp"

namespace pitot {

using nlohmann::json;
using namespace asv_write;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------
// write_asv's steps, in order.

// What a run writes, checked before the disk is touched: the names, and each benchmark's points.
struct CheckedRun {
  std::string machine, env;
  std::map<std::string, std::vector<const PointResult*>> points_of;  // by asv_time_name
};

CheckedRun check_run(const AsvRun& run, const std::vector<BenchmarkInfo>& benchmarks,
                     const std::vector<PointResult>& points) {
  CheckedRun checked;
  try {
    checked.machine = checked_name("machine", run.machine);
    checked.env = checked_name("environment", run.env_name);
  } catch (const std::invalid_argument& e) {
    throw AsvError(e.what());
  }
  if (run.commit_hash.size() != 40 || !is_lower_hex(run.commit_hash))
    throw AsvError("commit hash '" + run.commit_hash +
                   "' is not a full 40-digit lower-case hex git hash (asv publish looks it up in git)");
  std::map<std::pair<std::string, std::string>, const BenchmarkInfo*> by_program_name;
  std::map<std::string, const BenchmarkInfo*> by_key;
  for (const auto& b : benchmarks) {
    if (!std::isfinite(b.timeout_seconds))
      throw AsvError(b.full_name() + " has a timeout that is not a finite number");
    if (const std::string problem = asv_name_length_problem(b.program, b.name, b.asv_key); !problem.empty())
      throw AsvError(problem + ". Nothing was written.");
    // Two benchmarks, one asv key (program "a.b" with "c" and program "a" with "b.c", or two
    // modules' equal benchmark_name): asv keeps one row per key, so one history would be lost.
    const auto [seen, added] = by_key.emplace(b.full_name(), &b);
    if (!added && (seen->second->program != b.program || seen->second->name != b.name))
      throw AsvError("benchmark " + b.name + " of " + b.program + " and benchmark " + seen->second->name + " of " +
                     seen->second->program + " have the same asv key " + b.full_name() +
                     "; asv keeps one row per key, so rename one (a program, or a benchmark_name). Nothing was written.");
    by_program_name[{b.program, b.name}] = &b;
  }
  for (const auto& p : points) {
    auto it = by_program_name.find({p.program, p.benchmark});
    if (it == by_program_name.end())
      throw AsvError("point '" + p.name + "' belongs to " + p.program + "." + p.benchmark +
                     ", which is not among the benchmarks given");
    flat_position(*it->second, p);  // throws on a point that does not fit its benchmark
    checked.points_of[it->second->full_name()].push_back(&p);
  }
  return checked;
}

// The three files a run rewrites, as they are now (empty objects for files not there yet).
struct Files {
  std::filesystem::path benchmarks_path, machine_path, results_path;
  AsvBenchmarks benchmarks;
  json results;
  MachineJson machine;
};

// Loads the files (asv/database.hpp) and refuses a results file of another commit or env.
Files read_files(const fs::path& results_dir, const CheckedRun& checked, const AsvRun& run) {
  Files f;
  const fs::path machine_dir = results_dir / checked.machine;
  f.benchmarks_path = AsvBenchmarks::path_in(results_dir);
  f.machine_path = machine_dir / "machine.json";
  f.results_path = machine_dir / asv_results_file_name(run.commit_hash, checked.env);
  try {
    f.benchmarks = AsvBenchmarks::load_if_any(results_dir).value_or(AsvBenchmarks());
    f.machine = load_machine_json(f.machine_path);
    f.results = load_asv_file_if_any(f.results_path, AsvFile::Results).value_or(json::object());
  } catch (const AsvError& e) {
    throw AsvError(std::string(e.what()) + ". Nothing was written.");
  }
  const json& doc = f.results;
  const std::string path = f.results_path.string();
  if (doc.contains("commit_hash") && doc["commit_hash"] != json(run.commit_hash))
    throw AsvError(path + " holds results of commit " + json_text(doc["commit_hash"]) + ", not " + run.commit_hash +
                   "; move it away. Nothing was written.");
  if (doc.contains("env_name") && doc["env_name"] != json(checked.env))
    throw AsvError(path + " holds results of environment " + json_text(doc["env_name"]) + ", not " + checked.env +
                   "; move it away. Nothing was written.");
  if (doc.contains("results") && !doc["results"].is_object())
    throw AsvError(path + ": \"results\" is not an object. Nothing was written.");
  return f;
}

// A benchmark's entry in benchmarks.json, for its time row or one of its track rows.
json benchmark_entry(const BenchmarkInfo& b, const std::string& name, const std::string& type,
                     const std::string& unit, const Params& params) {
  json entry = {{"name", name},
                {"type", type},
                {"unit", unit},
                {"params", params_json(params)},
                {"param_names", param_names(b)},
                {"version", b.version},
                {"code", b.code},
                {"timeout", b.timeout_seconds}};
  if (type == "time") {  // only `asv run` reads these; pitot's own engine decides the sampling
    entry["number"] = 0;
    entry["repeat"] = 0;
    entry["min_run_count"] = 2;
    entry["rounds"] = 1;
    entry["sample_time"] = 0.01;
    entry["warmup_time"] = -1;
  }
  return entry;
}

// A benchmark's track rows, name -> unit: those measured now plus those already recorded.
std::map<std::string, std::string> track_units(const std::string& name, const std::vector<const PointResult*>& run_points,
                                               const json& old_results, const AsvBenchmarks& bench_doc) {
  std::map<std::string, std::string> tracks;
  for (const auto* p : run_points)
    for (const auto& t : p->tracks) tracks[t.name] = t.unit;
  for (auto it = old_results.begin(); it != old_results.end(); ++it) {
    const std::string& key = it.key();
    const std::optional<AsvTrackKey> split = split_track_key(key);
    if (split && split->row == name && !tracks.count(split->track)) {
      const std::string& track = split->track;
      const std::optional<AsvBenchmark> recorded = bench_doc.find(key);
      tracks[track] = recorded && !recorded->unit.empty() ? recorded->unit : default_track_unit(track);
    }
  }
  return tracks;
}

// The rows of the results file being rebuilt, with what they are rebuilt from.
struct Rows {
  std::vector<std::string> old_columns = kAsvResultColumns;
  json old_results = json::object();
  json results = json::object();  // the new rows
  json process_medians = json::object();
};

Rows start_rows(const json& results_doc) {
  Rows rows;
  if (results_doc.contains("result_columns") && results_doc["result_columns"].is_array())
    rows.old_columns = results_doc["result_columns"].get<std::vector<std::string>>();
  rows.old_results = results_doc.value("results", json::object());
  // Rows of benchmarks not in this run keep their data, rewritten into this column order.
  for (auto it = rows.old_results.begin(); it != rows.old_results.end(); ++it)
    rows.results[it.key()] = asv_row(asv_row_columns(it.value(), rows.old_columns));
  if (results_doc.contains(kAsvProcessMediansKey) && results_doc[kAsvProcessMediansKey].is_object())
    rows.process_medians = results_doc[kAsvProcessMediansKey];
  return rows;
}

// One benchmark's entries in benchmarks.json and its rows: the time row, then a row per track.
void write_benchmark(const BenchmarkInfo& b, const std::vector<const PointResult*>& run_points, AsvBenchmarks& bench_doc,
                     Rows& rows) {
  const std::string name = asv_time_name(b);
  const Params params = asv_params(b);
  const bool timed = b.type == "time";
  bench_doc.set(name, benchmark_entry(b, name, b.type, b.unit, params));
  const std::map<std::string, std::string> tracks = track_units(name, run_points, rows.old_results, bench_doc);

  auto row_for = [&](const std::string& key) {
    const json* old = rows.old_results.contains(key) ? &rows.old_results[key] : nullptr;
    return start_row(params, b.version, old, rows.old_columns);
  };
  std::int64_t started = 0;
  double duration = 0;
  for (const auto* p : run_points) {
    if (started == 0 || (p->started_at_ms != 0 && p->started_at_ms < started)) started = p->started_at_ms;
    duration += p->duration_seconds;
  }

  Row time_row = row_for(name);
  for (const auto* p : run_points) {
    time_row.cells[flat_position(b, *p)] = time_cell(*p, timed);
    // The per-process medians (pitot run --processes K), keyed by asv's unrolled point name,
    // in a top-level key asv ignores (checked with asv 0.6.6 publish, compare and show).
    std::vector<std::string> reprs;
    for (std::size_t a = 0; a < params.size(); ++a) reprs.push_back(params[a][p->index[a]]);
    const std::string key = asv_point_name(name, reprs);
    if (p->status == PointStatus::Ok && p->process_medians.size() >= 2) rows.process_medians[key] = p->process_medians;
    else rows.process_medians.erase(key);
  }
  if (!run_points.empty()) {
    time_row.started_at = started;
    time_row.duration = duration;
  }
  rows.results[name] = row_json(time_row);

  for (const auto& [track, unit] : tracks) {
    const std::string key = asv_track_name(b, track);
    bench_doc.set(key, benchmark_entry(b, key, "track", unit, params));
    Row row = row_for(key);
    for (const auto* p : run_points) row.cells[flat_position(b, *p)] = track_cell(*p, track);
    // A point skipped in an earlier write (the driver writes as points arrive), before any
    // point had made this track, is NaN here too, as in its time row: null means failed.
    for (std::size_t i = 0; i < row.cells.size() && i < time_row.cells.size(); ++i) {
      const auto time = time_row.cells[i].find("result");
      const bool skipped = time != time_row.cells[i].end() && time->second.is_number_float() &&
                           std::isnan(time->second.get<double>());
      const auto track_result = row.cells[i].find("result");
      if (skipped && (track_result == row.cells[i].end() || track_result->second.is_null())) row.cells[i]["result"] = kNaN;
    }
    if (!run_points.empty()) {
      row.started_at = started;
      row.duration = duration;
    }
    rows.results[key] = row_json(row);
  }
}

json string_map(const std::map<std::string, std::string>& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

// The results file's own keys around its rows. Its params are the machine facts and the
// requirements, one graph line per distinct set (§5). python_version only names the env
// (host/machine.hpp), and asv writes the interpreter as `python` beside the requirements, not
// among them.
void finish_results(json& results_doc, const AsvRun& run, const CheckedRun& checked,
                    const std::map<std::string, std::string>& facts, Rows& rows) {
  std::map<std::string, std::string> params = facts, requirements = run.requirements;
  requirements.erase("python_version");
  for (const auto& [k, v] : requirements) params[k] = v;
  params["machine"] = checked.machine;

  results_doc["commit_hash"] = run.commit_hash;
  results_doc["env_name"] = checked.env;
  results_doc["date"] = run.commit_date_ms;
  results_doc["params"] = string_map(params);
  if (requirements.count("python")) results_doc["python"] = requirements["python"];
  if (!results_doc.contains("python") || !results_doc["python"].is_string()) results_doc["python"] = "";
  requirements.erase("python");
  results_doc["requirements"] = string_map(requirements);
  if (!results_doc.contains("env_vars") || !results_doc["env_vars"].is_object())
    results_doc["env_vars"] = json::object();
  results_doc["result_columns"] = kAsvResultColumns;
  results_doc["results"] = std::move(rows.results);
  if (!results_doc.contains("durations") || !results_doc["durations"].is_object())
    results_doc["durations"] = json::object();
  results_doc["version"] = kAsvResultsVersion;
  if (rows.process_medians.empty()) results_doc.erase(kAsvProcessMediansKey);
  else results_doc[kAsvProcessMediansKey] = std::move(rows.process_medians);
}

}  // namespace

void write_asv(const fs::path& results_dir, const AsvRun& run, const std::vector<BenchmarkInfo>& benchmarks,
               const std::vector<PointResult>& points) {
  CheckedRun checked = check_run(run, benchmarks, points);
  const fs::path machine_dir = results_dir / checked.machine;
  std::error_code ec;
  fs::create_directories(machine_dir, ec);
  if (ec) throw AsvError("cannot create " + machine_dir.string() + ": " + ec.message());

  std::optional<FolderLock> lock;
  rethrow_as<FileError, AsvError>([&] { lock.emplace(results_dir); });

  Files files = read_files(results_dir, checked, run);
  // machine.json by its one rule (asv/machine.hpp): asv's facts recorded before are kept, and they
  // are what this run's params carry, so that a history asv started goes on in the same graphs.
  const std::map<std::string, std::string> facts = update_machine_json(files.machine, checked.machine, run.machine_facts);
  Rows rows = start_rows(files.results);
  for (const auto& b : benchmarks) write_benchmark(b, checked.points_of[asv_time_name(b)], files.benchmarks, rows);
  finish_results(files.results, run, checked, facts, rows);

  rethrow_as<FileError, AsvError>([&] {
    replace_files({{files.benchmarks_path, files.benchmarks.text()},
                   {files.machine_path, machine_json_text(files.machine)},
                   {files.results_path, asv_results_file_text(files.results)}});
  });
}

}  // namespace pitot

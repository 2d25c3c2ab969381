// The asv results database writer. The format and the reasons behind each rule are in
// docs/asv-format.md (section numbers below); a results file's rows and text are shared with
// its readers in output/asv_results.cpp.
#include "output/asv.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "output/atomic_file.hpp"
#include "host/machine.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------
// Reading existing files.

// The file's JSON, or nullopt when it does not exist. Refuses a file that does not parse, is not
// an object or carries another version: asv would not read it either, and writing over it would
// lose whatever it holds.
std::optional<json> read_existing(const fs::path& path, int version, bool python_dialect) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::string text;
  try {
    if (!read_file_bounded(path, text)) throw AsvError("cannot read " + path.string() + ": " + std::strerror(errno));
  } catch (const std::length_error& e) {
    throw AsvError(std::string(e.what()) + "; fix or remove it, then run again. Nothing was written.");
  }
  json doc;
  try {
    doc = python_dialect ? parse_python_json(text) : parse_json_bounded(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw AsvError(path.string() + " is not valid JSON (" + e.what() +
                   "); fix or remove it, then run again. Nothing was written.");
  }
  if (!doc.is_object())
    throw AsvError(path.string() + " is not a JSON object; fix or remove it. Nothing was written.");
  auto v = doc.find("version");
  if (v == doc.end() || !v->is_number_integer() || v->get<int>() != version) {
    std::string found = v == doc.end() ? "no version" : "version " + json_text(*v);
    throw AsvError(path.string() + " has " + found + ", but pitot writes version " +
                   std::to_string(version) + " (asv 0.6); convert it with `asv update` or move it away. " +
                   "Nothing was written.");
  }
  return doc;
}

// ---------------------------------------------------------------------------------------------
// Writing (output/atomic_file.hpp): its failures are refusals of write_asv like any other.

template <class Body>
void as_asv_error(Body&& body) {
  try {
    body();
  } catch (const FileError& e) {
    throw AsvError(e.what());
  }
}

// ---------------------------------------------------------------------------------------------
// Rows.

using Params = AsvParams;

// asv's params of a benchmark: the repr of each value (a Python asv benchmark's values are its
// reprs already), duplicates within an axis numbered "x (0)", "x (1)" as asv_runner does, so that
// every point has its own name.
Params asv_params(const BenchmarkInfo& b) {
  Params params;
  for (const auto& axis : b.axes) {
    std::vector<std::string> reprs;
    for (const auto& v : axis.values) {
      const auto* text = std::get_if<std::string>(&v);
      reprs.push_back(b.repr_values && text ? *text : python_repr(v));
    }
    std::map<std::string, int> total, seen;
    for (const auto& r : reprs) ++total[r];
    for (auto& r : reprs)
      if (total[r] > 1) r = r + " (" + std::to_string(seen[r]++) + ")";
    params.push_back(std::move(reprs));
  }
  return params;
}

std::vector<std::string> param_names(const BenchmarkInfo& b) {
  std::vector<std::string> names;
  for (const auto& axis : b.axes) names.push_back(axis.name);
  return names;
}

Params params_from_json(const json& j) {
  Params params;
  if (!j.is_array()) return params;
  for (const auto& axis : j) {
    std::vector<std::string> values;
    if (axis.is_array())
      for (const auto& v : axis) values.push_back(v.is_string() ? v.get<std::string>() : json_text(v));
    params.push_back(std::move(values));
  }
  return params;
}

// One point's entries in the per-point columns; a missing column is null.
using Cell = std::map<std::string, json>;

// A results row being rebuilt: per-point cells plus the whole-row columns.
struct Row {
  Params params;
  std::vector<Cell> cells;
  json version, started_at, duration;
};

// Start the new row of `params`. Points of the existing row whose parameter tuple is still
// there and whose version is the same are kept; the run then overwrites the points it measured.
Row start_row(const Params& params, const std::string& version, const json* old_row,
              const std::vector<std::string>& old_columns) {
  Row row;
  row.params = params;
  auto tuples = asv_param_tuples(params);
  row.cells.resize(tuples.size());
  row.version = version;
  if (!old_row) return row;
  auto old = asv_row_columns(*old_row, old_columns);
  if (!old.count("version") || old["version"] != json(version)) return row;
  std::map<std::vector<std::string>, std::size_t> position;
  for (std::size_t i = 0; i < tuples.size(); ++i) position[tuples[i]] = i;
  auto old_tuples = asv_param_tuples(params_from_json(old["params"]));
  for (std::size_t k = 0; k < old_tuples.size(); ++k) {
    auto at = position.find(old_tuples[k]);
    if (at == position.end()) continue;
    Cell& cell = row.cells[at->second];
    for (const auto& column : kAsvPointColumns) {
      auto it = old.find(column);
      if (it != old.end() && it->second.is_array() && k < it->second.size()) cell[column] = it->second[k];
    }
  }
  row.started_at = old.count("started_at") ? old["started_at"] : json(nullptr);
  row.duration = old.count("duration") ? old["duration"] : json(nullptr);
  return row;
}

json params_json(const Params& params) {
  json j = json::array();
  for (const auto& axis : params) j.push_back(axis);
  return j;
}

json row_json(const Row& row) {
  AsvColumns columns;
  for (const auto& column : kAsvPointColumns) {
    json list = json::array();
    bool any = false;
    for (const auto& cell : row.cells) {
      auto it = cell.find(column);
      json v = it == cell.end() ? json(nullptr) : it->second;
      // A point never run (not selected by --filter, not reached before Ctrl-C) has no result:
      // NaN, which asv shows as not run. Only a failed point is null.
      if (it == cell.end() && column == "result") v = std::numeric_limits<double>::quiet_NaN();
      any = any || !v.is_null();
      list.push_back(v);
    }
    columns[column] = any ? list : json(nullptr);  // asv writes an all-null column as null
  }
  columns["params"] = params_json(row.params);
  columns["version"] = row.version;
  columns["started_at"] = row.started_at;
  columns["duration"] = row.duration;
  return asv_row(columns);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// §5: a measured point fills all six stats, a skipped one is NaN, a failed one null throughout.
// A value that is not a time (asv's track, memory, peakmemory) is its result alone, as asv writes it.
Cell time_cell(const PointResult& p, bool timed) {
  Cell cell;
  if (p.status == PointStatus::Skipped) {
    cell["result"] = kNaN;
    return cell;
  }
  if (p.status != PointStatus::Ok || !p.stats || p.samples.empty()) {
    cell["result"] = nullptr;  // failed: null, as asv writes a failure
    return cell;
  }
  const Stats& s = *p.stats;
  cell["result"] = s.median;
  if (!timed) return cell;
  cell["stats_ci_99_a"] = s.ci99_lo;  // -inf for fewer than 8 samples, as in §5
  cell["stats_ci_99_b"] = s.ci99_hi;
  cell["stats_q_25"] = s.q25;
  cell["stats_q_75"] = s.q75;
  cell["stats_number"] = p.number;
  cell["stats_repeat"] = static_cast<std::int64_t>(p.samples.size());  // all measured, not all kept
  cell["samples"] = asv_samples_column(p.samples);
  return cell;
}

Cell track_cell(const PointResult& p, const std::string& track) {
  Cell cell;
  if (p.status == PointStatus::Failed) {
    cell["result"] = nullptr;
    return cell;
  }
  cell["result"] = kNaN;
  if (p.status != PointStatus::Ok) return cell;
  for (const auto& t : p.tracks)
    if (t.name == track && std::isfinite(t.value)) cell["result"] = t.value;
  return cell;
}

std::string default_track_unit(const std::string& track) {
  if (track == "items_per_second") return "items/s";
  if (track == "gbytes_per_second") return "GB/s";
  if (track == "tflops") return "TFLOP/s";
  return "";
}

// Position of a point in its benchmark's cartesian product, checked against the axes.
std::size_t flat_position(const BenchmarkInfo& b, const PointResult& p) {
  if (p.index.size() != b.axes.size())
    throw AsvError("point '" + p.name + "' has " + std::to_string(p.index.size()) + " axis positions, but " +
                   b.full_name() + " has " + std::to_string(b.axes.size()) + " axes");
  std::size_t pos = 0;
  for (std::size_t i = 0; i < b.axes.size(); ++i) {
    if (p.index[i] >= b.axes[i].values.size())
      throw AsvError("point '" + p.name + "' is outside the axis '" + b.axes[i].name + "' of " + b.full_name());
    pos = pos * b.axes[i].values.size() + p.index[i];
  }
  return pos;
}

bool is_hex(const std::string& s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

json string_map(const std::map<std::string, std::string>& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

}  // namespace

std::vector<double> asv_samples_column(const std::vector<double>& samples) {
  if (samples.size() <= kAsvMaxSamples) return samples;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  // The same interpolation as the stats (core/stats.hpp), so that the subset holds exactly the
  // stored median (kept[50]) and kept[25] and kept[75] the stored quartiles.
  std::vector<double> kept;
  kept.reserve(kAsvMaxSamples);
  for (std::size_t i = 0; i < kAsvMaxSamples; ++i)
    kept.push_back(quantile_sorted(sorted, static_cast<double>(i) / static_cast<double>(kAsvMaxSamples - 1)));
  return kept;
}

std::string asv_time_name(const BenchmarkInfo& b) { return b.full_name(); }

std::string asv_track_name(const BenchmarkInfo& b, const std::string& track) {
  return b.full_name() + "." + track;
}

void write_asv(const fs::path& results_dir, const AsvRun& run, const std::vector<BenchmarkInfo>& benchmarks,
               const std::vector<PointResult>& points) {
  // Check everything that can be checked before touching the disk.
  std::string machine, env;
  try {
    machine = checked_name("machine", run.machine);
    env = checked_name("environment", run.env_name);
  } catch (const std::invalid_argument& e) {
    throw AsvError(e.what());
  }
  if (run.commit_hash.size() != 40 || !is_hex(run.commit_hash))
    throw AsvError("commit hash '" + run.commit_hash +
                   "' is not a full 40-digit lower-case hex git hash (asv publish looks it up in git)");
  std::map<std::string, const BenchmarkInfo*> by_name;
  for (const auto& b : benchmarks) {
    if (!std::isfinite(b.timeout_seconds))
      throw AsvError(b.full_name() + " has a timeout that is not a finite number");
    if (const std::string problem = asv_name_length_problem(b.program, b.name); !problem.empty())
      throw AsvError(problem + ". Nothing was written.");
    by_name[b.full_name()] = &b;
  }
  std::map<std::string, std::vector<const PointResult*>> points_of;
  for (const auto& p : points) {
    std::string name = p.program + "." + p.benchmark;
    auto it = by_name.find(name);
    if (it == by_name.end())
      throw AsvError("point '" + p.name + "' belongs to " + name + ", which is not among the benchmarks given");
    flat_position(*it->second, p);  // throws on a point that does not fit its benchmark
    points_of[name].push_back(&p);
  }

  const fs::path machine_dir = results_dir / machine;
  const fs::path benchmarks_path = results_dir / "benchmarks.json";
  const fs::path machine_path = machine_dir / "machine.json";
  const fs::path results_path = machine_dir / asv_results_file_name(run.commit_hash, env);
  std::error_code ec;
  fs::create_directories(machine_dir, ec);
  if (ec) throw AsvError("cannot create " + machine_dir.string() + ": " + ec.message());

  std::optional<FolderLock> lock;
  as_asv_error([&] { lock.emplace(results_dir); });

  json bench_doc = read_existing(benchmarks_path, kAsvBenchmarksVersion, false).value_or(json::object());
  json machine_doc = read_existing(machine_path, kAsvMachineVersion, false).value_or(json::object());
  json results_doc = read_existing(results_path, kAsvResultsVersion, true).value_or(json::object());

  if (results_doc.contains("commit_hash") && results_doc["commit_hash"] != json(run.commit_hash))
    throw AsvError(results_path.string() + " holds results of commit " + json_text(results_doc["commit_hash"]) +
                   ", not " + run.commit_hash + "; move it away. Nothing was written.");
  if (results_doc.contains("env_name") && results_doc["env_name"] != json(env))
    throw AsvError(results_path.string() + " holds results of environment " + json_text(results_doc["env_name"]) +
                   ", not " + env + "; move it away. Nothing was written.");
  if (results_doc.contains("results") && !results_doc["results"].is_object())
    throw AsvError(results_path.string() + ": \"results\" is not an object. Nothing was written.");

  // machine.json: this run's facts over whatever was recorded before (§3), except asv's own machine
  // facts, which keep the values already recorded: asv writes them otherwise than pitot (ram
  // "25275973632", not "24GB"), and the recorded values are what earlier results carry as params,
  // asv's among them, so that a history asv started goes on in the same graphs.
  std::map<std::string, std::string> facts = run.machine_facts;
  for (const char* key : {"arch", "cpu", "num_cpu", "os", "ram"})
    if (machine_doc.contains(key) && machine_doc[key].is_string()) facts[key] = machine_doc[key].get<std::string>();
  for (const auto& [k, v] : facts) machine_doc[k] = v;
  machine_doc["machine"] = machine;
  machine_doc["version"] = kAsvMachineVersion;

  std::vector<std::string> old_columns = kAsvResultColumns;
  if (results_doc.contains("result_columns") && results_doc["result_columns"].is_array())
    old_columns = results_doc["result_columns"].get<std::vector<std::string>>();
  json old_results = results_doc.value("results", json::object());
  json new_results = json::object();
  // Rows of benchmarks not in this run keep their data, rewritten into this column order.
  for (auto it = old_results.begin(); it != old_results.end(); ++it)
    new_results[it.key()] = asv_row(asv_row_columns(it.value(), old_columns));

  json process_doc = results_doc.contains(kAsvProcessMediansKey) && results_doc[kAsvProcessMediansKey].is_object()
                         ? results_doc[kAsvProcessMediansKey]
                         : json::object();
  for (const auto& b : benchmarks) {
    const std::string name = asv_time_name(b);
    const Params params = asv_params(b);
    const auto& run_points = points_of[name];

    json time_entry = {{"name", name},
                       {"type", b.type},
                       {"unit", b.unit},
                       {"params", params_json(params)},
                       {"param_names", param_names(b)},
                       {"version", b.version},
                       {"code", b.code},
                       {"timeout", b.timeout_seconds}};
    const bool timed = b.type == "time";
    if (timed) {  // only `asv run` reads these; pitot's own engine decides the sampling
      time_entry["number"] = 0;
      time_entry["repeat"] = 0;
      time_entry["min_run_count"] = 2;
      time_entry["rounds"] = 1;
      time_entry["sample_time"] = 0.01;
      time_entry["warmup_time"] = -1;
    }
    bench_doc[name] = time_entry;

    // Track rows: those measured now plus those already recorded for this benchmark.
    std::map<std::string, std::string> tracks;  // name -> unit
    for (const auto* p : run_points)
      for (const auto& t : p->tracks) tracks[t.name] = t.unit;
    const std::string prefix = name + ".";
    for (auto it = old_results.begin(); it != old_results.end(); ++it) {
      const std::string& key = it.key();
      if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
          key.find('.', prefix.size()) == std::string::npos && !tracks.count(key.substr(prefix.size()))) {
        std::string track = key.substr(prefix.size());
        std::string unit = default_track_unit(track);
        if (bench_doc.contains(key) && bench_doc[key].is_object() && bench_doc[key].contains("unit") &&
            bench_doc[key]["unit"].is_string())
          unit = bench_doc[key]["unit"].get<std::string>();
        tracks[track] = unit;
      }
    }

    auto row_for = [&](const std::string& key) {
      const json* old = old_results.contains(key) ? &old_results[key] : nullptr;
      return start_row(params, b.version, old, old_columns);
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
      if (p->status == PointStatus::Ok && p->process_medians.size() >= 2) process_doc[key] = p->process_medians;
      else process_doc.erase(key);
    }
    if (!run_points.empty()) {
      time_row.started_at = started;
      time_row.duration = duration;
    }
    new_results[name] = row_json(time_row);

    for (const auto& [track, unit] : tracks) {
      const std::string key = asv_track_name(b, track);
      bench_doc[key] = {{"name", key},
                        {"type", "track"},
                        {"unit", unit},
                        {"params", params_json(params)},
                        {"param_names", param_names(b)},
                        {"version", b.version},
                        {"code", b.code},
                        {"timeout", b.timeout_seconds}};
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
      new_results[key] = row_json(row);
    }
  }
  bench_doc["version"] = kAsvBenchmarksVersion;

  // Results params: machine facts and requirements, one graph line per distinct set (§5).
  // python_version only names the env (host/machine.hpp), and asv writes the interpreter as
  // `python` beside the requirements, not among them.
  std::map<std::string, std::string> params = facts, requirements = run.requirements;
  requirements.erase("python_version");
  for (const auto& [k, v] : requirements) params[k] = v;
  params["machine"] = machine;

  results_doc["commit_hash"] = run.commit_hash;
  results_doc["env_name"] = env;
  results_doc["date"] = run.commit_date_ms;
  results_doc["params"] = string_map(params);
  if (requirements.count("python")) results_doc["python"] = requirements["python"];
  if (!results_doc.contains("python") || !results_doc["python"].is_string()) results_doc["python"] = "";
  requirements.erase("python");
  results_doc["requirements"] = string_map(requirements);
  if (!results_doc.contains("env_vars") || !results_doc["env_vars"].is_object())
    results_doc["env_vars"] = json::object();
  results_doc["result_columns"] = kAsvResultColumns;
  results_doc["results"] = new_results;
  if (!results_doc.contains("durations") || !results_doc["durations"].is_object())
    results_doc["durations"] = json::object();
  results_doc["version"] = kAsvResultsVersion;
  if (process_doc.empty()) results_doc.erase(kAsvProcessMediansKey);
  else results_doc[kAsvProcessMediansKey] = process_doc;

  as_asv_error([&] {
    replace_files({{benchmarks_path, asv_file_text(bench_doc)},
                   {machine_path, asv_file_text(machine_doc)},
                   {results_path, asv_results_file_text(results_doc)}});
  });
}

}  // namespace pitot

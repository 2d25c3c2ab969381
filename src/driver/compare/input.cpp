#include "driver/compare/input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "core/rethrow.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "driver/common/files.hpp"
#include "asv/database.hpp"
#include "asv/results.hpp"
#include "host/machine.hpp"

namespace pitot::driver::compare {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string read_text(const fs::path& file, const std::string& what) { return read_file(file, what); }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

void check_unique_keys(const ResultSet& set) {
  std::set<std::string> seen;
  for (const auto& p : set.points)
    if (!seen.insert(p.key).second)
      throw InputError(fmt::format("{}: point {} appears twice; compare one run against one run", set.label, p.display));
}

// A results file, loaded by the asv module (asv/database.hpp); its refusal is bad input.
json load_results_file(const fs::path& file) {
  return rethrow_as<AsvError, InputError>([&] { return load_asv_file(file, AsvFile::Results); });
}

double date_of_file(const fs::path& file) {
  try {
    json j = load_results_file(file);
    return j.contains("date") && j["date"].is_number() ? j["date"].get<double>() : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// Parameter names from a pitot point name, "saxpy[a=0.5, n=10]" -> {a, n} (protocol lines carry
// no axis list).
std::vector<std::string> names_from_point_name(const std::string& name, std::vector<std::string>* values = nullptr) {
  std::vector<std::string> out;
  auto open = name.find('[');
  if (open == std::string::npos || name.back() != ']') return out;
  const std::string inside = name.substr(open + 1, name.size() - open - 2);
  std::size_t pos = 0;
  while (pos < inside.size()) {
    auto eq = inside.find('=', pos);
    if (eq == std::string::npos) break;
    std::string n = inside.substr(pos, eq - pos);
    while (!n.empty() && n.front() == ' ') n.erase(n.begin());
    out.push_back(n);
    auto comma = inside.find(',', eq);
    if (values) values->push_back(inside.substr(eq + 1, comma == std::string::npos ? std::string::npos : comma - eq - 1));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

void set_key(PointData& p, const std::string& benchmark, std::vector<std::string> names,
             const std::vector<std::string>& reprs) {
  p.benchmark = benchmark;
  if (names.size() != reprs.size()) {
    names.clear();
    for (std::size_t a = 0; a < reprs.size(); ++a) names.push_back(fmt::format("p{}", a));
  }
  p.params.clear();
  for (std::size_t a = 0; a < reprs.size(); ++a) p.params.emplace_back(names[a], reprs[a]);
  p.key = asv_point_name(benchmark, reprs);
  std::vector<std::string> named;
  for (const auto& [n, r] : p.params) named.push_back(n + "=" + r);
  p.display = reprs.empty() ? benchmark : benchmark + "[" + join(named, ", ") + "]";
}

// A track's name as pitot writes it (core/engine.cpp, the GPU backends): the throughputs, the
// kernel clock's busy time, energy, and the card's state.
constexpr const char* kCardSmClock = "card_sm_clock_mhz";
constexpr const char* kCardTemperature = "card_temperature_c";
constexpr const char* kCardPower = "card_power_watts";

// The unit of a pitot track row when benchmarks.json does not say (a results file read alone).
std::optional<std::string> known_track_unit(const std::string& row) {
  static const std::vector<std::pair<std::string, std::string>> known = {
      {"items_per_second", "items/s"}, {"gbytes_per_second", "GB/s"}, {"tflops", "TFLOP/s"},
      {"percent_of_peak_bandwidth", "%"}, {"kernel_busy_seconds", "seconds"}, {"energy_joules_per_call", "J"},
      {"energy_watts", "W"}, {"gflop_per_joule", "GFLOP/J"}, {"gbytes_per_joule", "GB/J"},
      {kCardSmClock, "MHz"}, {kCardTemperature, "degC"}, {kCardPower, "W"}};
  for (const auto& [track, unit] : known)
    if (row.ends_with("." + track)) return unit;
  return std::nullopt;
}

// Sets one reading of the card's state from a track; false when `track` is not a state track.
bool set_state(CardState& card, const std::string& track, double value) {
  double* field = track == kCardSmClock ? &card.sm_clock_mhz : track == kCardTemperature ? &card.temperature_c
                                                           : track == kCardPower         ? &card.power_watts
                                                                                         : nullptr;
  if (!field) return false;
  if (std::isfinite(value)) *field = value;
  return true;
}

}  // namespace

bool CardState::any() const {
  return std::isfinite(sm_clock_mhz) || std::isfinite(mem_clock_mhz) || std::isfinite(temperature_c) ||
         std::isfinite(power_watts) || has_throttle;
}

bool is_state_track(const std::string& track) {
  return track == kCardSmClock || track == kCardTemperature || track == kCardPower;
}

std::string python_repr_of(const json& value) {
  if (value.is_string()) {
    std::string out = "'";
    for (char c : value.get<std::string>()) {
      if (c == '\\' || c == '\'') out += '\\';
      out += c;
    }
    return out + "'";
  }
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_number_float()) {
    std::string d = value.dump();
    // Python writes a float that holds an integer with ".0".
    if (d.find_first_of(".eEn") == std::string::npos) d += ".0";
    return d;
  }
  return value.dump();
}

json parse_python_json(const std::string& text, const std::string& what) {
  try {
    return pitot::parse_python_json(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw InputError(fmt::format("{} is not valid JSON: {}", what, e.what()));
  }
}

bool unit_higher_is_better(const std::string& unit) {
  const std::string u = ascii_lower(unit);
  return u.ends_with("/s") || u.ends_with("/sec") || u == "%" || u.find("per second") != std::string::npos ||
         u.find("per_second") != std::string::npos || u.find("flops") != std::string::npos;
}

ResultSet asv_results_from_json(const json& results, const json* benchmarks, const std::string& label) {
  ResultSet set;
  set.label = label;
  try {
    const AsvResults file = asv_results_rows(results);  // the rows, read by the asv module
    set.commit = ascii_lower(file.commit_hash);
    auto describe = [&](const std::string& name) -> const json* {
      if (benchmarks && benchmarks->is_object() && benchmarks->contains(name) && (*benchmarks)[name].is_object())
        return &(*benchmarks)[name];
      return nullptr;
    };
    auto unit_of = [&](const std::string& name) {
      const json* b = describe(name);
      if (b && b->contains("unit") && (*b)["unit"].is_string()) return (*b)["unit"].get<std::string>();
      // Without benchmarks.json: pitot's track names say their unit.
      if (auto known = known_track_unit(name)) return *known;
      return std::string("seconds");
    };
    auto type_of = [&](const std::string& name) {
      const json* b = describe(name);
      return b && b->contains("type") && (*b)["type"].is_string() ? (*b)["type"].get<std::string>() : std::string();
    };
    std::set<std::string> row_names;
    for (const auto& row : file.rows) {
      row_names.insert(row.name);
      std::vector<std::string> param_names;
      if (const json* b = describe(row.name); b && b->contains("param_names") && (*b)["param_names"].is_array())
        param_names = (*b)["param_names"].get<std::vector<std::string>>();
      if (param_names.size() != row.params.size()) param_names.clear();
      const std::string unit = unit_of(row.name);
      for (const auto& point : row.points) {
        PointData p;
        set_key(p, row.name, param_names, point.params);
        if (param_names.empty()) p.display = p.key;
        p.unit = unit;
        p.version = row.version;
        if (point.state == AsvPointState::Skipped) {
          p.state = PointState::Skipped;
          p.reason = "skipped (NaN result)";
        } else if (point.state == AsvPointState::Failed) {
          p.state = PointState::Failed;
          p.reason = "failed (null result)";
        } else {
          p.value = point.result;
          p.samples = point.samples;
          p.process_medians = point.process_medians;
          p.has_interval = point.has_interval;
          p.ci_lo = point.ci_lo;
          p.ci_hi = point.ci_hi;
        }
        set.points.push_back(std::move(p));
      }
    }
    // A track beside its time row (<row>.<track>, no samples) is compared through the time row:
    // a throughput is the same median turned around, and the kernel clock's busy time and energy
    // per call are single values that no verdict can rest on. A row in seconds is such a track
    // only when benchmarks.json calls it one, or (without it) by pitot's name for it: a time row
    // is never folded into another.
    for (auto& p : set.points) {
      const std::string& row = p.benchmark;
      auto dot = row.rfind('.');
      if (dot == std::string::npos || !p.samples.empty()) continue;
      const std::string parent = row.substr(0, dot);
      if (!row_names.contains(parent) || unit_of(parent) != "seconds") continue;
      const std::string type = type_of(row);
      if (p.unit != "seconds" || type == "track" || (type.empty() && known_track_unit(row))) p.derived = true;
    }
    // The card's state tracks (<row>.card_sm_clock_mhz, ...) go into their time point's CardState
    // and are no rows of their own, wherever they stand.
    std::map<std::string, PointData*> by_key;
    for (auto& p : set.points) by_key[p.key] = &p;
    for (auto& p : set.points) {
      const auto dot = p.benchmark.rfind('.');
      const std::string track = dot == std::string::npos ? "" : p.benchmark.substr(dot + 1);
      if (!is_state_track(track)) continue;
      std::vector<std::string> reprs;
      for (const auto& [name, repr] : p.params) reprs.push_back(repr);
      auto parent = by_key.find(asv_point_name(p.benchmark.substr(0, dot), reprs));
      if (parent != by_key.end() && p.state == PointState::Ok) set_state(parent->second->card, track, p.value);
      p.key.clear();  // marks it for removal below
    }
    std::erase_if(set.points, [](const PointData& p) { return p.key.empty(); });
  } catch (const AsvError& e) {
    throw InputError(fmt::format("{}: {}", label, e.what()));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not an asv results file of version 2 ({})", label, e.what()));
  }
  check_unique_keys(set);
  return set;
}

namespace {

// A backend_info entry as an object: as stored, or from the JSON text an asv row keeps it in
// (bounded, as every reader); null when that text is not JSON.
json embedded_json(const json& entry) {
  if (!entry.is_string()) return entry;
  try {
    return parse_json_bounded(entry.get<std::string>());
  } catch (const json::exception&) {
    return nullptr;
  }
}

// backend_info.kernel_clock.kernels of a pitot point (docs/cuda-backend.md, "The kernel clock"):
// seconds per launch of the timed work = mean seconds of one record x records per launch.
std::vector<std::pair<std::string, double>> kernel_times(const json& backend_info) {
  std::vector<std::pair<std::string, double>> out;
  const json* info = backend_info.is_object() ? &backend_info : nullptr;
  if (!info || !info->contains("kernel_clock")) return out;
  const json clock = embedded_json((*info)["kernel_clock"]);
  if (!clock.is_object() || !clock.contains("kernels") || !clock["kernels"].is_array()) return out;
  for (const auto& k : clock["kernels"]) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) continue;
    const double mean = k.value("mean_seconds", 0.0), per_launch = k.value("count_per_launch", 1.0);
    if (mean > 0 && per_launch > 0) out.emplace_back(k["name"].get<std::string>(), mean * per_launch);
  }
  return out;
}

// The card's state of a pitot point: its state tracks, then backend_info.card (an object, or the
// same as a JSON string) for what they leave out and for the clock (throttle) reasons.
CardState card_state(const std::vector<Track>& tracks, const json& backend_info) {
  CardState card;
  for (const auto& t : tracks) set_state(card, t.name, t.value);
  const json* info = backend_info.is_object() ? &backend_info : nullptr;
  if (!info || !info->contains("card")) return card;
  const json nvml = embedded_json((*info)["card"]);
  if (!nvml.is_object()) return card;
  // {"min": .., "median": .., "max": ..} of one reading
  auto statistic = [&](const char* reading, const char* which) {
    const json* r = nvml.contains(reading) && nvml[reading].is_object() ? &nvml[reading] : nullptr;
    return r && r->contains(which) && (*r)[which].is_number() ? (*r)[which].get<double>() : CardState::kNone;
  };
  auto fill = [](double& field, double value) {
    if (!std::isfinite(field) && std::isfinite(value)) field = value;
  };
  fill(card.sm_clock_mhz, statistic("sm_clock_mhz", "median"));
  fill(card.mem_clock_mhz, statistic("mem_clock_mhz", "median"));
  fill(card.temperature_c, statistic("temperature_c", "max"));
  fill(card.power_watts, statistic("power_watts", "median"));
  // The reasons NVML gave for holding the clocks down, as the GPU backend names them
  // (`clock_reasons`, src/card/watch.cpp), or as `throttle_reasons`.
  for (const char* key : {"clock_reasons", "throttle_reasons"})
    if (!card.has_throttle && nvml.contains(key) && nvml[key].is_array()) {
      card.has_throttle = true;
      for (const auto& r : nvml[key])
        if (r.is_string()) card.throttle_reasons.push_back(r.get<std::string>());
    }
  return card;
}

}  // namespace

ResultSet read_asv_results(const fs::path& file, const json* benchmarks) {
  const json j = load_results_file(file);
  const std::string hash = j.value("commit_hash", "");
  const std::string machine = j.contains("params") && j["params"].is_object() ? j["params"].value("machine", "") : "";
  std::string label = file.string();
  if (!hash.empty()) label = fmt::format("{} ({}, {})", hash.substr(0, 8), machine, j.value("env_name", ""));
  return asv_results_from_json(j, benchmarks, label);
}

namespace {

// What a hand-written or older line of pitot JSON may leave out, filled in so that the core's
// reader (core/result.hpp, the one reader of a point) takes it: the program from the object
// around it, the benchmark from the point's name, no position, no values (the name says them),
// status ok, and of the stats what compare does not read (stats without an interval are dropped:
// the samples give the value).
json completed_point(json p, const json* program) {
  if (!p.contains("program")) p["program"] = program ? program->value("program", "") : "";
  if (!p.contains("benchmark") && p.contains("name") && p["name"].is_string()) {
    const std::string name = p["name"].get<std::string>();
    p["benchmark"] = name.substr(0, name.find('['));
  }
  for (const char* key : {"index", "values"})
    if (!p.contains(key)) p[key] = json::array();
  if (!p.contains("id")) p["id"] = 0;
  if (!p.contains("status")) p["status"] = "ok";
  if (p.contains("stats") && p["stats"].is_object()) {
    json& st = p["stats"];
    if (!st.contains("ci99_lo") || !st.contains("ci99_hi")) {
      p.erase("stats");
      return p;
    }
    const std::size_t n = p.contains("samples") && p["samples"].is_array() ? p["samples"].size() : 0;
    if (!st.contains("n")) st["n"] = n;
    for (const char* key : {"median", "q25", "q75", "min", "max", "mean", "stdev"})
      if (!st.contains(key)) st[key] = kNaN;
  }
  return p;
}

// A benchmark entry likewise: its program from the object around it, no axes.
json completed_benchmark(json b, const json* program) {
  if (!b.contains("program")) b["program"] = program ? program->value("program", "") : "";
  if (!b.contains("axes")) b["axes"] = json::array();
  return b;
}

// A pitot point as compare's row: asv's key (the benchmark's own asv key, or program.benchmark,
// then each value's Python repr), its samples, process medians, stored interval, kernel times
// and the card's state.
PointData point_data(const PointResult& p, const BenchmarkInfo* b) {
  PointData d;
  const std::string internal = p.program.empty() ? p.benchmark : p.program + "." + p.benchmark;
  const std::string benchmark = b && !b->asv_key.empty() ? b->asv_key : internal;
  std::vector<std::string> names, reprs;
  for (std::size_t a = 0; a < p.values.size(); ++a) {
    if (b && a < b->axes.size()) names.push_back(b->axes[a].name);
    const auto* text = std::get_if<std::string>(&p.values[a]);
    reprs.push_back(b && b->repr_values && text ? *text : python_repr(p.values[a]));  // the reprs already
  }
  if (p.values.empty()) {
    // No values (a hand-written or old line): the point's name says them; numbers stay as
    // written, anything else is a string.
    std::vector<std::string> written;
    names = names_from_point_name(p.name, &written);
    for (const auto& w : written) {
      char* end = nullptr;
      std::strtod(w.c_str(), &end);
      reprs.push_back(!w.empty() && end == w.c_str() + w.size() ? w : python_repr_of(json(w)));
    }
  }
  if (names.size() != reprs.size()) names = names_from_point_name(p.name);
  set_key(d, benchmark, names, reprs);
  d.unit = p.unit;
  if (b) d.version = b->version;
  d.reason = p.reason;
  d.state = p.status == PointStatus::Failed ? PointState::Failed
            : p.status == PointStatus::Skipped ? PointState::Skipped
                                               : PointState::Ok;
  d.samples = p.samples;
  d.kernels = kernel_times(p.backend_info);
  d.card = card_state(p.tracks, p.backend_info);
  d.process_medians = p.process_medians;
  if (d.process_medians.empty() && p.sample_process.size() == d.samples.size() && !d.samples.empty()) {
    std::map<int, std::vector<double>> by_process;
    for (std::size_t i = 0; i < d.samples.size(); ++i) by_process[p.sample_process[i]].push_back(d.samples[i]);
    for (auto& [process, samples] : by_process) d.process_medians.push_back(median(samples));
  }
  if (d.process_medians.size() < 2) d.process_medians.clear();
  d.value = median(d.samples);
  if (p.stats) {
    if (std::isfinite(p.stats->median)) d.value = p.stats->median;
    d.has_interval = true;
    d.ci_lo = p.stats->ci99_lo;
    d.ci_hi = p.stats->ci99_hi;
  }
  return d;
}

}  // namespace

ResultSet pitot_result_set(const std::vector<BenchmarkInfo>& benchmarks, const std::vector<PointResult>& points,
                           const std::string& label) {
  ResultSet set;
  set.label = label;
  std::map<std::pair<std::string, std::string>, const BenchmarkInfo*> by_name;
  for (const auto& b : benchmarks) by_name[{b.program, b.name}] = &b;
  for (const auto& p : points) {
    const auto b = by_name.find({p.program, p.benchmark});
    set.points.push_back(point_data(p, b == by_name.end() ? nullptr : b->second));
  }
  check_unique_keys(set);
  return set;
}

ResultSet pitot_json_from_text(const std::string& text, const std::string& label) {
  std::vector<json> documents;
  try {
    documents.push_back(parse_python_json(text, label));
  } catch (const InputError&) {
    // The driver protocol's stream: one JSON object per line.
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        documents.push_back(parse_python_json(line, "line"));
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: line {} is not JSON ({}); expected pitot's --json output", label, number,
                                     e.what()));
      }
    }
  }
  std::vector<BenchmarkInfo> benchmarks;
  std::vector<PointResult> points;
  std::string commit;
  try {
    std::function<void(const json&)> visit = [&](const json& j) {
      if (j.is_array()) {
        for (const auto& x : j) visit(x);
      } else if (j.is_object() && j.contains("programs")) {
        visit(j["programs"]);
      } else if (j.is_object() && j.contains("points")) {
        if (commit.empty()) commit = ascii_lower(j.value("commit", ""));
        if (j.contains("benchmarks") && j["benchmarks"].is_array())
          for (const auto& b : j["benchmarks"]) benchmarks.push_back(benchmark_from_json(completed_benchmark(b, &j)));
        for (const auto& p : j["points"]) points.push_back(point_from_json(completed_point(p, &j)));
      } else if (j.is_object() && j.value("type", "") == "point") {
        points.push_back(point_from_json(completed_point(j, nullptr)));
      } else if (j.is_object() && j.value("type", "") == "done") {
      } else {
        throw InputError("neither pitot's --json output nor asv results (no \"points\" or \"result_columns\")");
      }
    };
    for (const auto& d : documents) visit(d);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", label, e.what()));
  } catch (const std::exception& e) {  // json's, and the core reader's refusals (an unknown status)
    throw InputError(fmt::format("{}: malformed pitot JSON ({})", label, e.what()));
  }
  try {
    ResultSet set = pitot_result_set(benchmarks, points, label);
    set.commit = commit;
    return set;
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", label, e.what()));
  }
}

ResultSet read_pitot_json(const fs::path& file) {
  return pitot_json_from_text(read_text(file, "pitot JSON file"), file.string());
}

std::optional<json> read_benchmarks_json(const fs::path& results_dir) {
  return rethrow_as<AsvError, InputError>([&] { return load_asv_file_if_any(results_dir / "benchmarks.json", AsvFile::Benchmarks); });
}

std::vector<AsvResultsFile> commit_results_files(const DatabaseQuery& query, const std::string& commit) {
  return rethrow_as<AsvError, InputError>([&] { return asv_commit_files(query, commit); });
}

fs::path find_results_file(const DatabaseQuery& query, const std::string& commit) {
  const std::vector<AsvResultsFile> found = commit_results_files(query, commit);
  if (found.size() > 1) {
    std::vector<std::string> envs;
    for (const auto& f : found) envs.push_back(f.env);
    throw InputError(fmt::format("commit '{}' has results for several environments ({}); pick one with --env",
                                 commit, join(envs, ", ")));
  }
  return found.front().path;
}

std::vector<EnvPair> pair_environments(const std::vector<AsvResultsFile>& base,
                                       const std::vector<AsvResultsFile>& head) {
  std::vector<EnvPair> pairs;
  std::vector<const AsvResultsFile*> base_left, head_left;
  for (const auto& b : base) {
    auto same = std::find_if(head.begin(), head.end(), [&](const AsvResultsFile& h) { return h.env == b.env; });
    if (same != head.end()) pairs.push_back({b, *same});
    else base_left.push_back(&b);
  }
  for (const auto& h : head)
    if (std::none_of(base.begin(), base.end(), [&](const AsvResultsFile& b) { return b.env == h.env; }))
      head_left.push_back(&h);
  // One env on each side left over: the same build under a new name (a compiler or CUDA update).
  if (base_left.size() == 1 && head_left.size() == 1) {
    pairs.push_back({*base_left.front(), *head_left.front()});
  } else if (!base_left.empty() && !head_left.empty()) {
    std::vector<std::string> b, h;
    for (const auto* f : base_left) b.push_back(f->env);
    for (const auto* f : head_left) h.push_back(f->env);
    throw InputError(fmt::format(
        "cannot tell which environments of base and head to compare: base has {} and head has {} with no "
        "counterpart of the same name; pick one with --env, or compare two results files",
        join(b, ", "), join(h, ", ")));
  }
  if (pairs.empty()) throw InputError("base and head have no environment in common: nothing to compare");
  return pairs;
}

fs::path side_results_file(const std::string& arg, const DatabaseQuery& query) {
  if (fs::exists(fs::path(arg))) return {};
  return find_results_file(query, arg);
}

void read_history(ResultSet& set, const fs::path& head_file, const json* benchmarks, int limit) {
  const fs::path dir = head_file.parent_path();
  const std::string stem = head_file.stem().string();
  const std::string env = stem.substr(stem.find('-') + 1);
  std::vector<std::pair<double, fs::path>> dated;
  for (const auto& f : asv_results_files(dir)) {
    if (f.env != env || fs::equivalent(f.path, head_file)) continue;
    const double date = date_of_file(f.path);
    if (date >= 0) dated.emplace_back(date, f.path);
  }
  std::sort(dated.begin(), dated.end());
  if (static_cast<int>(dated.size()) > limit) dated.erase(dated.begin(), dated.end() - limit);
  for (const auto& [date, file] : dated) {
    try {
      ResultSet past = read_asv_results(file, benchmarks);
      for (const auto& p : past.points)
        if (p.state == PointState::Ok && std::isfinite(p.value) && p.value > 0) set.history[p.key].push_back(p.value);
      ++set.history_files;
    } catch (const InputError&) {
      // A broken old file only loses its share of the history.
    }
  }
}

namespace {

// A side that holds no point (an empty file, `[]`, an object without points) is refused: a CI
// gate must not pass because the head run produced nothing.
ResultSet with_points(ResultSet set, const std::string& arg) {
  if (set.points.empty())
    throw InputError(fmt::format(
        "{} holds no results (no benchmark point in it): nothing to compare; was the run "
        "that should have written it interrupted or filtered to nothing?",
        arg));
  return set;
}

ResultSet load_side_any(const std::string& arg, const DatabaseQuery& query);

}  // namespace

std::optional<std::pair<ResultSet, ResultSet>> load_commits(const std::string& base, const std::string& head,
                                                            const DatabaseQuery& query, int history) {
  auto is_file_arg = [](const std::string& arg) {
    const fs::path path(arg);
    return fs::exists(path) || path.extension() == ".json" || path.extension() == ".jsonl";
  };
  if (is_file_arg(base) || is_file_arg(head)) return std::nullopt;
  std::vector<AsvResultsFile> base_files, head_files;
  try {
    base_files = commit_results_files(query, base);
  } catch (const InputError& e) {
    throw InputError(fmt::format("base: {}", e.what()));
  }
  try {
    head_files = commit_results_files(query, head);
  } catch (const InputError& e) {
    throw InputError(fmt::format("head: {}", e.what()));
  }
  const std::vector<EnvPair> pairs = pair_environments(base_files, head_files);
  const auto benchmarks = read_benchmarks_json(query.results_dir);
  const json* bench = benchmarks ? &*benchmarks : nullptr;
  ResultSet base_set, head_set;
  std::vector<std::string> base_envs, head_envs;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ResultSet b = read_asv_results(pairs[i].base.path, bench);
    ResultSet h = read_asv_results(pairs[i].head.path, bench);
    if (history > 0) read_history(h, pairs[i].head.path, bench, history);
    // Points of different envs never match each other: the pair's number goes into the key.
    const std::string prefix = pairs.size() == 1 ? "" : fmt::format("{}|", i);
    for (auto& p : b.points) p.key = prefix + p.key;
    for (auto& p : h.points) p.key = prefix + p.key;
    for (auto& [key, runs] : h.history) head_set.history[prefix + key] = std::move(runs);
    head_set.history_files += h.history_files;
    base_set.points.insert(base_set.points.end(), b.points.begin(), b.points.end());
    head_set.points.insert(head_set.points.end(), h.points.begin(), h.points.end());
    base_set.commit = b.commit;
    head_set.commit = h.commit;
    base_set.label = b.label;
    head_set.label = h.label;
    base_envs.push_back(pairs[i].base.env);
    head_envs.push_back(pairs[i].head.env);
    head_set.environments.push_back(pairs[i].base.env == pairs[i].head.env
                                        ? pairs[i].head.env
                                        : pairs[i].base.env + " -> " + pairs[i].head.env);
  }
  // A CUDA run writes a benchmark's points timed by the kernel clock to `<env>-kclock` and the
  // others to `<env>`, and each env's row holds every point of the benchmark: those timed in the
  // other env are NaN there (not run). A point with no result on either side of one env pair, but
  // a result in another pair, was measured there: it is no point of this pair at all, not a
  // point "skipped in both". Where one side measured it in another env (its clock changed), the
  // reason of its NaN says where it went.
  if (pairs.size() > 1) {
    auto bare = [](const std::string& key) { return key.substr(key.find('|') + 1); };
    auto pair_of = [](const std::string& key) { return std::stoul(key.substr(0, key.find('|'))); };
    // bare key -> the pairs where each side holds a result (ok or failed)
    std::map<std::string, std::set<std::size_t>> base_has, head_has;
    for (const auto& p : base_set.points)
      if (p.state != PointState::Skipped) base_has[bare(p.key)].insert(pair_of(p.key));
    for (const auto& p : head_set.points)
      if (p.state != PointState::Skipped) head_has[bare(p.key)].insert(pair_of(p.key));
    std::map<std::string, PointState> head_state;
    for (const auto& p : head_set.points) head_state[p.key] = p.state;
    std::set<std::string> elsewhere;  // prefixed keys skipped in both sides of their pair, measured in another
    for (const auto& p : base_set.points) {
      if (p.state != PointState::Skipped) continue;
      auto h = head_state.find(p.key);
      if (h == head_state.end() || h->second != PointState::Skipped) continue;
      const std::string key = bare(p.key);
      if (base_has.count(key) || head_has.count(key)) elsewhere.insert(p.key);
    }
    for (ResultSet* set : {&base_set, &head_set})
      std::erase_if(set->points, [&](const PointData& p) { return elsewhere.count(p.key) > 0; });
    auto note_moved = [&](ResultSet& set, const std::map<std::string, std::set<std::size_t>>& has, bool is_base) {
      for (auto& p : set.points) {
        if (p.state != PointState::Skipped) continue;
        auto where = has.find(bare(p.key));
        if (where == has.end()) continue;
        std::vector<std::string> envs;
        for (std::size_t i : where->second)
          if (i != pair_of(p.key)) envs.push_back(is_base ? pairs[i].base.env : pairs[i].head.env);
        if (!envs.empty()) p.reason = "measured in env " + join(envs, ", ") + " instead";
      }
    };
    note_moved(base_set, base_has, true);
    note_moved(head_set, head_has, false);
  }
  // A name shown in two envs (one program built twice) says which env it is.
  for (ResultSet* set : {&base_set, &head_set}) {
    std::map<std::string, int> shown;
    for (const auto& p : set->points) ++shown[p.display];
    for (auto& p : set->points)
      if (shown[p.display] > 1) {
        const std::size_t i = pairs.size() == 1 ? 0 : std::stoul(p.key.substr(0, p.key.find('|')));
        p.display += " [" + (set == &base_set ? pairs[i].base.env : pairs[i].head.env) + "]";
      }
  }
  // Envs on one side only hold no comparable point: named, so nobody wonders where they went.
  for (const auto* side : {&base_files, &head_files})
    for (const auto& f : *side)
      if (std::none_of(pairs.begin(), pairs.end(), [&](const EnvPair& p) { return p.base.env == f.env || p.head.env == f.env; }))
        head_set.environments.push_back(f.env + (side == &base_files ? " (base only, not compared)" : " (head only, not compared)"));
  const std::string machine = pairs.front().head.path.parent_path().filename().string();
  if (pairs.size() > 1) {
    base_set.label = fmt::format("{} ({}, {})", pairs.front().base.hash8, machine, join(base_envs, ", "));
    head_set.label = fmt::format("{} ({}, {})", pairs.front().head.hash8, machine, join(head_envs, ", "));
  }
  return std::make_pair(with_points(std::move(base_set), base), with_points(std::move(head_set), head));
}

ResultSet load_side(const std::string& arg, const DatabaseQuery& query) {
  return with_points(load_side_any(arg, query), arg);
}

std::pair<ResultSet, ResultSet> load_sides(const std::string& base, const std::string& head,
                                           const DatabaseQuery& query, int history) {
  if (auto commits = load_commits(base, head, query, history)) return std::move(*commits);
  std::pair<ResultSet, ResultSet> sides;
  try {
    sides.first = load_side(base, query);
  } catch (const InputError& e) {
    throw InputError(fmt::format("base: {}", e.what()));
  }
  try {
    sides.second = load_side(head, query);
    // A head commit's recent runs in the database give each point its noise floor.
    const fs::path head_file = side_results_file(head, query);
    if (!head_file.empty() && history > 0) {
      const auto benchmarks = read_benchmarks_json(query.results_dir);
      read_history(sides.second, head_file, benchmarks ? &*benchmarks : nullptr, history);
    }
  } catch (const InputError& e) {
    throw InputError(fmt::format("head: {}", e.what()));
  }
  return sides;
}

namespace {

ResultSet load_side_any(const std::string& arg, const DatabaseQuery& query) {
  const fs::path path(arg);
  if (fs::is_regular_file(path)) {
    const std::string text = read_text(path, "file");
    json j;
    try {
      j = parse_python_json(text, path.string());
    } catch (const InputError&) {
      return pitot_json_from_text(text, path.string());  // perhaps JSON lines
    }
    if (j.is_object() && j.contains("result_columns")) {
      // <results>/<machine>/<file>: benchmarks.json sits two levels up.
      auto benchmarks = read_benchmarks_json(fs::absolute(path).parent_path().parent_path());
      return read_asv_results(path, benchmarks ? &*benchmarks : nullptr);
    }
    return pitot_json_from_text(text, path.string());
  }
  if (fs::exists(path)) throw InputError(fmt::format("{} is not a file", arg));
  if (path.extension() == ".json" || path.extension() == ".jsonl")
    throw InputError(fmt::format("file {} not found", arg));
  const fs::path file = find_results_file(query, arg);
  auto benchmarks = read_benchmarks_json(query.results_dir);
  ResultSet set = read_asv_results(file, benchmarks ? &*benchmarks : nullptr);
  return set;
}

}  // namespace

}  // namespace pitot::driver::compare

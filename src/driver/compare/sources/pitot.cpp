#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "asv/results.hpp"
#include "core/bounded_json.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "driver/common/files.hpp"
#include "driver/compare/sources.hpp"
#include "driver/compare/sources/rows.hpp"

namespace pitot::driver::compare {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rows;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

// What a hand-written or older line of pitot JSON may leave out, filled in so that the core's
// reader (core/result.hpp, the one reader of a point) takes it: the program from the object
// around it, the benchmark from the point's name, no position, no values (the name says them),
// status ok, and of the stats what compare does not read (stats without an interval are dropped:
// the samples give the value).
json completed_point(json p, const json* program) {
  if (!p.contains("program")) p["program"] = program ? program->value("program", "") : "";
  if (!p.contains("benchmark") && p.contains("name") && p["name"].is_string()) {
    const std::string name = p["name"].get<std::string>();
    p["benchmark"] = split_point_name(name).benchmark;
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
// A point's row name and each value's repr, with the parameter names where known.
struct KeyParts {
  std::string benchmark;
  std::vector<std::string> names, reprs;
};

KeyParts key_parts(const PointResult& p, const BenchmarkInfo* b) {
  const std::string benchmark = asv_row_name(p.program, p.benchmark, b ? b->asv_key : "");
  std::vector<std::string> names, reprs;
  for (std::size_t a = 0; a < p.values.size(); ++a) {
    if (b && a < b->axes.size()) names.push_back(b->axes[a].name);
    const auto* text = std::get_if<std::string>(&p.values[a]);
    reprs.push_back(b && b->repr_values && text ? *text : python_repr(p.values[a]));  // the reprs already
  }
  if (p.values.empty()) {
    // No values (a hand-written or old line): the point's name says them; numbers stay as
    // written, anything else is a string.
    const PointNameParts written = split_point_name(p.name);
    names = written.axes;
    for (const auto& w : written.values) {
      char* end = nullptr;
      std::strtod(w.c_str(), &end);
      reprs.push_back(!w.empty() && end == w.c_str() + w.size() ? w : python_repr_of(json(w)));
    }
  }
  if (names.size() != reprs.size()) names = split_point_name(p.name).axes;
  return {benchmark, names, reprs};
}

// The median of `values` per process, in process order (`process[i]` is value i's process).
std::vector<double> per_process_medians(const std::vector<double>& values, const std::vector<int>& process) {
  std::map<int, std::vector<double>> by_process;
  for (std::size_t i = 0; i < values.size(); ++i) by_process[process[i]].push_back(values[i]);
  std::vector<double> out;
  for (auto& [k, v] : by_process) out.push_back(median(v));
  return out;
}

// samples_per_clock, process_per_clock and process_clocks (points.hpp), when every sample has its
// clock: a sample that lasted t at a clock ratio r would have lasted t * r at the nominal clock.
void per_clock(PointData& d, const PointResult& p) {
  if (d.samples.empty() || p.clock_ratios.size() != d.samples.size()) return;
  if (!std::all_of(p.clock_ratios.begin(), p.clock_ratios.end(), [](double r) { return std::isfinite(r) && r > 0; }))
    return;
  for (std::size_t i = 0; i < d.samples.size(); ++i) d.samples_per_clock.push_back(d.samples[i] * p.clock_ratios[i]);
  // One process: its samples alone, as process_medians.
  if (d.process_medians.empty() || p.sample_process.size() != d.samples.size()) return;
  d.process_per_clock = per_process_medians(d.samples_per_clock, p.sample_process);
  d.process_clocks = per_process_medians(p.clock_ratios, p.sample_process);
  std::map<int, std::vector<std::pair<double, double>>> by_process;  // log time and log clock
  for (std::size_t i = 0; i < d.samples.size(); ++i)
    by_process[p.sample_process[i]].emplace_back(std::log(d.samples[i]), std::log(p.clock_ratios[i]));
  PointData::ClockSums s;
  for (const auto& [process, v] : by_process) {
    double mt = 0, mc = 0;
    for (const auto& [t, c] : v) {
      mt += t;
      mc += c;
    }
    mt /= static_cast<double>(v.size());
    mc /= static_cast<double>(v.size());
    for (const auto& [t, c] : v) {
      s.tt += (t - mt) * (t - mt);
      s.tc += (t - mt) * (c - mc);
      s.cc += (c - mc) * (c - mc);
    }
    s.df += static_cast<int>(v.size()) - 1;
  }
  // A time or clock of 0 has no log: no own fit then (the benchmark's elasticity stands).
  if (std::isfinite(s.tt) && std::isfinite(s.tc) && std::isfinite(s.cc)) d.within_clock = s;
}

PointData point_data(const PointResult& p, const BenchmarkInfo* b) {
  PointData d;
  KeyParts key = key_parts(p, b);
  set_key(d, key.benchmark, std::move(key.names), key.reprs);
  d.unit = p.unit;
  if (b) d.version = b->version;
  d.reason = p.reason;
  d.state = p.status == PointStatus::Failed ? PointState::Failed
            : p.status == PointStatus::Skipped ? PointState::Skipped
                                               : PointState::Ok;
  d.samples = p.samples;
  d.kernels = kernel_times(p.backend_info);
  d.card = card_state(p.tracks, p.backend_info);
  if (const auto ranks = p.backend_info.find("ranks"); ranks != p.backend_info.end() && ranks->is_object())
    if (const auto n = ranks->find("world_size"); n != ranks->end() && n->is_number_integer()) d.world_size = n->get<int>();
  d.process_medians = p.process_medians;
  if (d.process_medians.empty() && p.sample_process.size() == d.samples.size() && !d.samples.empty())
    d.process_medians = per_process_medians(d.samples, p.sample_process);
  if (d.process_medians.size() < 2) d.process_medians.clear();
  per_clock(d, p);
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

std::string point_key(const BenchmarkInfo& benchmark, const std::vector<AxisValue>& values) {
  PointResult point;
  point.program = benchmark.program;
  point.benchmark = benchmark.name;
  point.values = values;
  const KeyParts key = key_parts(point, &benchmark);
  return asv_point_name(key.benchmark, key.reprs);
}

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
  return pitot_json_from_text(read_file(file, "pitot JSON file"), file.string());
}

}  // namespace pitot::driver::compare

#include "core/result.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <limits>
#include <set>

#include "core/tracks.hpp"

namespace pitot {

using nlohmann::json;

std::size_t BenchmarkInfo::point_count() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

const char* status_name(PointStatus s) {
  switch (s) {
    case PointStatus::Ok: return "ok";
    case PointStatus::Failed: return "failed";
    case PointStatus::Skipped: return "skipped";
  }
  return "failed";
}

PointStatus status_from_name(const std::string& s) {
  if (s == "ok") return PointStatus::Ok;
  if (s == "skipped") return PointStatus::Skipped;
  if (s == "failed") return PointStatus::Failed;
  throw std::invalid_argument("unknown point status '" + s + "'");
}

namespace {

json value_json(const AxisValue& v) {
  return std::visit([](const auto& x) { return json(x); }, v);
}

AxisValue value_from_json(const json& j, AxisKind kind) {
  switch (kind) {
    case AxisKind::Int:
    case AxisKind::Pow2: return j.get<std::int64_t>();
    case AxisKind::Float: return j.get<double>();
    case AxisKind::String: return j.get<std::string>();
  }
  return j.get<std::int64_t>();
}

AxisKind kind_from_name(const std::string& s) {
  if (s == "int") return AxisKind::Int;
  if (s == "float") return AxisKind::Float;
  if (s == "string") return AxisKind::String;
  if (s == "pow2") return AxisKind::Pow2;
  throw std::invalid_argument("unknown axis kind '" + s + "'");
}

// JSON has no infinity: an open interval end is written as null and read back as ±inf.
json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }
double or_inf(const json& j, double inf) { return j.is_null() ? inf : j.get<double>(); }

}  // namespace

json to_json(const Axis& axis) {
  json values = json::array(), reprs = json::array();
  for (const auto& v : axis.values) {
    values.push_back(value_json(v));
    reprs.push_back(python_repr(v));
  }
  return {{"name", axis.name}, {"kind", axis_kind_name(axis.kind)}, {"values", values}, {"reprs", reprs}};
}

Axis axis_from_json(const json& j) {
  Axis a;
  a.name = j.at("name").get<std::string>();
  a.kind = kind_from_name(j.at("kind").get<std::string>());
  for (const auto& v : j.at("values")) a.values.push_back(value_from_json(v, a.kind));
  return a;
}

json to_json(const BenchmarkInfo& info) {
  json axes = json::array();
  for (const auto& a : info.axes) axes.push_back(to_json(a));
  if (info.repr_values)  // the values are the reprs already
    for (auto& a : axes) a["reprs"] = a["values"];
  json j = {{"program", info.program}, {"name", info.name}, {"axes", axes}, {"version", info.version}, {"timeout", info.timeout_seconds}, {"code", info.code}, {"points", info.point_count()}, {"type", info.type}, {"unit", info.unit}, {"repr_values", info.repr_values}};
  if (!info.asv_key.empty()) j["asv_key"] = info.asv_key;  // only where set: older readers see nothing new
  if (info.multi_rank) j["multi_rank"] = true;
  return j;
}

BenchmarkInfo benchmark_from_json(const json& j) {
  BenchmarkInfo b;
  b.program = j.at("program").get<std::string>();
  b.name = j.at("name").get<std::string>();
  for (const auto& a : j.at("axes")) b.axes.push_back(axis_from_json(a));
  b.version = j.value("version", "1");
  b.timeout_seconds = j.value("timeout", 60.0);
  b.code = j.value("code", "");
  b.type = j.value("type", "time");
  b.unit = j.value("unit", "seconds");
  b.repr_values = j.value("repr_values", false);
  b.asv_key = j.value("asv_key", "");
  b.multi_rank = j.value("multi_rank", false);
  return b;
}

json to_json(const PointResult& p) {
  json values = json::array();
  for (const auto& v : p.values) values.push_back(value_json(v));
  json j = {{"type", "point"},
            {"program", p.program},
            {"benchmark", p.benchmark},
            {"id", p.id},
            {"name", p.name},
            {"index", p.index},
            {"values", values},
            {"status", status_name(p.status)},
            {"reason", p.reason},
            {"backend", p.backend},
            {"unit", p.unit},
            {"number", p.number},
            {"samples", p.samples},
            {"discarded_samples", p.discarded_samples},
            {"stop_reason", p.stop_reason},
            {"counters", {{"items", p.items}, {"bytes", p.bytes}, {"flops", p.flops}}},
            {"started_at", p.started_at_ms},
            {"duration", p.duration_seconds},
            {"backend_info", p.backend_info}};
  if (!p.clock_ratios.empty()) j["clock_ratios"] = p.clock_ratios;
  if (!p.process_medians.empty()) {
    j["process_medians"] = p.process_medians;
    j["sample_process"] = p.sample_process;
  }
  if (p.stats) {
    const Stats& s = *p.stats;
    j["stats"] = {{"n", s.n}, {"median", s.median}, {"q25", s.q25}, {"q75", s.q75}, {"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"stdev", s.stdev}, {"ci99_lo", finite_or_null(s.ci99_lo)}, {"ci99_hi", finite_or_null(s.ci99_hi)}};
  }
  json tracks = json::array();
  for (const auto& t : p.tracks) tracks.push_back({{"name", t.name}, {"unit", t.unit}, {"value", t.value}});
  j["tracks"] = tracks;
  return j;
}

PointResult point_from_json(const json& j) {
  const double inf = std::numeric_limits<double>::infinity();
  PointResult p;
  p.program = j.at("program").get<std::string>();
  p.benchmark = j.at("benchmark").get<std::string>();
  p.id = j.at("id").get<int>();
  p.name = j.at("name").get<std::string>();
  p.index = j.at("index").get<std::vector<std::size_t>>();
  for (const auto& v : j.at("values")) {
    if (v.is_number_integer()) p.values.emplace_back(v.get<std::int64_t>());
    else if (v.is_number()) p.values.emplace_back(v.get<double>());
    else p.values.emplace_back(v.get<std::string>());
  }
  p.status = status_from_name(j.at("status").get<std::string>());
  p.reason = j.value("reason", "");
  p.backend = j.value("backend", "");
  p.unit = j.value("unit", "seconds");
  p.number = j.value("number", std::int64_t{1});
  p.samples = j.value("samples", std::vector<double>{});
  p.clock_ratios = j.value("clock_ratios", std::vector<double>{});
  p.discarded_samples = j.value("discarded_samples", 0);
  p.process_medians = j.value("process_medians", std::vector<double>{});
  p.sample_process = j.value("sample_process", std::vector<int>{});
  p.stop_reason = j.value("stop_reason", "");
  if (j.contains("counters")) {
    const auto& c = j.at("counters");
    p.items = c.value("items", 0.0);
    p.bytes = c.value("bytes", 0.0);
    p.flops = c.value("flops", 0.0);
  }
  p.started_at_ms = j.value("started_at", std::int64_t{0});
  p.duration_seconds = j.value("duration", 0.0);
  p.backend_info = j.value("backend_info", json::object());
  if (j.contains("stats") && !j.at("stats").is_null()) {
    const auto& s = j.at("stats");
    Stats st;
    st.n = s.at("n").get<int>();
    st.median = s.at("median").get<double>();
    st.q25 = s.at("q25").get<double>();
    st.q75 = s.at("q75").get<double>();
    st.min = s.at("min").get<double>();
    st.max = s.at("max").get<double>();
    st.mean = s.at("mean").get<double>();
    st.stdev = s.at("stdev").get<double>();
    st.ci99_lo = or_inf(s.at("ci99_lo"), -inf);
    st.ci99_hi = or_inf(s.at("ci99_hi"), inf);
    p.stats = st;
  }
  for (const auto& t : j.value("tracks", json::array()))
    p.tracks.push_back({t.at("name").get<std::string>(), t.at("unit").get<std::string>(), t.at("value").get<double>()});
  return p;
}

std::vector<Track> throughput_tracks(double items, double bytes, double flops, double seconds) {
  std::vector<Track> tracks;
  if (!(seconds > 0)) return tracks;
  if (items > 0) tracks.push_back(make_track(track::kItemsPerSecond, items / seconds));
  if (bytes > 0) tracks.push_back(make_track(track::kGbytesPerSecond, bytes / seconds / 1e9));
  if (flops > 0) tracks.push_back(make_track(track::kTflops, flops / seconds / 1e12));
  return tracks;
}

}  // namespace pitot

namespace pitot {

bool is_rate_track(const std::string& name) {
  const TrackKind* kind = track_kind(name);
  return kind && kind->rate;
}

Track make_track(std::string_view name, double value) {
  return {std::string(name), track_unit(name), value};
}

PointResult merge_processes(const std::vector<PointResult>& runs) {
  if (runs.empty()) throw std::invalid_argument("merge_processes: no runs");
  if (runs.size() == 1) return runs.front();
  PointResult merged = runs.front();
  // A failure in any process fails the point; a point every process skipped is simply skipped.
  auto in_process = [&](const PointResult& r) {
    PointResult out = r;
    out.reason = "in process " + std::to_string(&r - runs.data() + 1) + " of " + std::to_string(runs.size()) + ": " +
                 r.reason;
    return out;
  };
  for (const auto& r : runs)
    if (r.status == PointStatus::Failed) return in_process(r);
  const bool all_skipped =
      std::all_of(runs.begin(), runs.end(), [](const PointResult& r) { return r.status == PointStatus::Skipped; });
  if (all_skipped) return runs.front();
  for (const auto& r : runs)
    if (r.status != PointStatus::Ok) return in_process(r);
  merged.samples.clear();
  merged.clock_ratios.clear();
  merged.sample_process.clear();
  merged.process_medians.clear();
  merged.discarded_samples = 0;
  merged.duration_seconds = 0;
  bool clocks = true;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const PointResult& r = runs[k];
    merged.samples.insert(merged.samples.end(), r.samples.begin(), r.samples.end());
    merged.sample_process.insert(merged.sample_process.end(), r.samples.size(), static_cast<int>(k));
    clocks = clocks && r.clock_ratios.size() == r.samples.size();
    if (clocks) merged.clock_ratios.insert(merged.clock_ratios.end(), r.clock_ratios.begin(), r.clock_ratios.end());
    merged.process_medians.push_back(r.stats ? r.stats->median
                                             : (r.samples.empty() ? 0.0 : compute_stats(r.samples).median));
    merged.discarded_samples += r.discarded_samples;
    merged.duration_seconds += r.duration_seconds;
    if (r.started_at_ms != 0 && (merged.started_at_ms == 0 || r.started_at_ms < merged.started_at_ms))
      merged.started_at_ms = r.started_at_ms;
  }
  if (!clocks) merged.clock_ratios.clear();
  // The card's clock reasons (src/card) are what any process saw, not only the first.
  if (merged.backend_info.contains("card") && merged.backend_info["card"].is_object()) {
    std::set<std::string> reasons;
    for (const auto& r : runs) {
      const auto card = r.backend_info.find("card");
      if (card == r.backend_info.end() || !card->is_object()) continue;
      const auto it = card->find("clock_reasons");
      if (it != card->end() && it->is_array())
        for (const auto& reason : *it)
          if (reason.is_string()) reasons.insert(reason.get<std::string>());
    }
    merged.backend_info["card"]["clock_reasons"] = reasons;
  }
  if (!merged.samples.empty()) {
    merged.stats = compute_stats(merged.samples);
    // A rate of the median time (items/s, GB/s, TFLOP/s, % of a peak rate) follows the pooled
    // median; any other track (kernel busy time, the card's clock, temperature and power, energy)
    // is each process's own reading: the median of theirs.
    const auto& first = runs.front();
    for (auto& t : merged.tracks) {
      if (is_rate_track(t.name)) {
        if (first.stats && first.stats->median > 0 && merged.stats->median > 0)
          t.value *= first.stats->median / merged.stats->median;
        continue;
      }
      std::vector<double> values;
      for (const auto& r : runs)
        for (const auto& other : r.tracks)
          if (other.name == t.name) values.push_back(other.value);
      if (const double m = median(values); std::isfinite(m)) t.value = m;
    }
  }
  return merged;
}

}  // namespace pitot

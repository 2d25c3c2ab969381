// The rows write_asv rebuilds (asv/write_rows.hpp): params, cells, a row started from the one in
// the file and written back, and a point's samples column.
#include "asv/write_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "asv/write.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "core/tracks.hpp"

namespace pitot::asv_write {

using nlohmann::json;

namespace {

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

}  // namespace

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

std::string default_track_unit(const std::string& track) { return track_unit(track); }

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

}  // namespace pitot::asv_write

namespace pitot {

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

}  // namespace pitot

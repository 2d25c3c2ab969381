// Helpers shared by the asv writer tests and the end-to-end database writer.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/stats.hpp"

namespace pitot::testing {

inline BenchmarkInfo make_benchmark(const std::string& program, const std::string& name,
                                    std::vector<Axis> axes, const std::string& version = "1") {
  BenchmarkInfo b;
  b.program = program;
  b.name = name;
  b.axes = std::move(axes);
  b.version = version;
  b.timeout_seconds = 30;
  b.code = "// " + name;
  return b;
}

// Index of a flat position (last axis fastest).
inline std::vector<std::size_t> unflatten(const BenchmarkInfo& b, std::size_t pos) {
  std::vector<std::size_t> index(b.axes.size());
  for (std::size_t i = b.axes.size(); i-- > 0;) {
    index[i] = pos % b.axes[i].values.size();
    pos /= b.axes[i].values.size();
  }
  return index;
}

// A measured point at flat position `pos`: samples around `seconds`, n of them.
inline PointResult ok_point(const BenchmarkInfo& b, std::size_t pos, double seconds, int n,
                            double items = 0) {
  PointResult p;
  p.program = b.program;
  p.benchmark = b.name;
  p.id = static_cast<int>(pos);
  p.index = unflatten(b, pos);
  for (std::size_t i = 0; i < p.index.size(); ++i) p.values.push_back(b.axes[i].values[p.index[i]]);
  p.name = b.name + "[" + std::to_string(pos) + "]";
  p.status = PointStatus::Ok;
  p.backend = "cpu";
  p.number = 100;
  for (int i = 0; i < n; ++i) p.samples.push_back(seconds * (1.0 + 0.01 * ((i * 7) % 5)));
  p.stats = compute_stats(p.samples);
  p.items = items;
  if (items > 0) p.tracks = throughput_tracks(items, 0, 0, p.stats->median);
  p.started_at_ms = 1704157200000 + static_cast<std::int64_t>(pos) * 1000;
  p.duration_seconds = 0.25;
  return p;
}

inline PointResult other_point(const BenchmarkInfo& b, std::size_t pos, PointStatus status) {
  PointResult p = ok_point(b, pos, 1.0, 1);
  p.status = status;
  p.reason = status == PointStatus::Skipped ? "not applicable" : "boom";
  p.samples.clear();
  p.stats.reset();
  p.tracks.clear();
  return p;
}

}  // namespace pitot::testing

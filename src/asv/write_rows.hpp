// The rows write_asv rebuilds (asv/write.cpp), one at a time: a benchmark's params as asv names
// them, a point's cells (its time or track result, docs/asv-format.md §5), and a row started from
// the one already in the results file. Internal to the writer; a results file's columns and rows
// as every reader sees them are in asv/results.hpp.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/results.hpp"
#include "core/result.hpp"

namespace pitot::asv_write {

using Params = AsvParams;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// asv's params of a benchmark: the repr of each value (a Python asv benchmark's values are its
// reprs already), duplicates within an axis numbered "x (0)", "x (1)" as asv_runner does, so that
// every point has its own name.
Params asv_params(const BenchmarkInfo& b);
std::vector<std::string> param_names(const BenchmarkInfo& b);
nlohmann::json params_json(const Params& params);

// One point's entries in the per-point columns; a missing column is null.
using Cell = std::map<std::string, nlohmann::json>;

// A results row being rebuilt: per-point cells plus the whole-row columns.
struct Row {
  Params params;
  std::vector<Cell> cells;
  nlohmann::json version, started_at, duration;
};

// Start the new row of `params`. Points of the existing row whose parameter tuple is still
// there and whose version is the same are kept; the run then overwrites the points it measured.
Row start_row(const Params& params, const std::string& version, const nlohmann::json* old_row,
              const std::vector<std::string>& old_columns);
// The row as the results file holds it (asv_row); a point never run is NaN, not null.
nlohmann::json row_json(const Row& row);

// §5: a measured point fills all six stats, a skipped one is NaN, a failed one null throughout.
// A value that is not a time (asv's track, memory, peakmemory) is its result alone, as asv writes it.
Cell time_cell(const PointResult& p, bool timed);
// A point's cell in the row of one of its tracks (a throughput): its value, NaN when the point
// did not make it, null when the point failed.
Cell track_cell(const PointResult& p, const std::string& track);
// The unit of a track recorded before benchmarks.json said one: "items/s", "GB/s", "TFLOP/s".
std::string default_track_unit(const std::string& track);

// Position of a point in its benchmark's cartesian product, checked against the axes.
std::size_t flat_position(const BenchmarkInfo& b, const PointResult& p);

}  // namespace pitot::asv_write

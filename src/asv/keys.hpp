// asv's names for pitot's rows and points, built and taken apart here only (docs/asv-format.md §4
// and §5): a benchmark's time row `<program>.<name>` (or the asv key it set), each track's row
// `<row>.<track>`, and one point of a row `<row>(<repr>, <repr>)`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace pitot {

// The row of a benchmark's time (its full_name()) and of one of its tracks.
std::string asv_time_name(const BenchmarkInfo& b);
std::string asv_track_name(const BenchmarkInfo& b, const std::string& track);
// The row of a point read back without its BenchmarkInfo: `program.benchmark` (the benchmark
// alone without a program), or the asv key the benchmark set itself.
std::string asv_row_name(const std::string& program, const std::string& benchmark, const std::string& own_key = "");

// The program (or Python module) a row belongs to: its name up to the first '.'.
std::string asv_row_program(const std::string& row);

// asv's unrolled name of one point: `row(4096, 'bf16')`, or the row name without parameters.
std::string asv_point_name(const std::string& row, const std::vector<std::string>& reprs);

// A row named `<row>.<track>`: the row it belongs to and the track (the part after the last '.').
// nullopt for a name without a '.', or one ending in it.
struct AsvTrackKey {
  std::string row, track;
};
std::optional<AsvTrackKey> split_track_key(const std::string& name);

// A point name pitot gives (core's point_name: `saxpy[a=0.5,n=10]`) taken apart: the benchmark,
// and each axis's name and the value as written. A name without `[...]` is the benchmark alone.
struct PointNameParts {
  std::string benchmark;
  std::vector<std::string> axes, values;
};
PointNameParts split_point_name(const std::string& name);

}  // namespace pitot

// The data model every output shares: benchmark descriptions and finished points.
// Programs emit it as JSON (full output and the driver protocol); the driver reads it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <pitot/axis.hpp>
#include <pitot/detail/axis_repr.hpp>
#include "core/stats.hpp"

namespace pitot {

// A benchmark as outputs see it (no function pointer): enough to write benchmarks.json.
struct BenchmarkInfo {
  std::string program;  // executable name, e.g. bench_gemm
  std::string name;     // function name, e.g. gemm_bf16
  std::vector<Axis> axes;
  std::string version = "1";
  double timeout_seconds = 60.0;
  std::string code;
  std::string type = "time";     // asv's type of the value: time, track, memory, peakmemory
  std::string unit = "seconds";  // ... and its unit
  bool repr_values = false;      // the axes hold asv's reprs of the values (BenchmarkDef says why)
  std::string asv_key;           // set when the benchmark names its own asv key (BenchmarkDef says why)
  bool multi_rank = false;       // its points run across ranks (docs/ranks.md)
  std::size_t point_count() const;
  // The benchmark's asv key: <program>.<name>, or the key it set itself.
  std::string full_name() const { return asv_key.empty() ? program + "." + name : asv_key; }
};

// A derived throughput figure (items/s, GB/s, TFLOP/s, % of peak bandwidth).
struct Track {
  std::string name;  // suffix of the asv name: items_per_second, gbytes_per_second, tflops...
  std::string unit;  // items/s, GB/s, TFLOP/s, %
  double value = 0;
};

enum class PointStatus { Ok, Failed, Skipped };
const char* status_name(PointStatus s);
PointStatus status_from_name(const std::string& s);

struct PointResult {
  std::string program;
  std::string benchmark;
  int id = 0;                      // index of the point in the program's full point list
  std::vector<std::size_t> index;  // position along each axis
  std::string name;                // benchmark[a=1,b=x]
  std::vector<AxisValue> values;
  PointStatus status = PointStatus::Ok;
  std::string reason;                // why it failed or was skipped
  std::string backend;               // cpu, manual, value, cuda, hip
  std::string unit = "seconds";      // of the samples: the benchmark's unit
  std::int64_t number = 1;           // iterations per sample
  std::vector<double> samples;       // seconds per iteration, in measurement order
  std::vector<double> clock_ratios;  // per sample, when the backend measures clocks
  // With several processes (pitot run --processes K): the process (0..K-1) each sample came from,
  // and each process's median. Both empty for a single process.
  std::vector<int> sample_process;
  std::vector<double> process_medians;
  int discarded_samples = 0;  // taken while throttled, not in `samples`
  std::optional<Stats> stats;
  std::string stop_reason;                 // ci, time_limit, max_samples
  double items = 0, bytes = 0, flops = 0;  // per iteration
  std::vector<Track> tracks;
  std::int64_t started_at_ms = 0;  // unix ms
  double duration_seconds = 0;     // wall time of this point, warm-up included
  nlohmann::json backend_info = nlohmann::json::object();
};

// Parse/serialize. from_json throws nlohmann::json::exception on a malformed object.
nlohmann::json to_json(const Axis& axis);
Axis axis_from_json(const nlohmann::json& j);
nlohmann::json to_json(const BenchmarkInfo& info);
BenchmarkInfo benchmark_from_json(const nlohmann::json& j);
nlohmann::json to_json(const PointResult& point);
PointResult point_from_json(const nlohmann::json& j);

// Pools the runs of one point from several processes (in process order) into one result: the
// samples concatenated, the statistics and tracks recomputed from the pool, and which process each
// sample came from kept beside them (sample_process, process_medians). A point that failed or was
// skipped in any process is that, with the first such reason.
PointResult merge_processes(const std::vector<PointResult>& runs);
// Whether a track is a rate of the point's median time (items/s, GB/s, TFLOP/s, % of peak).
bool is_rate_track(const std::string& name);
// A track of core/tracks.hpp's table with its value, its unit from the table.
Track make_track(std::string_view name, double value);

// Tracks derived from the work counters and the median time.
std::vector<Track> throughput_tracks(double items, double bytes, double flops, double seconds);

}  // namespace pitot

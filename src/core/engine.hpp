// The measurement engine: plans points, interleaves them, samples until a stopping rule holds.
// It knows nothing of CUDA or files: backends give it samplers, outputs take its results.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <pitot/detail/registry.hpp>
#include "core/backend.hpp"
#include "core/result.hpp"

namespace pitot {

namespace ranks {
class Group;
}

struct RunConfig {
  double warmup_seconds = 0.02;     // untimed work before the first sample
  double min_sample_seconds = 0.0;  // a CPU sample loops until it lasts this long (0: backend default)
  int min_samples = 20;
  double min_seconds = 0.05;  // sampled time before the interval rule may stop a point
  double max_seconds = 2.0;   // the point's time limit for sampling
  int max_samples = 100000;
  double ci_target = 0.005;     // stop when the 99% interval of the median < this fraction of it
  double batch_seconds = 0.01;  // one turn of a point in the interleaved schedule
  int interleave = 8;           // points sampled round-robin at once; 1 turns interleaving off
  std::uint64_t seed = 1;       // seeds the shuffled order
  bool profile = false;         // run each point once inside its range (pitot profile)
  // A multi-rank world (src/program/ranked.cpp): its .multi_rank() points are timed across the
  // ranks (src/core/ranked.cpp). Null: one rank, as always.
  ranks::Group* group = nullptr;
  int local_rank = 0;  // this process's rank on its host (the GPU a multi-rank point takes)
};

// One selected point of the program, ready to run.
struct PlannedPoint {
  const BenchmarkDef* def = nullptr;
  int id = 0;
  std::vector<std::size_t> index;
  std::vector<AxisValue> values;
  std::string name;
};

// Every point of every registered benchmark, in cartesian order (last axis fastest).
std::vector<PlannedPoint> plan_points(const std::deque<BenchmarkDef>& defs);
std::string point_name(const BenchmarkDef& def, const std::vector<AxisValue>& values);

// Hooks a backend or the program can attach to every point (NVTX ranges, device selection).
struct PointHooks {
  std::function<void(const PlannedPoint&)> on_thread_start;  // in the point's own thread
  std::function<void(const PlannedPoint&)> on_point_begin;   // before warm-up
  std::function<void(const PlannedPoint&)> on_point_end;
  // In the point's thread when each turn of its sampling begins (the first right after warm-up)
  // and ends (--untrusted: the program tells the driver, which times the turns itself); the end
  // with the seconds of the harness's own work in the turn (Sampler::harness_seconds).
  std::function<void(const PlannedPoint&)> on_sampling_begin;
  std::function<void(const PlannedPoint&, double harness_seconds)> on_sampling_end;
};

using PointCallback = std::function<void(const PointResult&)>;

// Runs the points; calls `done` (on the engine's thread, in finishing order) for each.
// Benchmark exceptions fail the point, never the run. `device` goes to the device backend's exec
// of every point.
void run_points(const std::string& program, const std::vector<PlannedPoint>& points,
                const RunConfig& config, const PointCallback& done, const PointHooks& hooks = {},
                const DeviceOptions& device = {});

// The result of a point skipped without running (e.g. a GPU point on a machine without a GPU).
PointResult skipped_result(const std::string& program, const PlannedPoint& point, std::string reason);

// The stopping rule, exposed for tests: "" to go on, else the reason to stop.
std::string stop_reason(const std::vector<double>& samples, double sampled_seconds,
                        const RunConfig& config);

}  // namespace pitot

// What compare compares: the points of one side (ResultSet), whatever they were read from, and
// the key that matches a point between base and head.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace pitot::driver::compare {

enum class PointState { Ok, Failed, Skipped };

// The card's state while a point ran, from NVML readings (docs/compare.md, "Machine state"): the
// tracks card_sm_clock_mhz, card_temperature_c and card_power_watts beside a point (asv rows
// `<row>.<track>`, or a pitot point's `tracks`), and pitot JSON's backend_info.card. NaN where the
// side recorded none.
struct CardState {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double sm_clock_mhz = kNone;   // median SM clock over the point's readings
  double mem_clock_mhz = kNone;  // median memory clock (backend_info.card only)
  double temperature_c = kNone;  // highest temperature seen during the point
  double power_watts = kNone;    // median power draw
  bool has_throttle = false;     // backend_info.card listed its clock (throttle) reasons, perhaps none
  std::vector<std::string> throttle_reasons;
  bool any() const;
};

// The tracks that record the card's state rather than a performance figure: read into the point's
// CardState, never compared as rows of their own.
bool is_state_track(const std::string& track);

struct PointData {
  // What matches a point between base and head, the same for asv and pitot inputs: asv's unrolled
  // name, `bench_gemm.gemm_bf16(4096, 'bf16')` (the benchmark, then each value's Python repr).
  std::string key;
  std::string display;                                      // the name shown: bench_gemm.gemm_bf16[M=4096, dtype='bf16']
  std::string benchmark;                                    // bench_gemm.gemm_bf16 (the asv row name)
  std::vector<std::pair<std::string, std::string>> params;  // parameter name -> value repr, in axis order
  std::string unit = "seconds";
  std::string version;  // benchmark version; empty when unknown
  PointState state = PointState::Ok;
  std::string reason;                   // why it failed, when known
  double value = 0;                     // the median (time) or the tracked value
  std::vector<double> samples;          // pooled over processes
  std::vector<double> process_medians;  // one per process when the run kept them (pitot run --processes)
  // Each sample times the SM clock over it as a fraction of the nominal clock (the time it would
  // have taken at the nominal clock), and per process the median of those and of the clock; empty
  // unless every sample has a clock reading (GPU points, pitot JSON). pitot compare --per-clock.
  std::vector<double> samples_per_clock, process_per_clock, process_clocks;
  // How this point's time moved with the clock within its processes: sums over its samples of the
  // deviations of log time (t) and log clock (c) from their process's means, and their degrees of
  // freedom. --per-clock fits the point's own elasticity from them (comparison.cpp).
  struct ClockSums {
    double tt = 0, tc = 0, cc = 0;
    int df = 0;
  } within_clock;
  bool has_interval = false;
  double ci_lo = 0, ci_hi = 0;  // stored 99% interval of the median; may be infinite
  // A track beside a time point that is compared instead (a throughput, the kernel clock's busy
  // time, energy): it says nothing the time row does not, or nothing a verdict can use.
  bool derived = false;
  // The kernel clock's records of the point (pitot JSON only): each kernel's device time per launch
  // of the timed work, by name, so a changed point can say which kernel changed.
  std::vector<std::pair<std::string, double>> kernels;
  CardState card;  // the card's state while the point ran (GPU points with NVML)
  // The ranks a multi-rank point spanned (pitot JSON's backend_info.ranks.world_size; 1 otherwise):
  // a point on 2 GPUs is not the same point on 4. asv rows say it by their env (-ranksN).
  int world_size = 1;
};

struct ResultSet {
  std::string label;   // how the report names this side: "0d9a5811 (sample-box, cpp-gcc-12.2-Release)"
  std::string commit;  // full hash when known
  std::vector<PointData> points;
  // The point's run medians of recent commits in the same database (oldest first), for the
  // run-to-run noise floor; empty when the side is not a commit in a database.
  std::map<std::string, std::vector<double>> history;
  int history_files = 0;  // results files the history was read from
  // Two commits of a database: the environments compared, "env" or "base env -> head env".
  std::vector<std::string> environments;
};


// A point's key: asv's name of it, `bench_gemm.gemm_bf16(4096, 'bf16')`: the benchmark's asv key
// (its own, or program.benchmark), then each axis value as a Python repr. The key compare's rows
// of pitot points carry (pitot_result_set), so a caller finds the row of a point it planned.
std::string point_key(const BenchmarkInfo& benchmark, const std::vector<AxisValue>& values);

// asv's repr of a value as pitot JSON holds it: strings quoted ('random'), numbers as written.
std::string python_repr_of(const nlohmann::json& value);

// Throughput and other higher-is-better units (GB/s, TFLOP/s, items/s, %); seconds and bytes
// are lower-is-better, and so is any unit not recognised (asv's own assumption).
bool unit_higher_is_better(const std::string& unit);

}  // namespace pitot::driver::compare

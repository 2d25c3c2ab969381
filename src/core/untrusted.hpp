// The untrusted mode's checks that need no device (docs/untrusted.md): the reasons a point is
// refused with, the speed floor from the card's peaks and the work the benchmark declares, and
// the driver's cross-check of a child's samples against its own clock. Plain functions of
// numbers, unit-tested on CPU (tests/core/test_untrusted.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace pitot::untrusted {

// Every refusal's reason starts with this, so a platform can tell them from other failures.
inline constexpr const char* kPrefix = "untrusted: ";

// exec_manual (C++), or a Python method timed by the seconds it returns.
std::string self_reported_reason();

// What the card can do at most: FLOP/s at its fastest precision (sparse tensor cores included)
// and bytes/s of its memory. 0: unknown, that bound is not applied.
struct Peaks {
  double flops_per_second = 0;
  double bytes_per_second = 0;
};

// Nothing runs faster than a launch: a call that queues device work takes at least this long.
inline constexpr double kLaunchFloorSeconds = 1e-6;
// A point is refused only when its median is below the floor by more than this fraction: the
// peaks are nominal, the clocks may boost past them, and a launch can beat the rough 1 us.
inline constexpr double kSpeedMargin = 0.5;

// The least time one call can take: the largest of flops / peak FLOP/s, bytes / peak bandwidth
// (when `bytes_bound` holds: the bytes come from memory, not a cache) and the launch floor (when
// `launches`: the call is device work).
double floor_seconds(double flops, double bytes, const Peaks& peaks, bool bytes_bound, bool launches);

// "" when `median` seconds per call is possible, else the reason ("untrusted: faster than the
// card can do: 12500 TFLOP/s claimed, peak 4282").
std::string impossible_speed(double median, double flops, double bytes, const Peaks& peaks, bool bytes_bound,
                             bool launches);

// The engine's checks of a finished point in untrusted mode (src/core/engine.cpp, finalize):
// records "untrusted": true and each check's outcome under "untrusted_checks", and fails the
// point whose median is impossible for the peaks its backend recorded.
void check_point(PointResult& r);

// The driver's clock against the child's claim: a point whose samples add up to more device time
// than passed between the child's "sampling" message and its result (both timed by the driver)
// is refused. `number`: iterations per sample (each sample is seconds per iteration).
inline constexpr double kWallMargin = 0.10;       // the driver's clock reads message arrivals
inline constexpr double kWallSlackSeconds = 0.25;  // and a message may wait in the pipe
std::string check_against_wall(const std::vector<double>& samples, std::int64_t number, double wall_seconds);

}  // namespace pitot::untrusted

// The untrusted mode's checks that need no device (docs/untrusted.md): the reasons a point is
// refused with, the speed floor from the card's peaks and the work the benchmark declares, and
// the driver's cross-check of a child's samples against its own clock. Plain functions of
// numbers (and the driver's clock of the turns, kept in numbers), unit-tested on CPU
// (tests/core/test_untrusted.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace pitot::untrusted {

// Every refusal's reason starts with this, so a platform can tell them from other failures.
inline constexpr const char* kPrefix = "untrusted: ";

// exec_manual (C++), or a Python method timed by the seconds it returns.
std::string self_reported_reason();

// "" when the process reads time through the C library's own clock functions, else the reason: a
// program that defines clock_gettime (or gettimeofday, or clock) stands in front of libc's for
// every caller in the process, pitot's timers included (a timer detour: time made to run slower
// so that the work reads faster). Found by asking the dynamic linker which definition a call
// binds to; a program that also replaces the dynamic linker's own functions is beyond this check
// (the driver's clock from below remains). Checked once per process.
std::string clock_detour_reason();

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

// The driver's clock against the child's claim from above: a point whose samples add up to more
// device time than passed between the child's first "sampling" message and its result (both
// timed by the driver) is refused. `number`: iterations per sample (each sample is seconds per iteration).
inline constexpr double kWallMargin = 0.10;       // the driver's clock reads message arrivals
inline constexpr double kWallSlackSeconds = 0.25;  // and a message may wait in the pipe
std::string check_against_wall(const std::vector<double>& samples, std::int64_t number, double wall_seconds);

// The driver's clock from below: the program sends "sampling" when each turn of a point's sampling
// begins and "sampled" when it ends, and the driver sums the turns on its own clock. Time the
// samples do not account for must be the harness's own work around them: at most twice what the
// samples claim (each clipped at kClipMedians x their median, so one huge sample cannot cover a
// forged median), plus an allowance per sample and per call, plus the slack, plus the seconds the
// harness says its own checks took (`harness_seconds`: a problem's staging and comparisons, which
// grow with its outputs; each piece timed apart from the samples, on the steady clock the timer
// detour check guards). A forged clock that slows the harness's timer down shrinks those too, and
// samples made up while the work ran leave more.
inline constexpr double kClipMedians = 10;
inline constexpr double kHarnessPerSampleSeconds = 0.02;  // synchronize, the kernel clock's records, card readings
inline constexpr double kHarnessPerCallSeconds = 1e-3;    // cold mode's cache flush and the events around a call
// What the turns may last beyond the samples' claim ("" when within, else the refusal).
// `discarded`: samples the program dropped as throttled (each counted at twice the median).
std::string check_unaccounted(const std::vector<double>& samples, std::int64_t number, int discarded,
                              double turns_seconds, double harness_seconds = 0);

// The driver's clock of one child's sampling (pitot run --untrusted, src/driver/run/program_runner.cpp):
// the "sampling" and "sampled" messages of each point, stamped with the driver's own time
// (seconds, any epoch) as they arrive, and the checks of each point's samples against them.
class DriverClock {
 public:
  void sampling(int id, double now);  // a turn of the point's sampling began
  // ... and ended, the harness's own work taking `harness` seconds of it (SampledMessage; at most
  // the turn's length is counted)
  void sampled(int id, double now, double harness = 0);
  // The driver's checks of a point reported at `now`: each outcome under
  // backend_info.untrusted_checks ("driver_wall_clock": "ok" or the refusal; "driver_seconds"),
  // and a measured point whose samples do not fit the clock failed with the refusal.
  void check(PointResult& p, double now) const;

 private:
  struct Turns {
    double first = 0;             // the first turn's start: the window from above begins here
    std::optional<double> open;   // the start of a turn not yet ended
    double seconds = 0;           // the ended turns, summed: the time from below
    double harness = 0;           // the harness's own work in them, as the program said
    int count = 0;                // turns ended
    std::string broken;           // the messages came out of order: why ("" when they did not)
  };
  std::string refusal(const PointResult& p, const Turns* turns, double now) const;
  std::map<int, Turns> points_;
};

}  // namespace pitot::untrusted

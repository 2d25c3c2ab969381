// The sampler's arithmetic, kept apart from HIP so it is unit-tested on any machine: how long a
// timed window must be for the events' resolution, and how many launches fill it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace pitot::hip {

// GPU time one hot or graph sample aims at unless the engine asks for more.
constexpr double kDefaultSampleSeconds = 1e-3;
// A timed window spans at least this many event ticks, so one tick is under 0.5% of it.
constexpr double kTicksPerWindow = 200;
// HIP's documented event resolution, used until the sampler has measured the device's.
constexpr double kAssumedEventResolution = 1e-6;

// The window one sample times: what the engine asked for (--min-sample-time; 0: the default),
// but never shorter than kTicksPerWindow event ticks.
double sample_window_seconds(double requested_seconds, double event_resolution_seconds);

// Launches of `launch_seconds` each that fill `window_seconds`, between 1 and `most`.
std::int64_t launches_per_window(double launch_seconds, double window_seconds, std::int64_t most);

// Cold mode times each launch alone (a flush comes before each), so a window cannot grow; instead a
// sample averages enough launches that the tick's error on the mean stays under 1% of one launch,
// and holds at least as many launches as fill the window. Between 1 and `most`.
std::int64_t cold_launches(double launch_seconds, double flush_seconds, double window_seconds,
                           double event_resolution_seconds, std::int64_t most);

// The event timer's step from elapsed times of very short windows: the smallest positive gap between
// distinct values (quantized times differ by whole ticks). 0 when fewer than two distinct values.
double event_tick_seconds(std::vector<double> elapsed_seconds);

// True when a ROCm profiler or tracer is injected (rocprofv3, rocprof, omnitrace): like the CUDA
// backend with Nsight, the sampler then queues no launches behind a spinning kernel.
bool profiler_attached(const std::function<const char*(const char*)>& getenv);

}  // namespace pitot::hip

#include "hip/timing.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace pitot::hip {

double sample_window_seconds(double requested_seconds, double event_resolution_seconds) {
  const double requested = requested_seconds > 0 ? requested_seconds : kDefaultSampleSeconds;
  return std::max(requested, kTicksPerWindow * std::max(event_resolution_seconds, 0.0));
}

std::int64_t launches_per_window(double launch_seconds, double window_seconds, std::int64_t most) {
  const double n = std::round(window_seconds / std::max(launch_seconds, 1e-9));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::min(n, 1e15)), 1, std::max<std::int64_t>(most, 1));
}

std::int64_t cold_launches(double launch_seconds, double flush_seconds, double window_seconds,
                           double event_resolution_seconds, std::int64_t most) {
  const std::int64_t by_time = launches_per_window(launch_seconds + std::max(flush_seconds, 0.0), window_seconds, most);
  // One pair of quantized timestamps is off by about 0.41 ticks (standard deviation); a mean of n
  // pairs by 0.41 / sqrt(n) ticks. Under 1% of a launch needs n >= (41 ticks / launch)^2.
  const double ratio = 41.0 * std::max(event_resolution_seconds, 0.0) / std::max(launch_seconds, 1e-9);
  const double by_resolution = std::ceil(std::min(ratio * ratio, 1e15));
  const auto wanted = std::max<std::int64_t>(by_time, static_cast<std::int64_t>(by_resolution));
  return std::clamp<std::int64_t>(wanted, 1, std::max<std::int64_t>(most, 1));
}

double event_tick_seconds(std::vector<double> elapsed_seconds) {
  std::sort(elapsed_seconds.begin(), elapsed_seconds.end());
  double tick = 0;
  for (std::size_t i = 1; i < elapsed_seconds.size(); ++i) {
    const double gap = elapsed_seconds[i] - elapsed_seconds[i - 1];
    // Float milliseconds carry ~7 digits: gaps below that are rounding, not ticks.
    if (gap > 1e-6 * elapsed_seconds[i] && (tick == 0 || gap < tick)) tick = gap;
  }
  return tick;
}

bool profiler_attached(const std::function<const char*(const char*)>& getenv) {
  auto set = [&](const char* name) {
    const char* v = getenv(name);
    return v != nullptr && *v != '\0';
  };
  if (set("HSA_TOOLS_LIB") || set("ROCP_TOOL_LIBRARIES")) return true;
  const char* preload = getenv("LD_PRELOAD");
  if (!preload) return false;
  const std::string_view p(preload);
  for (std::string_view tool : {"rocprof", "roctracer", "omnitrace", "rocprofiler"})
    if (p.find(tool) != std::string_view::npos) return true;
  return false;
}

}  // namespace pitot::hip

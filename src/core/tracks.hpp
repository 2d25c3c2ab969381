// The tracks a point may carry beside its time, named once: the suffix of their asv key
// (<benchmark>.<name>), their unit, and whether each is a rate of the point's median time. The
// engine makes them, the outputs and the asv writer print them, compare reads them back, and a
// benchmark name may not end in one (core/text.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace pitot {

struct TrackKind {
  std::string_view name;
  std::string_view unit;
  bool rate = false;  // items/s, GB/s, TFLOP/s, % of peak: scaled by the median time
};

namespace track {
inline constexpr std::string_view kItemsPerSecond = "items_per_second";
inline constexpr std::string_view kGbytesPerSecond = "gbytes_per_second";
inline constexpr std::string_view kTflops = "tflops";
inline constexpr std::string_view kPercentOfPeakBandwidth = "percent_of_peak_bandwidth";
inline constexpr std::string_view kKernelBusySeconds = "kernel_busy_seconds";
inline constexpr std::string_view kEnergyJoulesPerCall = "energy_joules_per_call";
inline constexpr std::string_view kEnergyWatts = "energy_watts";
inline constexpr std::string_view kGflopPerJoule = "gflop_per_joule";
inline constexpr std::string_view kGbytesPerJoule = "gbytes_per_joule";
inline constexpr std::string_view kCardSmClockMhz = "card_sm_clock_mhz";
inline constexpr std::string_view kCardTemperatureC = "card_temperature_c";
inline constexpr std::string_view kCardPowerWatts = "card_power_watts";
// Multi-rank points (docs/ranks.md): bus bandwidth (bytes x the collective's bus factor over the
// median), and beside the sample (the slowest rank's) the fastest rank's and the ranks' mean
// time, medians over the samples, and the rank most often slowest.
inline constexpr std::string_view kBusGbytesPerSecond = "bus_gbytes_per_second";
inline constexpr std::string_view kRankFastestSeconds = "rank_fastest_seconds";
inline constexpr std::string_view kRankMeanSeconds = "rank_mean_seconds";
inline constexpr std::string_view kStragglerRank = "straggler_rank";
}  // namespace track

// Every track pitot writes.
std::span<const TrackKind> track_kinds();
// The kind of a track name; nullptr for a name pitot never writes.
const TrackKind* track_kind(std::string_view name);
// A track's unit; "" for a name pitot never writes.
std::string track_unit(std::string_view name);

}  // namespace pitot

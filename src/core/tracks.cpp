// The table of tracks (core/tracks.hpp).
#include "core/tracks.hpp"

#include <array>

namespace pitot {

namespace {
constexpr std::array kKinds = {
    TrackKind{track::kItemsPerSecond, "items/s", true},
    TrackKind{track::kGbytesPerSecond, "GB/s", true},
    TrackKind{track::kTflops, "TFLOP/s", true},
    TrackKind{track::kPercentOfPeakBandwidth, "%", true},
    TrackKind{track::kKernelBusySeconds, "seconds", false},
    TrackKind{track::kEnergyJoulesPerCall, "J", false},
    TrackKind{track::kEnergyWatts, "W", false},
    TrackKind{track::kGflopPerJoule, "GFLOP/J", false},
    TrackKind{track::kGbytesPerJoule, "GB/J", false},
    TrackKind{track::kCardSmClockMhz, "MHz", false},
    TrackKind{track::kCardTemperatureC, "degC", false},
    TrackKind{track::kCardPowerWatts, "W", false},
    TrackKind{track::kBusGbytesPerSecond, "GB/s", true},
    TrackKind{track::kRankFastestSeconds, "seconds", false},
    TrackKind{track::kRankMeanSeconds, "seconds", false},
    TrackKind{track::kStragglerRank, "rank", false},
};
}  // namespace

std::span<const TrackKind> track_kinds() { return kKinds; }

const TrackKind* track_kind(std::string_view name) {
  for (const TrackKind& k : kKinds)
    if (k.name == name) return &k;
  return nullptr;
}

std::string track_unit(std::string_view name) {
  const TrackKind* k = track_kind(name);
  return k ? std::string(k->unit) : std::string();
}

}  // namespace pitot

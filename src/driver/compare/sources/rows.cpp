#include "driver/compare/sources/rows.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "asv/json.hpp"
#include "asv/keys.hpp"
#include "asv/results.hpp"
#include "core/text.hpp"
#include "core/tracks.hpp"
#include "driver/common/errors.hpp"

namespace pitot::driver::compare::rows {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

void check_unique_keys(const ResultSet& set) {
  std::set<std::string> seen;
  for (const auto& p : set.points)
    if (!seen.insert(p.key).second)
      throw InputError(fmt::format("{}: point {} appears twice; compare one run against one run", set.label, p.display));
}

void set_key(PointData& p, const std::string& benchmark, std::vector<std::string> names,
             const std::vector<std::string>& reprs) {
  p.benchmark = benchmark;
  if (names.size() != reprs.size()) {
    names.clear();
    for (std::size_t a = 0; a < reprs.size(); ++a) names.push_back(fmt::format("p{}", a));
  }
  p.params.clear();
  for (std::size_t a = 0; a < reprs.size(); ++a) p.params.emplace_back(names[a], reprs[a]);
  p.key = asv_point_name(benchmark, reprs);
  std::vector<std::string> named;
  for (const auto& [n, r] : p.params) named.push_back(n + "=" + r);
  p.display = reprs.empty() ? benchmark : benchmark + "[" + join(named, ", ") + "]";
}

namespace {
// The card's state tracks (core/tracks.hpp), read back into a point's CardState.
constexpr std::string_view kCardSmClock = track::kCardSmClockMhz;
constexpr std::string_view kCardTemperature = track::kCardTemperatureC;
constexpr std::string_view kCardPower = track::kCardPowerWatts;
}  // namespace

std::optional<std::string> known_track_unit(const std::string& row) {
  const std::optional<AsvTrackKey> split = split_track_key(row);
  const TrackKind* kind = split ? track_kind(split->track) : nullptr;
  return kind ? std::optional<std::string>(kind->unit) : std::nullopt;
}

// Sets one reading of the card's state from a track; false when `track` is not a state track.
bool set_state(CardState& card, const std::string& track, double value) {
  double* field = track == kCardSmClock ? &card.sm_clock_mhz : track == kCardTemperature ? &card.temperature_c
                                                           : track == kCardPower         ? &card.power_watts
                                                                                         : nullptr;
  if (!field) return false;
  if (std::isfinite(value)) *field = value;
  return true;
}

}  // namespace pitot::driver::compare::rows

namespace pitot::driver::compare {

using nlohmann::json;
using namespace rows;

bool CardState::any() const {
  return std::isfinite(sm_clock_mhz) || std::isfinite(mem_clock_mhz) || std::isfinite(temperature_c) ||
         std::isfinite(power_watts) || has_throttle;
}

bool is_state_track(const std::string& track) {
  return track == kCardSmClock || track == kCardTemperature || track == kCardPower;
}

std::string python_repr_of(const json& value) {
  if (value.is_string()) {
    std::string out = "'";
    for (char c : value.get<std::string>()) {
      if (c == '\\' || c == '\'') out += '\\';
      out += c;
    }
    return out + "'";
  }
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_number_float()) {
    std::string d = value.dump();
    // Python writes a float that holds an integer with ".0".
    if (d.find_first_of(".eEn") == std::string::npos) d += ".0";
    return d;
  }
  return value.dump();
}

bool unit_higher_is_better(const std::string& unit) {
  const std::string u = ascii_lower(unit);
  return u.ends_with("/s") || u.ends_with("/sec") || u == "%" || u.find("per second") != std::string::npos ||
         u.find("per_second") != std::string::npos || u.find("flops") != std::string::npos;
}

}  // namespace pitot::driver::compare

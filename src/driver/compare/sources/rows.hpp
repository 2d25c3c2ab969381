// What the readers of both kinds of input share: a row's key and name, the units and state
// tracks pitot writes, the one-key-one-point check.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver/compare/points.hpp"

namespace pitot::driver::compare::rows {

std::string join(const std::vector<std::string>& parts, const std::string& sep);
// Throws InputError when two points of the set share a key.
void check_unique_keys(const ResultSet& set);
// The point's key, benchmark, params and display name from its benchmark and values' reprs.
void set_key(PointData& p, const std::string& benchmark, std::vector<std::string> names,
             const std::vector<std::string>& reprs);
// The unit of a pitot track row when benchmarks.json does not say (a results file read alone).
std::optional<std::string> known_track_unit(const std::string& row);
// Sets one reading of the card's state from a track; false when `track` is not a state track.
bool set_state(CardState& card, const std::string& track, double value);

}  // namespace pitot::driver::compare::rows

// The machine-state check (docs/compare.md, "Machine state"): did base and head run with the card
// in the same state? Judged per compared point, summed up in one warning.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/compare/points.hpp"

namespace pitot::driver::compare {

// The machine-state check (docs/compare.md, "Machine state"): base and head count as having run
// in different states at a point when their SM clock medians differ by more than 1% and one clock
// step, their highest temperatures by more than 10 °C, or a throttle reason was seen on one side
// only. Idle is no throttling. Power is recorded beside them but not judged (state.cpp says why).
constexpr double kStateClockFraction = 0.01;
constexpr double kStateClockStepMhz = 15;
constexpr double kStateTemperatureC = 10;

// The ways the two sides' states differ at one point: "sm_clock", "temperature", "throttle" (empty when alike, or when a side has no reading).
std::vector<std::string> state_differences(const CardState& base, const CardState& head);

// One way the states differ, over the compared points where it does.
struct StateDifference {
  std::string kind;  // sm_clock, temperature, throttle
  int points = 0;
  double base = 0, head = 0;  // median over those points of each side's reading (not for throttle)
  // The points where it differs most (up to 3), with each side's reading.
  struct Worst {
    std::string name;
    double base = 0, head = 0;
  };
  std::vector<Worst> worst;
  // throttle: the reasons seen at those points on one side only, and at how many points each
  std::map<std::string, int> base_only, head_only;
};

struct StateCheck {
  int judged = 0;     // compared points with readings on both sides
  int differing = 0;  // of those, where base and head ran in different states
  std::vector<StateDifference> differences;  // only the kinds that differ somewhere
};

struct Row;
struct Report;

// The differences over the compared rows, by kind.
StateCheck check_state(const std::vector<Row>& rows);

// The state warning, one line a difference after a heading; empty when the states agree.
std::vector<std::string> state_warning(const Report& report);

}  // namespace pitot::driver::compare

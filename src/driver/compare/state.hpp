// The machine-state check (docs/compare.md, "Machine state"): did base and head run with the card
// in the same state? Judged per compared point, summed up in one warning.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/compare/points.hpp"
#include "driver/compare/stats.hpp"

namespace pitot::driver::compare {

// The machine-state check (docs/compare.md, "Machine state"): base and head count as having run
// in different states at a point when their SM clock medians differ by more than 1% and one clock
// step, their highest temperatures by more than 10 °C, or a throttle reason was seen on one side
// only. Idle is no throttling. Power is recorded beside them but not judged (state.cpp says why).
constexpr double kStateClockFraction = 0.01;
constexpr double kStateClockStepMhz = 15;
constexpr double kStateTemperatureC = 10;

// The ways the two sides' states differ at one point: "sm_clock", "temperature", "throttle" (empty
// when alike, or when a side has no reading). `measured`: the shift between the clocks the sides'
// processes measured over their samples (clock_shift); where it is known (two processes on a
// side) it judges the SM clock instead of NVML's medians, which read a few times a point and
// spread by several percent between the processes of one build under a power cap (an H100's
// no-change `pitot ab` of the bundled suite: 559 of 1,000 points apart by them; by the measured
// clocks about 70, large GEMMs whose processes sat more than 3% apart, 1 of them surely).
std::vector<std::string> state_differences(const CardState& base, const CardState& head,
                                           const ClockShift& measured = {});

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

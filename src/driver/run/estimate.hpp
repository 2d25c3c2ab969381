// What a run will cost, said before it starts: from the cost file (run/costs.hpp) where the same
// programs ran before with the same knobs, else a floor from the knobs themselves (setup is not in it).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "driver/run/costs.hpp"

namespace pitot::driver::run {

// The points one process of each program runs.
using Work = std::vector<std::pair<const ProgramInfo*, std::vector<const PlannedPoint*>>>;

// Without history a process's start-up is taken to cost this much (a C++ program starts in
// milliseconds, a Python one importing torch in seconds).
inline constexpr double kDefaultProcessSeconds = 1.0;

// One process of every program of a Work: a round.
struct Estimate {
  std::size_t points = 0, processes = 0;
  std::size_t known_points = 0, known_processes = 0;  // of those, from the cost file
  double seconds = 0;
  double point_bound = 0;  // seconds a point without history was taken to cost: warm-up + --max-time
  Estimate& operator+=(const Estimate& o);
  // Where the estimate comes from, in words ("from the last run of the same programs", ...).
  std::string source() const;
};

Estimate estimate_round(const CostBook& book, const std::string& knobs, const Work& work, const RunOptions& o);
// pitot run's estimate, said before it runs (on stderr; on stdout with --estimate), with the cost
// file's note when it could not be read.
void say_run_estimate(const RunOptions& o, const std::vector<ProgramInfo>& programs, const Selection& selection,
                      std::size_t devices);
// "45 s", "7.5 min", "1.9 h".
std::string duration_text(double seconds);
// The engine's default for an engine knob ("--warmup", "--max-time"), unless `o` passes its own.
double knob_seconds(const RunOptions& o, const std::string& flag);

}  // namespace pitot::driver::run

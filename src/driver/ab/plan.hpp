// What pitot ab spends, sized and said before it is spent: the lean limits each process samples
// with, the estimate of the first look and of the worst case, the first look fitted to --budget,
// and at the end the points left undecided. docs/compare.md, "What pitot ab costs".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/compare/compare.hpp"
#include "driver/run/estimate.hpp"

namespace pitot::driver::ab {

// The per-point limits of pitot ab's children, unless given: the verdict pools per-process
// medians across processes, so a process needs a median, not a 0.5% interval of its own. On the
// bundled suite (1,080 points, an H100) a process took 229 s at the limits before these (0.01 s,
// 0.1 s, 20 samples) and 111-115 s at these (with 0.002 s of warm-up), sampling 89 s of it then and
// 35 s now; two processes at these limits differ as much as one at each, the shorter warm-up read
// 0.45% higher on average, so the warm-up stayed (docs/results/whole-suite-ab.md).
inline const std::vector<std::pair<std::string, std::string>> kLeanLimits = {
    {"--warmup", "0.005"}, {"--min-time", "0.002"}, {"--max-time", "0.03"}, {"--min-samples", "10"}};
// "--warmup 0.005 --min-time 0.002 --max-time 0.03 --min-samples 10", for the help and the notes.
std::string lean_limits_text();
// Fills in the lean limits the user did not give (a user's --max-time etc. wins), keeping
// --min-time at or under --max-time whichever of the two the user gave.
void apply_lean_limits(std::map<std::string, std::string>& passthrough);

// The estimate of one round (one process of every program, both sides) and what follows from it.
struct AbEstimate {
  run::Estimate round;
  int first = 0, max = 0;  // processes a side: before the first look, at most
  double first_look() const { return round.seconds * first; }
  double worst() const { return round.seconds * max; }
  std::string text() const;  // the estimate in one paragraph
};

// The processes a side the first look can have within what is left of the budget: `first` when
// it fits (or there is no budget), else the even number of rounds that fit, at least 2.
int first_look_within(const AbEstimate& e, double budget_left);

// At the stop (`why`: "the run was interrupted"): the points left undecided and the smallest change
// each could have called, one a line ("" when none is).
std::string undecided_summary(const compare::Report& report, const std::string& why);

}  // namespace pitot::driver::ab

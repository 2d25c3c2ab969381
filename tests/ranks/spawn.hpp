// Real ranks for the tests: the test process forks one child per rank, each with a launcher's
// environment (torchrun's variables, MASTER_ADDR 127.0.0.1 and a free port).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ranks/ranks.hpp"

namespace pitot::ranks::testing {

struct RankEnd {
  bool exited = false;  // exit() with `code`; otherwise killed by `signal`
  int code = -1;
  int signal = 0;
  double seconds = 0;  // from the fork to its end
  std::string report;  // what the body returned, or "error: " and the exception's message
};

// Runs body(rank) in `world` children and returns how each ended, by rank. The body's exception
// ends its child with code 3. Ranks in `hangs` are killed once the others have ended; any child
// still running after limit_seconds is killed too.
std::vector<RankEnd> run_ranks(int world, const std::function<std::string(int rank)>& body, const std::set<int>& hangs = {},
                               double limit_seconds = 10);

// The group of this child's rank, from the environment run_ranks set.
Group join(double timeout_seconds);

// Seconds on a clock every process of the host shares (CLOCK_MONOTONIC).
double now_seconds();

}  // namespace pitot::ranks::testing

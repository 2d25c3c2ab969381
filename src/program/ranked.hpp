// The program in a multi-rank world (docs/ranks.md): started by torchrun, mpirun, srun or
// `pitot run --ranks N`, each process joins the ranks' group once; .multi_rank() points run on
// every rank, the others on rank 0 alone after them; only rank 0 prints and writes outputs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "program/options.hpp"
#include "ranks/ranks.hpp"

namespace pitot::program {

struct World {
  ranks::RankInfo info;
  std::unique_ptr<ranks::Group> group;  // null in a world of one rank
  bool multi() const { return info.world_size > 1; }
  bool silent() const { return info.rank != 0; }  // not rank 0: no table, no outputs, no channel
};

// The ranks from the launcher's variables (a bad variable is a UsageError naming it). With more
// than one rank: refuses what cannot run across ranks, makes ranks other than 0 silent, points
// each rank at its GPU, joins the group and hands it to the engine (o.run.group).
World enter_world(Options& o, const std::vector<PlannedPoint>& points);

// True in a rank other than 0 of a multi-rank world (a bad launcher variable: false, and the run
// reports it): such a rank prints no --list.
bool listing_is_silent();

// The points in the order a multi-rank world runs them: the .multi_rank() ones (every rank), then
// on rank 0 the others (alone: the other ranks have left). A world of one rank: all, as given.
std::vector<std::vector<PlannedPoint>> world_rounds(const World& world, const std::vector<PlannedPoint>& points);

// Why the program must stop after a point ("" to go on): the group failed (a rank crashed, hung or
// failed its point), so no later multi-rank point can run in this process.
std::string world_broken(const World& world);

}  // namespace pitot::program

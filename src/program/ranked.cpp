#include "program/ranked.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include <pitot/benchmark.hpp>

namespace pitot::program {
namespace {

// The GPU a rank takes: its local rank, unless the launcher left it one visible GPU (then that
// one, device 0), or --device chose another than 0.
int rank_device(const ranks::RankInfo& info, int chosen) {
  if (chosen != 0) return chosen;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name); v && *v && std::string(v).find(',') == std::string::npos) return 0;
  return info.local_rank;
}

}  // namespace

World enter_world(Options& o, const std::vector<PlannedPoint>& points) {
  World world;
  try {
    world.info = ranks::ranks_from_environment();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!world.multi()) return world;
  if (o.processes > 1) throw UsageError("--processes cannot run in a multi-rank world: run the launcher K times instead");
  if (world.silent()) {
    o.table = false;
    o.json_path.clear();
    o.csv_path.clear();
    o.asv_dir.clear();
    ::unsetenv(kResultFdVariable);  // the driver reads rank 0 alone
  }
  o.device.device = rank_device(world.info, o.device.device);
  o.run.local_rank = world.info.local_rank;
  // Every wait is bounded by the longest .timeout() of the multi-rank points to run: a rank's
  // setup or sample runs between two collectives, and a hung rank is named within that.
  double timeout = 0;
  for (const auto& p : points)
    if (p.def->multi_rank) timeout = std::max(timeout, p.def->timeout_seconds);
  try {
    world.group = std::make_unique<ranks::Group>(ranks::Group::join(world.info, timeout > 0 ? timeout : 60.0));
  } catch (const ranks::RankError& e) {
    throw std::runtime_error(fmt::format("rank {} of {} could not join the ranks' group: {}", world.info.rank,
                                         world.info.world_size, e.what()));
  }
  o.run.group = world.group.get();
  return world;
}

bool listing_is_silent() {
  try {
    return ranks::ranks_from_environment().rank != 0;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::vector<std::vector<PlannedPoint>> world_rounds(const World& world, const std::vector<PlannedPoint>& points) {
  if (!world.multi()) return {points};
  std::vector<PlannedPoint> together, alone;
  for (const auto& p : points) (p.def->multi_rank ? together : alone).push_back(p);
  if (world.silent()) alone.clear();
  return {together, alone};
}

std::string world_broken(const World& world) {
  return world.group ? world.group->failure() : "";
}

}  // namespace pitot::program

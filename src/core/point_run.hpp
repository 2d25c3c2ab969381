// Engine-side state of one running point, shared by the engine thread and the point's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "core/engine.hpp"

namespace pitot {

struct PointRun {
  PointRun(const PlannedPoint& p, const RunConfig& c, const PointHooks& h, const DeviceOptions& d)
      : point(p), config(c), hooks(h), device(d) {}
  const PlannedPoint& point;
  const RunConfig& config;
  const PointHooks& hooks;
  const DeviceOptions& device;  // for the device backend's exec
  PointResult result;
  bool exec_called = false;
  bool skipped = false;
  double busy_seconds = 0;  // wall time this point held the turn
  double bus_factor = -1;   // State::set_bus_factor (a collective): bus bandwidth = bytes x this / median

  // Timed across the ranks of a multi-rank world (src/core/ranked.cpp).
  bool ranked() const { return config.group && point.def->multi_rank; }
  struct RankSpread {
    std::vector<double> fastest, mean;  // per kept sample: the fastest rank's time, the ranks' mean
    std::vector<int> slowest;           // per rank: the samples it was the slowest in
  } rank_spread;

  // Where the point's own wall time went (backend_info "phases", docs/driver.md): the turns other
  // points held in between are in none of them.
  struct Phases {
    std::chrono::steady_clock::time_point started, timed_end;  // the point's start; sampling's end
    double setup = 0;     // from the start to the timed region (the benchmark's setup, the backend's)
    double warmup = 0;    // the sampler's warm-up and sizing
    double sampling = 0;  // the samples, over all the point's turns
    double deciding = 0;  // the stopping rule between batches (grows with the samples kept)
    double finish = 0;    // the sampler's finish (an energy phase, buffers released)
    double teardown = 0;  // from the end of sampling to the benchmark's return
  } phases;

  // The turn: only the thread holding it runs, so points never overlap in time.
  std::mutex mutex;
  std::condition_variable cv;
  bool has_turn = false;
  bool finished = false;

  void wait_for_turn();  // point thread
  void yield_turn();     // point thread
};

}  // namespace pitot

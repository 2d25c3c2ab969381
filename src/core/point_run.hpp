// Engine-side state of one running point, shared by the engine thread and the point's thread.
#pragma once

#include <condition_variable>
#include <mutex>

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

  // The turn: only the thread holding it runs, so points never overlap in time.
  std::mutex mutex;
  std::condition_variable cv;
  bool has_turn = false;
  bool finished = false;

  void wait_for_turn();  // point thread
  void yield_turn();     // point thread
};

}  // namespace pitot

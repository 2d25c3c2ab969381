#include "gpu/backend.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>

#include "gpu/error.hpp"
#include "gpu/sampler.hpp"
// The backend's DeviceKit.
#if PITOT_GPU_HIP
#include "hip/sampler.hpp"
#else
#include "cuda/sampler.hpp"
#endif

namespace pitot::PITOT_GPU_NAMESPACE {
namespace {
// set_rotations() applies to the next exec of the same thread (each point runs in its own thread).
thread_local int pending_rotations = 1;
}  // namespace

void exec(State& state, std::function<void(Launch&)> work) {
  PointContext context(state.point_name());
  const int rotations = pending_rotations;
  pending_rotations = 1;
  // A GPU benchmark outside a device source (registered from a .cpp) reaches here without the
  // program having skipped it: without a usable device it is skipped, not failed.
  if (const DeviceBackend* b = device_backend(); b && b->unusable) {
    if (const std::string why = b->unusable(); !why.empty()) {
      state.skip("no " + b->display_name + " GPU usable here: " + why);
      return;
    }
  }
  const DeviceOptions& options = device_options();
  const Mode mode = parse_mode(options.timing);
  select_device(options.device);
  // Setup work the author queued (fills, copies) finishes before anything is timed.
  PITOT_GPU_TRY(gpuDeviceSynchronize());
  DeviceKit& kit = device_kit(options.device);
  state.set_backend_info("device", std::to_string(options.device));
  state.set_backend_info("timing", nlohmann::json(mode_name(mode)).dump());
  if (rotations > 1) state.set_backend_info("rotations", std::to_string(rotations));
  if (mode == Mode::Cold) state.set_backend_info("flush_bytes", std::to_string(kit.flush_bytes));
  record_kit_info(state, kit);
  DeviceSampler sampler(kit, mode, work, rotations, options.graph_launches, options.throttle_ratio);
  state.run(sampler);
  state.set_backend_info("launches_per_sample", std::to_string(sampler.iterations_per_sample()));
  // Without the blocker the host's launch latency can fall between the events (see run_batch);
  // it may have been given up during this point (a tool serializing launches).
  if (!kit.use_blocker) state.set_backend_info("blocking_kernel", "false");
}

void set_rotations(State& state, int count) {
  if (count < 1)
    throw UsageError("benchmark " + state.benchmark_name() + ": set_rotations needs at least 1 input set, not " +
                     std::to_string(count));
  pending_rotations = count;
}

bool register_backend() {
  static const bool registered = set_device_backend(make_backend());
  return registered;
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

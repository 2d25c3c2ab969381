// The DeviceBackend shared by the CUDA and HIP backends: `exec` times the author's work through
// DeviceSampler; set_rotations and register_backend are the public API of <pitot/cuda.hpp> and
// <pitot/hip.hpp>. Each backend's backend.cpp defines the hooks below: device selection, what
// a point records about the kit, and the rest of its DeviceBackend (facts, ranges, profiler).
#pragma once

#include <functional>

#include <pitot/detail/backend_info.hpp>
#include <pitot/state.hpp>

#include "core/backend.hpp"
#include "gpu/api.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

struct DeviceKit;  // src/gpu/device_ops.hpp

// Times `work` on options.device with the run's options, as the point's samples.
void exec(State& state, const DeviceOptions& options, std::function<void(Launch&)> work);
struct CallHooks;  // src/gpu/sampler.hpp
// The same with the harness's work around each cold launch (a problem's checks).
void exec_with_hooks(State& state, const DeviceOptions& options, std::function<void(Launch&)> work, CallHooks* hooks);

// Hooks (src/<backend>/backend.cpp).
// Makes `device` current; throws pitot::UsageError when there is no such device.
void select_device(int device);
// Backend info a point records from the kit before sampling (e.g. the peak bandwidth).
void record_kit_info(State& state, const DeviceKit& kit);
// The backend with `exec` and everything else it offers.
DeviceBackend make_backend();

}  // namespace pitot::PITOT_GPU_NAMESPACE

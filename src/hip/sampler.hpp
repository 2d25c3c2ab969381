// Timing HIP work: the per-device kit (flush buffer, event resolution) on top of the shared one
// (src/gpu/device_ops.hpp). The sampler itself is shared with the CUDA backend (src/gpu/sampler.hpp);
// src/hip/sampler.cpp defines the device operations it calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu/device_ops.hpp"
#include "hip/kernels.hpp"

namespace pitot::hip {

// flush_bytes is 2 x (every XCD's L2 + Infinity Cache), or PITOT_HIP_FLUSH_BYTES; signals is the
// host side of the coherent, mapped flags; sequence numbers the batches (no clock probe on AMD
// yet); use_blocker is off from the start when a profiler is injected (rocprofv3, rocprof); no
// card (card_missing says why).
struct HipKit final : DeviceKit {
  HipKit() { card_missing = "pitot reads no AMD card state yet (clocks, temperature, power, energy)"; }
  int device = 0;
  int cu_count = 0;
  std::string arch;  // "gfx942"
  void* flush_buffer = nullptr;
  int* flush_sink = nullptr;
  double event_resolution_seconds = 0;    // the event timer's step, measured when the kit is made
  std::uint64_t wall_clock_hz = 0;        // wall_clock64's rate, for the blocker's timeout
  HostSignals* device_signals = nullptr;  // signals as the GPU addresses them
};

// Every kit of this backend is a HipKit (ops::make_kit makes them all).
inline HipKit& hip_kit(DeviceKit& kit) { return static_cast<HipKit&>(kit); }
inline const HipKit& hip_kit(const DeviceKit& kit) { return static_cast<const HipKit&>(kit); }

}  // namespace pitot::hip

// Timing HIP work: the per-device kit (flush buffer, host-mapped flags, event resolution). The
// sampler itself is shared with the CUDA backend (src/gpu/sampler.hpp); src/hip/sampler.cpp has
// its HIP hooks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "card/nvml.hpp"
#include "gpu/sampler.hpp"
#include "hip/kernels.hpp"

namespace pitot::hip {

struct DeviceKit {
  int device = 0;
  int cu_count = 0;
  std::string arch;             // "gfx942"
  std::size_t flush_bytes = 0;  // 2 x (every XCD's L2 + Infinity Cache), or PITOT_HIP_FLUSH_BYTES
  void* flush_buffer = nullptr;
  int* flush_sink = nullptr;
  double flush_seconds = 0;               // one flush, measured when the kit is made
  double event_resolution_seconds = 0;    // the event timer's step, measured when the kit is made
  std::uint64_t wall_clock_hz = 0;        // wall_clock64's rate, for the blocker's timeout
  HostSignals* signals = nullptr;         // host side of the coherent, mapped flags
  HostSignals* device_signals = nullptr;  // the same memory as the GPU addresses it
  std::uint64_t sequence = 0;             // numbers the batches (no clock probe on AMD yet)
  // Off when a profiler is injected (rocprofv3, rocprof): it may serialize dispatches, so a launch
  // queued behind the spinning blocker would wait for it until its timeout.
  bool use_blocker = true;
  // No reader of an AMD card's clocks, temperature, power and energy yet (amd-smi would be it).
  std::unique_ptr<card::Card> card;
  std::string card_missing = "pitot reads no AMD card state yet (clocks, temperature, power, energy)";
};

}  // namespace pitot::hip

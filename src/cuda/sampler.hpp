// Timing CUDA work: the per-device kit (flush buffer, clock probe slots) on top of the shared one
// (src/gpu/device_ops.hpp). The sampler itself is shared with the HIP backend (src/gpu/sampler.hpp);
// src/cuda/sampler.cpp defines the device operations it calls.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/kernels.hpp"
#include "gpu/device_ops.hpp"

namespace pitot::cuda {

// flush_bytes is twice the L2; signals is host-mapped; the card is NVML's view of the device
// (card_missing says why there is none where NVML is absent or does not know it).
struct CudaKit final : DeviceKit {
  int device = 0;
  int sm_count = 0;
  double nominal_clock_khz = 0;  // cudaDevAttrClockRate
  double peak_gbytes_per_second = 0;
  double peak_tflops = 0;                // the untrusted mode's bound (facts.hpp, peak_tflops)
  cudaEvent_t legacy_mark = nullptr;     // untrusted: marks the legacy stream (ops::wait_for_device)
  std::size_t l2_bytes = 0;
  void* flush_buffer = nullptr;
  int* flush_sink = nullptr;
  ClockSlot* clocks_before = nullptr;  // host-mapped, kMaxSmSlots each
  ClockSlot* clocks_after = nullptr;
};

// Every kit of this backend is a CudaKit (ops::make_kit makes them all).
inline CudaKit& cuda_kit(DeviceKit& kit) { return static_cast<CudaKit&>(kit); }
inline const CudaKit& cuda_kit(const DeviceKit& kit) { return static_cast<const CudaKit&>(kit); }

}  // namespace pitot::cuda

// Timing CUDA work: the per-device kit (flush buffer, host-mapped flags, clock probe slots). The
// sampler itself is shared with the HIP backend (src/gpu/sampler.hpp); src/cuda/sampler.cpp has
// its CUDA hooks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "card/nvml.hpp"
#include "cuda/kernels.hpp"
#include "gpu/sampler.hpp"

namespace pitot::cuda {

struct DeviceKit {
  int device = 0;
  int sm_count = 0;
  double nominal_clock_khz = 0;  // cudaDevAttrClockRate
  double peak_gbytes_per_second = 0;
  std::size_t l2_bytes = 0;
  std::size_t flush_bytes = 0;  // twice the L2
  void* flush_buffer = nullptr;
  int* flush_sink = nullptr;
  double flush_seconds = 0;            // one flush, measured when the kit is made
  HostSignals* signals = nullptr;      // host-mapped
  ClockSlot* clocks_before = nullptr;  // host-mapped, kMaxSmSlots each
  ClockSlot* clocks_after = nullptr;
  std::uint64_t sequence = 0;  // numbers the batches of the process, for the clock probe
  // Off when a tool serializes launches (ncu, compute-sanitizer): a launch queued behind the
  // spinning blocker would wait for it until its timeout. Found out when the kit is made.
  bool use_blocker = true;
  // The card as NVML sees it (clocks, temperature, power, energy); null, with the reason in
  // card_missing, where NVML is absent or does not know the device.
  std::unique_ptr<card::Card> card;
  std::string card_missing;
};

}  // namespace pitot::cuda

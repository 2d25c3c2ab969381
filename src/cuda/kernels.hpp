// The backend's own device work: the stream blocker, the L2 flush and the clock probe.
// Host-callable wrappers so the rest of the backend compiles as plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/signals.hpp"

namespace pitot::cuda {

// One multiprocessor's SM clock and the global timer, read by the clock probe.
struct ClockSlot {
  volatile std::uint64_t sequence;
  volatile std::uint64_t clock;
  volatile std::uint64_t time_ns;
};
constexpr int kMaxSmSlots = 1024;

// One thread spinning until signals->release or the timeout: the launches queued behind it
// then run back to back, without the host's launch latency between them.
cudaError_t launch_blocker(cudaStream_t stream, HostSignals* signals, std::uint64_t timeout_ns);

// One block per multiprocessor writes {sequence, clock64, %globaltimer} into slots[%smid].
cudaError_t launch_clock_probe(cudaStream_t stream, ClockSlot* slots, int blocks, std::uint64_t sequence);

// Reads `bytes` of `buffer` through L2 so every line cached before is evicted (written back
// during the flush rather than during the timed launch).
cudaError_t launch_l2_flush(cudaStream_t stream, const void* buffer, std::size_t bytes, int* sink, int blocks);

}  // namespace pitot::cuda

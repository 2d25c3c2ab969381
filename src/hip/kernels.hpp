// The backend's own device work: the stream blocker and the cache flush. Host-callable wrappers
// (compiled by hipcc in kernels.hip) so the rest of the backend compiles as plain C++.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/signals.hpp"

namespace pitot::hip {

// One thread spinning until signals->release or until `timeout_ticks` of the GPU's constant-rate
// wall clock (wall_clock64) have passed: the launches queued behind it then run back to back,
// without the host's launch latency between them.
hipError_t launch_blocker(hipStream_t stream, HostSignals* signals, std::uint64_t timeout_ticks);

// Reads `bytes` of `buffer` from every compute unit, so the L2 of every XCD and the Infinity
// Cache hold only the buffer's lines afterwards (dirty lines of the last launch are written back
// during the flush rather than during the timed launch).
hipError_t launch_cache_flush(hipStream_t stream, const void* buffer, std::size_t bytes, int* sink, int blocks);

// An empty kernel: the sampler measures the event timer's step around it.
hipError_t launch_empty(hipStream_t stream);

}  // namespace pitot::hip

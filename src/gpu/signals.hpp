// The flags the host and the blocker kernel share, one layout for both backends: the shared
// sampler arms and releases them (src/gpu/sampler.cpp), the backend's blocker kernel reads them
// (src/<backend>/kernels.*). The memory is host-mapped (and coherent on HIP), so the spinning
// kernel sees the host's store without caching a stale value. Included by the kernels' sources,
// so it includes no runtime header.
#pragma once

#include "gpu/platform.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

struct HostSignals {
  volatile int release;    // host sets 1 to let the stream run
  volatile int timed_out;  // the blocker gave up waiting
};

}  // namespace pitot::PITOT_GPU_NAMESPACE

#include <hip/hip_runtime.h>

#include "hip/kernels.hpp"

namespace pitot::hip {
namespace {

// The GPU's constant-rate clock (ROCm 5 declares wall_clock64 for the device pass only).
__device__ inline std::uint64_t wall_ticks() {
#if defined(__HIP_DEVICE_COMPILE__)
  return static_cast<std::uint64_t>(wall_clock64());
#else
  return 0;
#endif
}

__global__ void blocker(HostSignals* signals, std::uint64_t timeout_ticks) {
  const std::uint64_t start = wall_ticks();
  while (!signals->release) {
    if (wall_ticks() - start > timeout_ticks) {
      signals->timed_out = 1;
      break;
    }
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_s_sleep(2);  // poll gently: the host memory is read across the bus
#endif
  }
}

__global__ void cache_flush(const int4* buffer, std::size_t count, int* sink) {
  int acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int4 v = buffer[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // The buffer holds zeros, so this never stores; it keeps the loads from being removed.
  if (acc == 0x5eed1e55) *sink = acc;
}

__global__ void empty() {}

}  // namespace

hipError_t launch_blocker(hipStream_t stream, HostSignals* signals, std::uint64_t timeout_ticks) {
  blocker<<<1, 1, 0, stream>>>(signals, timeout_ticks);
  return hipGetLastError();
}

hipError_t launch_cache_flush(hipStream_t stream, const void* buffer, std::size_t bytes, int* sink, int blocks) {
  cache_flush<<<blocks, 256, 0, stream>>>(static_cast<const int4*>(buffer), bytes / sizeof(int4), sink);
  return hipGetLastError();
}

hipError_t launch_empty(hipStream_t stream) {
  empty<<<1, 1, 0, stream>>>();
  return hipGetLastError();
}

}  // namespace pitot::hip

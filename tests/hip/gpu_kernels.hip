#include <hip/hip_runtime.h>

#include "gpu_kernels.hpp"

namespace {

__global__ void empty_kernel() {}

__global__ void copy_kernel(const float* in, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
}

__global__ void record_rotation(int* seen, int rotation) { seen[rotation] = 1; }

}  // namespace

hipError_t launch_empty(hipStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return hipGetLastError();
}

hipError_t launch_copy(const float* in, float* out, std::int64_t n, hipStream_t stream) {
  copy_kernel<<<1024, 256, 0, stream>>>(in, out, n);
  return hipGetLastError();
}

hipError_t launch_record_rotation(int* seen, int rotation, hipStream_t stream) {
  record_rotation<<<1, 1, 0, stream>>>(seen, rotation);
  return hipGetLastError();
}

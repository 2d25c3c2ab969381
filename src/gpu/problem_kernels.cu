// The check kernel of a problem's harness (problem_kernels.hpp), one source for both backends:
// nvcc builds it into pitot_cuda, hipcc into pitot_hip (cmake/PitotHip.cmake).
#include "gpu/problem_kernels.hpp"

#if PITOT_GPU_HIP
#include <hip/hip_runtime.h>  // the kernel language (threadIdx, atomics, shuffles): nvcc has it built in
#endif

#include "core/problem_check.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {
namespace {

constexpr int kThreads = 256;

// A warp's (a wavefront's on AMD: 32 or 64 lanes) values summed in lane 0.
__device__ unsigned long long shfl_down(unsigned long long v, int offset) {
#if PITOT_GPU_HIP
  return __shfl_down(v, offset);
#else
  return __shfl_down_sync(0xFFFFFFFFu, v, offset);
#endif
}

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += shfl_down(v, offset);
  return v;
}

__global__ void check_output(CheckArgs a, CheckSlot* slot) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int size = problem::element_bytes(a.dtype);
  const std::uint64_t bytes = static_cast<std::uint64_t>(a.count) * size;
  const std::int64_t words = static_cast<std::int64_t>((bytes + 3) / 4);
  const auto* p = static_cast<const unsigned char*>(a.got);
  unsigned long long hash = first == 0 ? problem::length_term(a.hash_key, bytes) : 0;
  for (std::int64_t w = first; w < words; w += stride) {
    std::uint32_t word = 0;
    const std::uint64_t at = static_cast<std::uint64_t>(w) * 4;
    if (at + 4 <= bytes) {
      for (int b = 0; b < 4; ++b) word |= static_cast<std::uint32_t>(p[at + b]) << (8 * b);
    } else {
      for (std::uint64_t b = 0; at + b < bytes; ++b) word |= static_cast<std::uint32_t>(p[at + b]) << (8 * b);
    }
    hash += problem::word_term(a.hash_key, static_cast<std::uint64_t>(w), word);
  }
  unsigned long long unwritten = 0;
  if (a.poison != 0)
    for (std::int64_t i = first; i < a.count; i += stride)
      unwritten += problem::poisoned(a.dtype, problem::load_bits(a.got, a.dtype, i), a.poison) ? 1 : 0;
  hash = warp_sum(hash);
  unwritten = warp_sum(unwritten);
  if (threadIdx.x % warpSize != 0) return;
  atomicAdd(&slot->hash, hash);
  if (unwritten) atomicAdd(&slot->unwritten, unwritten);
}

}  // namespace

#if PITOT_GPU_HIP
hipError_t launch_check(hipStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks) {
#else
cudaError_t launch_check(cudaStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks) {
#endif
  const std::int64_t needed = (args.count + kThreads - 1) / kThreads;
  const int grid = static_cast<int>(needed < blocks ? (needed > 0 ? needed : 1) : blocks);
  check_output<<<grid, kThreads, 0, stream>>>(args, slot);
#if PITOT_GPU_HIP
  return hipGetLastError();
#else
  return cudaGetLastError();
#endif
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

#include "cuda/problem_kernels.hpp"

#include "core/problem_check.hpp"

namespace pitot::cuda {
namespace {

constexpr int kThreads = 256;

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, offset);
  return v;
}

__device__ unsigned long long warp_max(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other = __shfl_down_sync(0xFFFFFFFFu, v, offset);
    v = other > v ? other : v;
  }
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
  unsigned long long mismatches = 0, unwritten = 0, first_bad = 0;
  if (a.expected) {
    const std::uint64_t cut = problem::size_mask(a.dtype);
    for (std::int64_t i = first; i < a.count; i += stride) {
      const std::uint64_t got = problem::load_bits(a.got, a.dtype, i);
      const std::uint64_t want =
          (problem::load_bits(a.expected, a.dtype, i) ^ problem::mask_of(a.mask_key, static_cast<std::uint64_t>(i))) & cut;
      if (problem::poisoned(a.dtype, got, a.poison)) ++unwritten;
      if (problem::matches(a.dtype, got, want, a.atol, a.rtol, a.exact)) continue;
      ++mismatches;
      const unsigned long long packed = pack_first_bad(static_cast<std::uint64_t>(i), got);
      first_bad = packed > first_bad ? packed : first_bad;
    }
  }
  hash = warp_sum(hash);
  mismatches = warp_sum(mismatches);
  unwritten = warp_sum(unwritten);
  first_bad = warp_max(first_bad);
  if ((threadIdx.x & 31) != 0) return;
  atomicAdd(&slot->hash, hash);
  if (mismatches) atomicAdd(&slot->mismatches, mismatches);
  if (unwritten) atomicAdd(&slot->unwritten, unwritten);
  if (first_bad) atomicMax(&slot->first_bad, first_bad);
}

}  // namespace

cudaError_t launch_check(cudaStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks) {
  const std::int64_t needed = (args.count + kThreads - 1) / kThreads;
  const int grid = static_cast<int>(needed < blocks ? (needed > 0 ? needed : 1) : blocks);
  check_output<<<grid, kThreads, 0, stream>>>(args, slot);
  return cudaGetLastError();
}

}  // namespace pitot::cuda

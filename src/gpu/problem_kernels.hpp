// The check a problem's harness queues after each timed call (src/gpu/problem.cpp), outside the
// timed span: one kernel takes the output's fingerprint and compares it with the reference's
// masked expected output (src/core/problem_check.hpp has the element-wise rules).
#pragma once

#include "gpu/platform.hpp"

#if PITOT_GPU_HIP
#include <hip/hip_runtime_api.h>
#else
#include <cuda_runtime_api.h>
#endif

#include <cstddef>
#include <cstdint>

#include <pitot/problem.hpp>

#include "core/problem_check.hpp"  // PITOT_HOST_DEVICE

namespace pitot::PITOT_GPU_NAMESPACE {

// What one check of one output found; zeroed before the call.
struct CheckSlot {
  unsigned long long hash;        // the fingerprint (a sum, mod 2^64)
  unsigned long long mismatches;  // elements that do not match the reference's
  unsigned long long first_bad;   // the first mismatch, packed (pack_first_bad); 0: none
  unsigned long long unwritten;   // elements still holding the poison byte
};

// The smallest mismatching index wins an atomicMax of this; elements of up to 4 bytes keep their bits.
inline constexpr unsigned long long kIndexLimit = 0xFFFFFFFEull;
PITOT_HOST_DEVICE inline unsigned long long pack_first_bad(std::uint64_t index, std::uint64_t bits) {
  const std::uint64_t i = index < kIndexLimit ? index : kIndexLimit;
  return ((0xFFFFFFFFull - i) << 32) | (bits & 0xFFFFFFFFull);
}
inline std::uint64_t first_bad_index(unsigned long long packed) { return 0xFFFFFFFFull - (packed >> 32); }

struct CheckArgs {
  const void* got = nullptr;
  const void* expected = nullptr;  // masked; null: the fingerprint alone
  DType dtype = DType::F32;
  std::int64_t count = 0;
  double atol = 0, rtol = 0;
  bool exact = true;
  std::uint64_t mask_key = 0, hash_key = 0;
  unsigned char poison = 0;
};

#if PITOT_GPU_HIP
hipError_t launch_check(hipStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks);
#else
cudaError_t launch_check(cudaStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks);
#endif

}  // namespace pitot::PITOT_GPU_NAMESPACE

// The check a problem's harness queues after each timed call (src/gpu/problem.cpp), outside the
// timed span: one kernel takes the fingerprint of the call's outputs (or of their copy) and counts
// the elements still holding the call's poison. The comparison with the reference's outputs is
// the checker process's, on the host (src/core/problem_checker.hpp): the expected outputs are
// never in this process, on the host or on the device.
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
  unsigned long long hash;       // the fingerprint (a sum, mod 2^64)
  unsigned long long unwritten;  // elements still holding the poison byte
};

struct CheckArgs {
  const void* got = nullptr;
  DType dtype = DType::F32;
  std::int64_t count = 0;
  std::uint64_t hash_key = 0;
  unsigned char poison = 0;  // 0: no poison to count (never a call's: the poison is odd)
};

#if PITOT_GPU_HIP
hipError_t launch_check(hipStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks);
#else
cudaError_t launch_check(cudaStream_t stream, const CheckArgs& args, CheckSlot* slot, int blocks);
#endif

}  // namespace pitot::PITOT_GPU_NAMESPACE

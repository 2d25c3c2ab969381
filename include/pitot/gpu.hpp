// One kernel source for NVIDIA and AMD: the same .cu file compiles with nvcc (CUDA backend) or
// hipcc (HIP backend). This header gives PITOT_GPU_CHECK, pitot::gpu::bfloat16 and the device
// helpers below, and launches work with <<<grid, block, shared, l.stream()>>>, which both
// compilers accept:
//
//   #include <pitot/pitot.hpp>
//   #include <pitot/gpu.hpp>
//   state.exec([&](pitot::Launch& l) { copy<<<blocks, 256, 0, l.stream()>>>(in, out, n); });
//
// The runtime calls under one spelling (gpuMalloc, gpuMemcpyAsync, gpuStream_t, ...) are opt-in:
// include <pitot/gpu_names.hpp> as well (docs/DESIGN.md says why they are not defined here).
// Anything vendor-specific stays behind `#if PITOT_GPU_HIP` / `#if PITOT_GPU_CUDA`. Device code
// differences that matter for kernels: a wavefront on AMD data-center GPUs has 64 lanes, a CUDA
// warp 32 (use pitot::gpu::warp_size()), and shuffles take no mask on HIP (use pitot::gpu::shfl_xor).
#pragma once

#if defined(__HIP__)
#define PITOT_GPU_HIP 1
#define PITOT_GPU_CUDA 0
#include <hip/hip_runtime.h>
// ROCm 6's <hip/hip_bf16.h> (__hip_bfloat16). ROCm 5.7 ships that header too, but its
// amd_hip_bf16.h defines host functions without `inline`, so two sources including it fail to
// link (multiple definition of __float2bfloat16): below 6, use ROCm 5's hip_bfloat16 class.
#if __has_include(<hip/hip_bf16.h>) && HIP_VERSION_MAJOR >= 6
#define PITOT_GPU_HIP_BF16 1
#include <hip/hip_bf16.h>
#else
#define PITOT_GPU_HIP_BF16 0
#include <hip/hip_bfloat16.h>
#endif
#include <pitot/hip.hpp>
#define PITOT_GPU_NAMESPACE hip
#elif defined(__CUDACC__)
#define PITOT_GPU_HIP 0
#define PITOT_GPU_CUDA 1
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <pitot/cuda.hpp>
#define PITOT_GPU_NAMESPACE cuda
#else
#error "<pitot/gpu.hpp> is for GPU sources: compile this file with nvcc (as a .cu file) or with hipcc"
#endif

// Check a runtime call in benchmark code: PITOT_GPU_CHECK(gpuMalloc(&p, bytes)); (gpuMalloc is
// <pitot/gpu_names.hpp>'s; PITOT_GPU_CHECK takes any call of the backend's runtime).
#if PITOT_GPU_HIP
#define PITOT_GPU_CHECK(call) PITOT_HIP_CHECK(call)
#else
#define PITOT_GPU_CHECK(call) PITOT_CUDA_CHECK(call)
#endif

// The helpers below go into the backend's namespace, and pitot::gpu names it: pitot::gpu::shfl_xor,
// and the backend's own pitot::gpu::set_rotations, pitot::gpu::Error, pitot::gpu::device_lost.
namespace pitot {
namespace PITOT_GPU_NAMESPACE {

// 16-bit brain float, with conversions usable on the host and the device.
#if PITOT_GPU_HIP && PITOT_GPU_HIP_BF16
using bfloat16 = __hip_bfloat16;
#elif PITOT_GPU_HIP
using bfloat16 = hip_bfloat16;
#else
using bfloat16 = __nv_bfloat16;
#endif

// Round to nearest even.
__host__ __device__ inline bfloat16 bf16_from_float(float value) {
#if PITOT_GPU_HIP && !PITOT_GPU_HIP_BF16
  return hip_bfloat16(value);
#else
  return __float2bfloat16(value);
#endif
}

__host__ __device__ inline float float_from_bf16(bfloat16 value) {
#if PITOT_GPU_HIP && !PITOT_GPU_HIP_BF16
  return static_cast<float>(value);
#else
  return __bfloat162float(value);
#endif
}

// Lanes of a warp (CUDA: 32) or wavefront (AMD CDNA: 64, RDNA: 32) in device code.
__device__ inline int warp_size() { return warpSize; }

// The value of lane (this lane ^ lane_mask), all lanes taking part. A reduction written for 32
// lanes (offsets 16, 8, ..., 1) stays correct on a 64-lane wavefront: each half reduces alone.
template <class T>
__device__ inline T shfl_xor(T value, int lane_mask) {
#if PITOT_GPU_HIP
  return __shfl_xor(value, lane_mask);
#else
  return __shfl_xor_sync(0xffffffffu, value, lane_mask);
#endif
}

}  // namespace PITOT_GPU_NAMESPACE
namespace gpu = PITOT_GPU_NAMESPACE;
}  // namespace pitot

// The runtime of the backend being built, under <pitot/gpu_names.hpp>'s names, for the backends'
// host code. src/gpu holds what the CUDA and HIP backends share; its sources are compiled into both
// pitot_cuda and pitot_hip, by the plain C++ compiler (gpu.hpp itself wants nvcc or hipcc). A HIP
// target sees __HIP_PLATFORM_AMD__ (cmake/PitotHip.cmake's pitot_hip_runtime sets it); anything
// else is CUDA. What truly differs lives in src/cuda and src/hip, behind the hooks the shared
// headers declare.
#pragma once

#if defined(__HIP_PLATFORM_AMD__)
#define PITOT_GPU_HIP 1
#define PITOT_GPU_CUDA 0
#include <hip/hip_runtime_api.h>
#include <pitot/hip.hpp>
#define PITOT_GPU_NAMESPACE hip
#else
#define PITOT_GPU_HIP 0
#define PITOT_GPU_CUDA 1
#include <cuda_runtime_api.h>
#include <pitot/cuda.hpp>
#define PITOT_GPU_NAMESPACE cuda
#endif

#include <pitot/gpu_names.hpp>

namespace pitot::PITOT_GPU_NAMESPACE {
// The backend's name in results ("cuda", "hip") and the runtime's in messages ("CUDA", "HIP").
inline constexpr const char* kBackendName = PITOT_GPU_CUDA ? "cuda" : "hip";
inline constexpr const char* kRuntimeName = PITOT_GPU_CUDA ? "CUDA" : "HIP";
}  // namespace pitot::PITOT_GPU_NAMESPACE

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_GPU_TRY(call) ::pitot::PITOT_GPU_NAMESPACE::check((call), #call, nullptr, 0)

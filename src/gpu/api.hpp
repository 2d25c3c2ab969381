// The runtime of the backend being built, under <pitot/gpu_names.hpp>'s names, for the backends'
// host code. src/gpu holds what the CUDA and HIP backends share; its sources are compiled into both
// pitot_cuda and pitot_hip, by the plain C++ compiler (gpu.hpp itself wants nvcc or hipcc);
// src/gpu/platform.hpp says which. What truly differs lives in src/cuda and src/hip, behind the
// functions src/gpu/device_ops.hpp and src/gpu/backend.hpp declare.
#pragma once

#include "gpu/platform.hpp"

#if PITOT_GPU_HIP
#include <hip/hip_runtime_api.h>
#include <pitot/hip.hpp>
#else
#include <cuda_runtime_api.h>
#include <pitot/cuda.hpp>
#endif

#include <pitot/gpu_names.hpp>

namespace pitot::PITOT_GPU_NAMESPACE {
// The backend's name in results ("cuda", "hip") and the runtime's in messages ("CUDA", "HIP").
inline constexpr const char* kBackendName = PITOT_GPU_CUDA ? "cuda" : "hip";
inline constexpr const char* kRuntimeName = PITOT_GPU_CUDA ? "CUDA" : "HIP";
}  // namespace pitot::PITOT_GPU_NAMESPACE

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_GPU_TRY(call) ::pitot::PITOT_GPU_NAMESPACE::check((call), #call, nullptr, 0)

// The runtime of the backend being built, under <pitot/gpu.hpp>'s names, for the backends' host
// code. src/gpu holds what the CUDA and HIP backends share; its sources are compiled into both
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
#else
#define PITOT_GPU_HIP 0
#define PITOT_GPU_CUDA 1
#include <cuda_runtime_api.h>
#include <pitot/cuda.hpp>
#endif

// The same definitions as in <pitot/gpu.hpp> (repeating an identical macro is allowed).
#if PITOT_GPU_HIP
#define PITOT_GPU_PREFIX(name) hip##name
#define PITOT_GPU_NAMESPACE hip
#else
#define PITOT_GPU_PREFIX(name) cuda##name
#define PITOT_GPU_NAMESPACE cuda
#endif

#define gpuError_t PITOT_GPU_PREFIX(Error_t)
#define gpuStream_t PITOT_GPU_PREFIX(Stream_t)
#define gpuEvent_t PITOT_GPU_PREFIX(Event_t)
#define gpuGraph_t PITOT_GPU_PREFIX(Graph_t)
#define gpuGraphExec_t PITOT_GPU_PREFIX(GraphExec_t)
#define gpuSuccess PITOT_GPU_PREFIX(Success)
#define gpuStreamNonBlocking PITOT_GPU_PREFIX(StreamNonBlocking)
#define gpuDeviceSynchronize PITOT_GPU_PREFIX(DeviceSynchronize)
#define gpuStreamCreateWithFlags PITOT_GPU_PREFIX(StreamCreateWithFlags)
#define gpuStreamDestroy PITOT_GPU_PREFIX(StreamDestroy)
#define gpuStreamSynchronize PITOT_GPU_PREFIX(StreamSynchronize)
#define gpuGetLastError PITOT_GPU_PREFIX(GetLastError)
#define gpuPeekAtLastError PITOT_GPU_PREFIX(PeekAtLastError)
#define gpuEventCreate PITOT_GPU_PREFIX(EventCreate)
#define gpuEventRecord PITOT_GPU_PREFIX(EventRecord)
#define gpuEventElapsedTime PITOT_GPU_PREFIX(EventElapsedTime)
#define gpuEventDestroy PITOT_GPU_PREFIX(EventDestroy)
// Names gpu.hpp does not map (benchmarks do not need them).
#define gpuGraphDestroy PITOT_GPU_PREFIX(GraphDestroy)
#define gpuGraphExecDestroy PITOT_GPU_PREFIX(GraphExecDestroy)
#define gpuGraphLaunch PITOT_GPU_PREFIX(GraphLaunch)
#define gpuStreamBeginCapture PITOT_GPU_PREFIX(StreamBeginCapture)
#define gpuStreamEndCapture PITOT_GPU_PREFIX(StreamEndCapture)
#define gpuStreamCaptureModeThreadLocal PITOT_GPU_PREFIX(StreamCaptureModeThreadLocal)

namespace pitot::PITOT_GPU_NAMESPACE {
// The backend's name in results ("cuda", "hip") and the runtime's in messages ("CUDA", "HIP").
inline constexpr const char* kBackendName = PITOT_GPU_CUDA ? "cuda" : "hip";
inline constexpr const char* kRuntimeName = PITOT_GPU_CUDA ? "CUDA" : "HIP";
}  // namespace pitot::PITOT_GPU_NAMESPACE

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_GPU_TRY(call) ::pitot::PITOT_GPU_NAMESPACE::check((call), #call, nullptr, 0)

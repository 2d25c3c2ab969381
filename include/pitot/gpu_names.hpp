// Opt-in: the runtime calls under one spelling, gpuMalloc, gpuMemcpyAsync, gpuStream_t, ...
// (cudaMalloc or hipMalloc underneath), for sources written once for NVIDIA and AMD:
//
//   #include <pitot/pitot.hpp>
//   #include <pitot/gpu.hpp>
//   #include <pitot/gpu_names.hpp>   // this header: defines about 70 unprefixed gpu* macros
//
// They are macros without the PITOT_ prefix, so only the files that include this header get them
// (<pitot/gpu.hpp> does not: docs/DESIGN.md, "The public API"). Macros only, no runtime header,
// so the backends' host code (src/gpu/api.hpp, the plain C++ compiler) shares the list: it defines
// PITOT_GPU_HIP (1 or 0) before including it. In a kernel source that has not, this header
// includes <pitot/gpu.hpp> first.
#pragma once

#if !defined(PITOT_GPU_HIP)
#include <pitot/gpu.hpp>
#endif

#if PITOT_GPU_HIP
#define PITOT_GPU_PREFIX(name) hip##name
#else
#define PITOT_GPU_PREFIX(name) cuda##name
#endif

// Types.
#define gpuError_t PITOT_GPU_PREFIX(Error_t)
#define gpuStream_t PITOT_GPU_PREFIX(Stream_t)
#define gpuEvent_t PITOT_GPU_PREFIX(Event_t)
#define gpuGraph_t PITOT_GPU_PREFIX(Graph_t)
#define gpuGraphExec_t PITOT_GPU_PREFIX(GraphExec_t)
#if PITOT_GPU_HIP
#define gpuDeviceProp_t hipDeviceProp_t
#else
#define gpuDeviceProp_t cudaDeviceProp
#endif

// Constants.
#define gpuSuccess PITOT_GPU_PREFIX(Success)
#define gpuErrorNotReady PITOT_GPU_PREFIX(ErrorNotReady)
#define gpuMemcpyHostToDevice PITOT_GPU_PREFIX(MemcpyHostToDevice)
#define gpuMemcpyDeviceToHost PITOT_GPU_PREFIX(MemcpyDeviceToHost)
#define gpuMemcpyDeviceToDevice PITOT_GPU_PREFIX(MemcpyDeviceToDevice)
#define gpuMemcpyDefault PITOT_GPU_PREFIX(MemcpyDefault)
#define gpuStreamNonBlocking PITOT_GPU_PREFIX(StreamNonBlocking)
#define gpuEventDefault PITOT_GPU_PREFIX(EventDefault)
#define gpuEventDisableTiming PITOT_GPU_PREFIX(EventDisableTiming)

// Memory.
#define gpuMalloc PITOT_GPU_PREFIX(Malloc)
#define gpuFree PITOT_GPU_PREFIX(Free)
#define gpuMemcpy PITOT_GPU_PREFIX(Memcpy)
#define gpuMemcpyAsync PITOT_GPU_PREFIX(MemcpyAsync)
#define gpuMemcpy2D PITOT_GPU_PREFIX(Memcpy2D)
#define gpuMemcpy2DAsync PITOT_GPU_PREFIX(Memcpy2DAsync)
#define gpuMemset PITOT_GPU_PREFIX(Memset)
#define gpuMemsetAsync PITOT_GPU_PREFIX(MemsetAsync)
#define gpuMemGetInfo PITOT_GPU_PREFIX(MemGetInfo)
#if PITOT_GPU_HIP
#define gpuMallocHost(ptr, bytes) hipHostMalloc((ptr), (bytes), hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#else
#define gpuMallocHost cudaMallocHost
#define gpuFreeHost cudaFreeHost
#endif

// Devices, streams, errors.
#define gpuGetDevice PITOT_GPU_PREFIX(GetDevice)
#define gpuSetDevice PITOT_GPU_PREFIX(SetDevice)
#define gpuGetDeviceCount PITOT_GPU_PREFIX(GetDeviceCount)
#define gpuGetDeviceProperties PITOT_GPU_PREFIX(GetDeviceProperties)
#define gpuDeviceGetAttribute PITOT_GPU_PREFIX(DeviceGetAttribute)
#define gpuDeviceSynchronize PITOT_GPU_PREFIX(DeviceSynchronize)
#define gpuStreamCreate PITOT_GPU_PREFIX(StreamCreate)
#define gpuStreamCreateWithFlags PITOT_GPU_PREFIX(StreamCreateWithFlags)
#define gpuStreamDestroy PITOT_GPU_PREFIX(StreamDestroy)
#define gpuStreamSynchronize PITOT_GPU_PREFIX(StreamSynchronize)
#define gpuGetLastError PITOT_GPU_PREFIX(GetLastError)
#define gpuPeekAtLastError PITOT_GPU_PREFIX(PeekAtLastError)
#define gpuGetErrorString PITOT_GPU_PREFIX(GetErrorString)
#define gpuGetErrorName PITOT_GPU_PREFIX(GetErrorName)

// Events.
#define gpuEventCreate PITOT_GPU_PREFIX(EventCreate)
#define gpuEventCreateWithFlags PITOT_GPU_PREFIX(EventCreateWithFlags)
#define gpuEventRecord PITOT_GPU_PREFIX(EventRecord)
#define gpuEventSynchronize PITOT_GPU_PREFIX(EventSynchronize)
#define gpuEventQuery PITOT_GPU_PREFIX(EventQuery)
#define gpuEventElapsedTime PITOT_GPU_PREFIX(EventElapsedTime)
#define gpuEventDestroy PITOT_GPU_PREFIX(EventDestroy)

// Device attributes (the enumerators are spelled differently by the two runtimes).
#if PITOT_GPU_HIP
#define gpuDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define gpuDevAttrL2CacheSize hipDeviceAttributeL2CacheSize
#define gpuDevAttrMaxSharedMemoryPerBlock hipDeviceAttributeMaxSharedMemoryPerBlock
#define gpuDevAttrClockRate hipDeviceAttributeClockRate
#define gpuDevAttrWarpSize hipDeviceAttributeWarpSize
#define gpuDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor  // gfx version: 9(.4) on gfx942
#define gpuDevAttrComputeCapabilityMinor hipDeviceAttributeComputeCapabilityMinor
#else
#define gpuDevAttrMultiProcessorCount cudaDevAttrMultiProcessorCount
#define gpuDevAttrL2CacheSize cudaDevAttrL2CacheSize
#define gpuDevAttrMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define gpuDevAttrClockRate cudaDevAttrClockRate
#define gpuDevAttrWarpSize cudaDevAttrWarpSize
#define gpuDevAttrComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define gpuDevAttrComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#endif

// Graphs and stream capture (the backends' graph mode).
#define gpuGraphDestroy PITOT_GPU_PREFIX(GraphDestroy)
#define gpuGraphExecDestroy PITOT_GPU_PREFIX(GraphExecDestroy)
#define gpuGraphLaunch PITOT_GPU_PREFIX(GraphLaunch)
#define gpuStreamBeginCapture PITOT_GPU_PREFIX(StreamBeginCapture)
#define gpuStreamEndCapture PITOT_GPU_PREFIX(StreamEndCapture)
#define gpuStreamCaptureModeThreadLocal PITOT_GPU_PREFIX(StreamCaptureModeThreadLocal)

// pitot::gpu::bfloat16 as gpu_bfloat16 (kernel sources only: <pitot/gpu.hpp> defines it).
#if defined(__CUDACC__) || defined(__HIP__)
using gpu_bfloat16 = ::pitot::gpu::bfloat16;
#endif

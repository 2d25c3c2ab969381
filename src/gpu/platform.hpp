// Which backend this file is built for: PITOT_GPU_HIP, PITOT_GPU_CUDA and the backend's namespace.
// A HIP target sees __HIP_PLATFORM_AMD__ (hipcc, or cmake/PitotHip.cmake's pitot_hip_runtime for
// plain C++); anything else is CUDA. No runtime header here, so the kernels' sources (nvcc, hipcc)
// can include it; src/gpu/api.hpp adds the runtime.
#pragma once

#if defined(__HIP_PLATFORM_AMD__)
#define PITOT_GPU_HIP 1
#define PITOT_GPU_CUDA 0
#define PITOT_GPU_NAMESPACE hip
#else
#define PITOT_GPU_HIP 0
#define PITOT_GPU_CUDA 1
#define PITOT_GPU_NAMESPACE cuda
#endif

// Kernels of test_hip_gpu, behind host functions: the test itself is plain C++ (Debian's hipcc,
// clang 15, crashes on GoogleTest's headers in C++20 mode).
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstdint>

hipError_t launch_empty(hipStream_t stream);
hipError_t launch_copy(const float* in, float* out, std::int64_t n, hipStream_t stream);
hipError_t launch_record_rotation(int* seen, int rotation, hipStream_t stream);

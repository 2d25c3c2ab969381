// Kernels the GPU tests launch (compiled by nvcc; the tests are plain C++).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

void launch_copy(const float* in, float* out, std::int64_t n, cudaStream_t stream);
void launch_empty(cudaStream_t stream);
void launch_too_many_threads(cudaStream_t stream);  // an invalid configuration: not sticky
void launch_illegal_write(cudaStream_t stream);     // a sticky error

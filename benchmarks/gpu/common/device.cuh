// What every GPU benchmark of the suite needs around its kernel: device arrays freed when the point
// ends, random fills (never zeros: a kernel that writes nothing would pass), and copies of a few rows
// back to the host for the CPU reference.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <pitot/cuda.hpp>

#include "numerics.hpp"

namespace suite {

// `count` elements of T in device memory, owned.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::int64_t count) : count_(count) {
    PITOT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return data_; }
  std::int64_t size() const { return count_; }
  std::size_t bytes() const { return static_cast<std::size_t>(count_) * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::int64_t count_;
};

// Uniform values in [lo, hi), element i = uniform_at(seed, i, lo, hi) rounded to the type.
void fill_uniform(float* data, std::int64_t n, float lo, float hi, std::uint64_t seed);
void fill_uniform(__nv_bfloat16* data, std::int64_t n, float lo, float hi, std::uint64_t seed);
// FP8 codes (E4M3 or E5M2, saturating) of uniform values in [lo, hi).
void fill_uniform_fp8(std::uint8_t* data, std::int64_t n, float lo, float hi, Fp8 format, std::uint64_t seed);
// Every element set to `value` (scales, small constants).
void fill_value(float* data, std::int64_t n, float value);

// Copy to the host (synchronous; setup only).
template <class T>
std::vector<T> to_host(const T* device, std::int64_t count) {
  std::vector<T> host(static_cast<std::size_t>(count));
  PITOT_CUDA_CHECK(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// The chosen rows of a row-major [*, cols] device matrix, one after the other.
template <class T>
std::vector<T> rows_to_host(const T* matrix, std::int64_t cols, std::span<const std::int64_t> rows) {
  std::vector<T> host(rows.size() * static_cast<std::size_t>(cols));
  for (std::size_t i = 0; i < rows.size(); ++i)
    PITOT_CUDA_CHECK(cudaMemcpy(host.data() + i * cols, matrix + rows[i] * cols, cols * sizeof(T),
                                cudaMemcpyDeviceToHost));
  return host;
}

// `rows` rows of `cols` elements, each `row_stride` elements after the previous one, starting at
// `first` (a column block of a wider matrix, or one head of a [tokens, heads, dim] tensor).
template <class T>
std::vector<T> strided_rows_to_host(const T* first, std::int64_t cols, std::int64_t row_stride, std::int64_t rows) {
  std::vector<T> host(static_cast<std::size_t>(rows * cols));
  PITOT_CUDA_CHECK(cudaMemcpy2D(host.data(), cols * sizeof(T), first, row_stride * sizeof(T), cols * sizeof(T),
                                static_cast<std::size_t>(rows), cudaMemcpyDeviceToHost));
  return host;
}

// Host copies decoded to float for the references.
std::vector<float> decode(const std::vector<__nv_bfloat16>& values);
std::vector<float> decode(const std::vector<std::uint8_t>& values, Fp8 format);
std::vector<double> widen(const std::vector<float>& values);

// Compute capability of the current device as 10 * major + minor (90 for an H100/H200).
int compute_capability();
int multiprocessor_count();

}  // namespace suite

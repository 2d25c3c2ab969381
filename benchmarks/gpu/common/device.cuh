// What every GPU benchmark of the suite needs around its kernel: device arrays freed when the point
// ends, random fills (never zeros: a kernel that writes nothing would pass), and copies of a few rows
// back to the host for the CPU reference. Portable: compiled by nvcc and by hipcc (<pitot/gpu.hpp>);
// the suite's sources get the gpu* runtime names from here (<pitot/gpu_names.hpp>).
#pragma once

#include <pitot/gpu.hpp>
#include <pitot/gpu_names.hpp>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "numerics.hpp"

namespace suite {

// `count` elements of T in device memory, owned.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::int64_t count) : count_(count) {
    PITOT_GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceArray() { (void)gpuFree(data_); }
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
void fill_uniform(gpu_bfloat16* data, std::int64_t n, float lo, float hi, std::uint64_t seed);
// FP8 codes (E4M3 or E5M2, saturating) of uniform values in [lo, hi): CUDA's conversion under nvcc,
// encode_fp8 (the same bits, in software) under hipcc.
void fill_uniform_fp8(std::uint8_t* data, std::int64_t n, float lo, float hi, Fp8 format, std::uint64_t seed);
// Every element set to `value` (scales, small constants).
void fill_value(float* data, std::int64_t n, float value);

// Copy to the host (synchronous; setup only).
template <class T>
std::vector<T> to_host(const T* device, std::int64_t count) {
  std::vector<T> host(static_cast<std::size_t>(count));
  PITOT_GPU_CHECK(gpuMemcpy(host.data(), device, host.size() * sizeof(T), gpuMemcpyDeviceToHost));
  return host;
}

// The chosen rows of `cols` elements, row r at first + r * row_stride, one after the other.
template <class T>
std::vector<T> picked_rows_to_host(const T* first, std::int64_t cols, std::int64_t row_stride,
                                   std::span<const std::int64_t> rows) {
  std::vector<T> host(rows.size() * static_cast<std::size_t>(cols));
  for (std::size_t i = 0; i < rows.size(); ++i)
    PITOT_GPU_CHECK(gpuMemcpy(host.data() + i * cols, first + rows[i] * row_stride, cols * sizeof(T),
                              gpuMemcpyDeviceToHost));
  return host;
}

// The chosen rows of a row-major [*, cols] device matrix, one after the other.
template <class T>
std::vector<T> rows_to_host(const T* matrix, std::int64_t cols, std::span<const std::int64_t> rows) {
  return picked_rows_to_host(matrix, cols, cols, rows);
}

// `rows` rows of `cols` elements, each `row_stride` elements after the previous one, starting at
// `first` (a column block of a wider matrix, or one head of a [tokens, heads, dim] tensor).
template <class T>
std::vector<T> strided_rows_to_host(const T* first, std::int64_t cols, std::int64_t row_stride, std::int64_t rows) {
  std::vector<T> host(static_cast<std::size_t>(rows * cols));
  PITOT_GPU_CHECK(gpuMemcpy2D(host.data(), cols * sizeof(T), first, row_stride * sizeof(T), cols * sizeof(T),
                              static_cast<std::size_t>(rows), gpuMemcpyDeviceToHost));
  return host;
}

// Host copies decoded to float for the references.
std::vector<float> decode(const std::vector<gpu_bfloat16>& values);
std::vector<float> decode(const std::vector<std::uint8_t>& values, Fp8 format);
std::vector<double> widen(const std::vector<float>& values);

// Compute capability of the current device as 10 * major + minor (90 for an H100/H200); on AMD,
// the gfx version the same way (94 for gfx942), which is no NVIDIA compute capability.
int compute_capability();
int multiprocessor_count();

}  // namespace suite

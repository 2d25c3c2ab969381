// Copies and an empty kernel: the work pitot's CUDA timing is checked on (docs/results/).
// Read this file as a how-to for GPU benchmarks: untimed setup, state.exec with pitot::Launch,
// bytes for GB/s.
#include <pitot/pitot.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace {

// Device memory freed when the point ends.
struct DeviceFloats {
  explicit DeviceFloats(std::int64_t n) : count(n) {
    PITOT_CUDA_CHECK(cudaMalloc(&data, static_cast<std::size_t>(n) * sizeof(float)));
  }
  ~DeviceFloats() { cudaFree(data); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* data = nullptr;
  std::int64_t count;
};

__global__ void fill_pattern(float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(i % 1021) * 0.5f + 1.0f;  // never zeros
}

__global__ void copy_one_float_per_thread(const float* in, float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void do_nothing() {}

constexpr int kBlock = 256;
unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// Source filled, destination allocated.
struct CopyBuffers {
  explicit CopyBuffers(std::int64_t n) : in(n), out(n) {
    fill_pattern<<<blocks_for(in.count), kBlock>>>(in.data, in.count);
    PITOT_CUDA_CHECK(cudaGetLastError());
  }
  DeviceFloats in, out;
};

// One copy of n floats: n items, 2 * 4 * n bytes (read + write).
std::int64_t count_copy_work(pitot::State& state) {
  const std::int64_t n = state.get_int("n");
  state.add_items(static_cast<double>(n));
  state.add_bytes(2.0 * sizeof(float) * static_cast<double>(n));
  return n;
}

void memcpy_d2d(pitot::State& state) {
  CopyBuffers b(count_copy_work(state));
  const std::size_t bytes = static_cast<std::size_t>(b.in.count) * sizeof(float);
  state.exec([&](pitot::Launch& l) {
    PITOT_CUDA_CHECK(cudaMemcpyAsync(b.out.data, b.in.data, bytes, cudaMemcpyDeviceToDevice, l.stream()));
  });
}
PITOT_BENCHMARK(memcpy_d2d).axis_pow2("n", {16, 22, 28});

void copy_kernel(pitot::State& state) {
  CopyBuffers b(count_copy_work(state));
  state.exec([&](pitot::Launch& l) {
    copy_one_float_per_thread<<<blocks_for(b.in.count), kBlock, 0, l.stream()>>>(b.in.data, b.out.data, b.in.count);
  });
}
PITOT_BENCHMARK(copy_kernel).axis_pow2("n", {16, 22, 28});

// The same copies over 8 buffer pairs in rotation (pitot::cuda::set_rotations): each launch uses
// the next pair, so the sample averages over 8 placements in device memory instead of one.
// Compared with the single-pair versions to tell placement effects from timing noise (NOTES.md).
constexpr int kPairs = 8;
std::vector<std::unique_ptr<CopyBuffers>> rotating_buffers(pitot::State& state) {
  const std::int64_t n = count_copy_work(state);  // one launch copies one pair
  std::vector<std::unique_ptr<CopyBuffers>> pairs;
  for (int i = 0; i < kPairs; ++i) pairs.push_back(std::make_unique<CopyBuffers>(n));
  pitot::cuda::set_rotations(state, kPairs);
  return pairs;
}

void memcpy_d2d_rotated(pitot::State& state) {
  auto pairs = rotating_buffers(state);
  const std::size_t bytes = static_cast<std::size_t>(pairs[0]->in.count) * sizeof(float);
  state.exec([&](pitot::Launch& l) {
    const CopyBuffers& b = *pairs[static_cast<std::size_t>(l.rotation())];
    PITOT_CUDA_CHECK(cudaMemcpyAsync(b.out.data, b.in.data, bytes, cudaMemcpyDeviceToDevice, l.stream()));
  });
}
PITOT_BENCHMARK(memcpy_d2d_rotated).axis_pow2("n", {16, 22});

void copy_kernel_rotated(pitot::State& state) {
  auto pairs = rotating_buffers(state);
  state.exec([&](pitot::Launch& l) {
    const CopyBuffers& b = *pairs[static_cast<std::size_t>(l.rotation())];
    copy_one_float_per_thread<<<blocks_for(b.in.count), kBlock, 0, l.stream()>>>(b.in.data, b.out.data, b.in.count);
  });
}
PITOT_BENCHMARK(copy_kernel_rotated).axis_pow2("n", {16, 22});

void empty_kernel(pitot::State& state) {
  state.exec([](pitot::Launch& l) { do_nothing<<<1, 1, 0, l.stream()>>>(); });
}
PITOT_BENCHMARK(empty_kernel);

}  // namespace

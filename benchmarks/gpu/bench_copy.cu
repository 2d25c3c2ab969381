// Copies and an empty kernel: the work pitot's CUDA timing is checked on (docs/results/).
// Read this file as a how-to for GPU benchmarks: untimed setup, state.exec with pitot::Launch,
// bytes for GB/s.
#include <pitot/pitot.hpp>

#include <cstdint>

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

// Source filled, destination allocated; the copy moves 2 * 4 * n bytes (read + write).
struct CopyBuffers {
  explicit CopyBuffers(pitot::State& state) : in(state.get_int("n")), out(state.get_int("n")) {
    fill_pattern<<<blocks_for(in.count), kBlock>>>(in.data, in.count);
    PITOT_CUDA_CHECK(cudaGetLastError());
    state.add_items(static_cast<double>(in.count));
    state.add_bytes(2.0 * sizeof(float) * static_cast<double>(in.count));
  }
  DeviceFloats in, out;
};

void memcpy_d2d(pitot::State& state) {
  CopyBuffers b(state);
  const std::size_t bytes = static_cast<std::size_t>(b.in.count) * sizeof(float);
  state.exec([&](pitot::Launch& l) {
    PITOT_CUDA_CHECK(cudaMemcpyAsync(b.out.data, b.in.data, bytes, cudaMemcpyDeviceToDevice, l.stream()));
  });
}
PITOT_BENCHMARK(memcpy_d2d).axis_pow2("n", {16, 22, 28});

void copy_kernel(pitot::State& state) {
  CopyBuffers b(state);
  state.exec([&](pitot::Launch& l) {
    copy_one_float_per_thread<<<blocks_for(b.in.count), kBlock, 0, l.stream()>>>(b.in.data, b.out.data, b.in.count);
  });
}
PITOT_BENCHMARK(copy_kernel).axis_pow2("n", {16, 22, 28});

void empty_kernel(pitot::State& state) {
  state.exec([](pitot::Launch& l) { do_nothing<<<1, 1, 0, l.stream()>>>(); });
}
PITOT_BENCHMARK(empty_kernel);

}  // namespace

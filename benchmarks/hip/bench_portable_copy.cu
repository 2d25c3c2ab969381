// One source, two vendors: compiled by nvcc it runs on pitot's CUDA backend, compiled by hipcc on
// the HIP backend. Read it as a how-to for portable benchmarks: <pitot/gpu.hpp>, gpu* runtime
// calls, PITOT_GPU_CHECK, and <<<...>>> launches on l.stream().
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>
#include <pitot/gpu_names.hpp>

#include <cstdint>

namespace {

// `count` elements of T in device memory, freed when the point ends.
template <class T>
struct DeviceArray {
  explicit DeviceArray(std::int64_t n) : count(n) {
    PITOT_GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&data), static_cast<std::size_t>(n) * sizeof(T)));
  }
  ~DeviceArray() { (void)gpuFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data = nullptr;
  std::int64_t count;
};

constexpr int kBlock = 256;
unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

__global__ void fill_pattern(float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(i % 1021) * 0.5f + 1.0f;  // never zeros
}

__global__ void copy_floats(const float* in, float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void to_bf16(const float* in, gpu_bfloat16* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = pitot::gpu::bf16_from_float(in[i]);
}

// Sum of each warp's (wavefront's) values with shuffles, one atomic per warp: the warp is 32 lanes
// on NVIDIA and 64 on AMD's data-center GPUs, which warp_size() hides.
__global__ void sum_floats(const float* in, float* total, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  const int lanes = pitot::gpu::warp_size();
  for (int offset = lanes / 2; offset > 0; offset /= 2) v += pitot::gpu::shfl_xor(v, offset);
  if (threadIdx.x % lanes == 0) atomicAdd(total, v);
}

// Source filled, destination allocated; bytes and items of one pass.
struct Buffers {
  Buffers(pitot::State& state, double bytes_per_element)
      : in(state.get_int("n")), out(state.get_int("n")) {
    fill_pattern<<<blocks_for(in.count), kBlock>>>(in.data, in.count);
    PITOT_GPU_CHECK(gpuGetLastError());
    state.add_items(static_cast<double>(in.count));
    state.add_bytes(bytes_per_element * static_cast<double>(in.count));
  }
  DeviceArray<float> in, out;
};

void memcpy_d2d(pitot::State& state) {
  Buffers b(state, 2.0 * sizeof(float));
  const std::size_t bytes = static_cast<std::size_t>(b.in.count) * sizeof(float);
  state.exec([&](pitot::Launch& l) {
    PITOT_GPU_CHECK(gpuMemcpyAsync(b.out.data, b.in.data, bytes, gpuMemcpyDeviceToDevice, l.stream()));
  });
}
PITOT_BENCHMARK(memcpy_d2d).axis_pow2("n", {16, 22, 28});

void copy_kernel(pitot::State& state) {
  Buffers b(state, 2.0 * sizeof(float));
  state.exec([&](pitot::Launch& l) {
    copy_floats<<<blocks_for(b.in.count), kBlock, 0, l.stream()>>>(b.in.data, b.out.data, b.in.count);
  });
}
PITOT_BENCHMARK(copy_kernel).axis_pow2("n", {16, 22, 28});

void cast_to_bf16(pitot::State& state) {
  Buffers b(state, sizeof(float) + sizeof(gpu_bfloat16));
  DeviceArray<gpu_bfloat16> out(b.in.count);
  state.exec([&](pitot::Launch& l) {
    to_bf16<<<blocks_for(b.in.count), kBlock, 0, l.stream()>>>(b.in.data, out.data, b.in.count);
  });
}
PITOT_BENCHMARK(cast_to_bf16).axis_pow2("n", {16, 22, 28});

void sum(pitot::State& state) {
  Buffers b(state, sizeof(float));
  DeviceArray<float> total(1);
  state.exec([&](pitot::Launch& l) {
    PITOT_GPU_CHECK(gpuMemsetAsync(total.data, 0, sizeof(float), l.stream()));
    sum_floats<<<blocks_for(b.in.count), kBlock, 0, l.stream()>>>(b.in.data, total.data, b.in.count);
  });
}
PITOT_BENCHMARK(sum).axis_pow2("n", {16, 22, 28});

}  // namespace

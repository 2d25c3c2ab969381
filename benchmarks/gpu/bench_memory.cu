// Memory bandwidth: the ceiling every other result of the suite is read against.
//   copy:   out = in                 (2 bytes moved per byte of array)
//   triad:  a = b + s * c            (STREAM's triad, 3 per byte)
//   memcpy: cudaMemcpyAsync (hipMemcpyAsync) device to device, the driver's own copy, for comparison
// over arrays of 1 MiB (inside the L2) to 1 GiB (far beyond it). The timing mode comes from the
// command line: --timing cold (the default) flushes the L2 before every launch, so every size
// measures DRAM; --timing hot launches back to back, so the small sizes show the L2.
// Portable: built by nvcc and by hipcc (<pitot/gpu.hpp>).
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>
#include <pitot/gpu_names.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "device.cuh"

namespace {

using suite::DeviceArray;

constexpr int kBlock = 256;
constexpr int kUnroll = 4;  // float4 loads per thread, all issued before the first store
constexpr std::int64_t kTile = std::int64_t{kBlock} * kUnroll;

unsigned tiles_for(std::int64_t n4) { return static_cast<unsigned>((n4 + kTile - 1) / kTile); }

// Each block copies kTile consecutive float4 (16 KiB): loads first, so 64 bytes per thread are in flight.
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, std::int64_t n4) {
  const std::int64_t base = blockIdx.x * kTile + threadIdx.x;
  float4 v[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u)
    if (base + u * kBlock < n4) v[u] = in[base + u * kBlock];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u)
    if (base + u * kBlock < n4) out[base + u * kBlock] = v[u];
}

__device__ float4 triad_of(float4 b, float s, float4 c) {
  // Explicit fma so the check below computes the very same numbers.
  return make_float4(__fmaf_rn(s, c.x, b.x), __fmaf_rn(s, c.y, b.y), __fmaf_rn(s, c.z, b.z), __fmaf_rn(s, c.w, b.w));
}

__global__ void triad_kernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                             float s, std::int64_t n4) {
  const std::int64_t base = blockIdx.x * kTile + threadIdx.x;
  float4 vb[kUnroll], vc[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u)
    if (base + u * kBlock < n4) {
      vb[u] = b[base + u * kBlock];
      vc[u] = c[base + u * kBlock];
    }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u)
    if (base + u * kBlock < n4) a[base + u * kBlock] = triad_of(vb[u], s, vc[u]);
}

// The check: a plain one-element-per-thread kernel recomputes every element and records how many
// differ and the first that does (results are exact: a copy, or the same fma).
struct Mismatches {
  unsigned long long count;
  unsigned long long first;
};

__global__ void find_mismatches(const float* got, const float* b, const float* c, float s, bool is_triad,
                                std::int64_t n, Mismatches* out) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const float want = is_triad ? __fmaf_rn(s, c[i], b[i]) : b[i];
    if (got[i] != want) {
      atomicAdd(&out->count, 1ull);
      atomicMin(&out->first, static_cast<unsigned long long>(i));
    }
  }
}

// Throws when `got` differs from the copy of b (or from b + s * c), naming how many elements do.
void check_all(const char* what, const float* got, const float* b, const float* c, float s, std::int64_t n) {
  DeviceArray<Mismatches> result(1);
  const Mismatches none{0, ~0ull};
  PITOT_GPU_CHECK(gpuMemcpy(result.get(), &none, sizeof none, gpuMemcpyHostToDevice));
  find_mismatches<<<1024, kBlock>>>(got, b, c, s, c != nullptr, n, result.get());
  PITOT_GPU_CHECK(gpuGetLastError());
  const Mismatches m = suite::to_host(result.get(), 1)[0];
  if (m.count == 0) return;
  const auto i = static_cast<std::int64_t>(m.first);
  const float got_i = suite::to_host(got + i, 1)[0];
  throw std::runtime_error(std::string(what) + ": " + std::to_string(m.count) + " of " + std::to_string(n) +
                           " elements wrong, first at " + std::to_string(i) + " (got " + std::to_string(got_i) + ")");
}

// Arrays of `bytes` bytes each, filled with different random values (the output too, so a kernel
// that writes nothing cannot pass).
std::int64_t floats_in(pitot::State& state) {
  const std::int64_t bytes = state.get_int("bytes");
  if (bytes % 16 != 0) throw std::invalid_argument("bytes must be a multiple of 16 (float4), not " + std::to_string(bytes));
  return bytes / static_cast<std::int64_t>(sizeof(float));
}

void copy(pitot::State& state) {
  const std::int64_t n = floats_in(state);
  DeviceArray<float> in(n), out(n);
  suite::fill_uniform(in.get(), n, -1, 1, 1);
  suite::fill_uniform(out.get(), n, -1, 1, 2);
  const auto* in4 = reinterpret_cast<const float4*>(in.get());
  auto* out4 = reinterpret_cast<float4*>(out.get());
  copy_kernel<<<tiles_for(n / 4), kBlock>>>(in4, out4, n / 4);
  PITOT_GPU_CHECK(gpuGetLastError());
  check_all("copy", out.get(), in.get(), nullptr, 0, n);

  state.add_bytes(2.0 * static_cast<double>(in.bytes()));
  state.exec([&](pitot::Launch& l) { copy_kernel<<<tiles_for(n / 4), kBlock, 0, l.stream()>>>(in4, out4, n / 4); });
}
PITOT_BENCHMARK(copy).axis_pow2("bytes", {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});

void triad(pitot::State& state) {
  const std::int64_t n = floats_in(state);
  const float s = 1.5f;
  DeviceArray<float> a(n), b(n), c(n);
  suite::fill_uniform(a.get(), n, -1, 1, 3);
  suite::fill_uniform(b.get(), n, -1, 1, 4);
  suite::fill_uniform(c.get(), n, -1, 1, 5);
  auto* a4 = reinterpret_cast<float4*>(a.get());
  const auto* b4 = reinterpret_cast<const float4*>(b.get());
  const auto* c4 = reinterpret_cast<const float4*>(c.get());
  triad_kernel<<<tiles_for(n / 4), kBlock>>>(a4, b4, c4, s, n / 4);
  PITOT_GPU_CHECK(gpuGetLastError());
  check_all("triad", a.get(), b.get(), c.get(), s, n);

  state.add_bytes(3.0 * static_cast<double>(a.bytes()));
  state.exec([&](pitot::Launch& l) { triad_kernel<<<tiles_for(n / 4), kBlock, 0, l.stream()>>>(a4, b4, c4, s, n / 4); });
}
PITOT_BENCHMARK(triad).axis_pow2("bytes", {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});

void memcpy_async(pitot::State& state) {
  const std::int64_t n = floats_in(state);
  DeviceArray<float> in(n), out(n);
  suite::fill_uniform(in.get(), n, -1, 1, 6);
  suite::fill_uniform(out.get(), n, -1, 1, 7);
  PITOT_GPU_CHECK(gpuMemcpy(out.get(), in.get(), in.bytes(), gpuMemcpyDeviceToDevice));
  check_all("memcpy", out.get(), in.get(), nullptr, 0, n);

  state.add_bytes(2.0 * static_cast<double>(in.bytes()));
  state.exec([&](pitot::Launch& l) {
    PITOT_GPU_CHECK(gpuMemcpyAsync(out.get(), in.get(), in.bytes(), gpuMemcpyDeviceToDevice, l.stream()));
  });
}
PITOT_BENCHMARK(memcpy_async).axis_pow2("bytes", {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});

}  // namespace

// FP8 casts with current scaling, as FP8 training and inference do them per tensor:
//   to_fp8:   amax = max |x| over the bf16 tensor, scale = fp8_max / amax, q = fp8(x * scale)
//             (and scale_inv = 1 / scale kept for the way back): two kernels, x read twice
//   from_fp8: y = bf16(float(q) * scale_inv)
// for E4M3 and E5M2 over [tokens, hidden] activations of the shape table. Memory-bound: read the
// GB/s against the copy ceiling of bench_memory.
// Portable: built by nvcc and by hipcc (<pitot/gpu.hpp>). Under nvcc the conversions are CUDA's
// FP8 instructions; under hipcc they are suite::encode_fp8/decode_fp8 in software, the same OCP
// codes bit for bit (ROCm 5 has no FP8 types, and MI300's hardware FP8 is the FNUZ variant), so on
// AMD this program measures a software conversion (docs/suite.md).
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>
#include <pitot/gpu_names.hpp>

#if PITOT_GPU_CUDA
#include <cuda_fp8.h>
#endif

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "device.cuh"
#include "reference.hpp"
#include "shapes.hpp"

namespace {

using suite::DeviceArray;
using suite::Fp8;

constexpr int kBlock = 256;
constexpr int kBlocksPerSm = 8;  // 2048 threads: a full H100/H200 SM (and an MI300 CU)

// The vendor-specific part: 8 bf16 (16 bytes) and 8 FP8 codes (8 bytes) per access, and the
// conversions between them.
#if PITOT_GPU_CUDA
struct alignas(16) Bf16x8 {
  __nv_bfloat162 pair[4];
};
struct alignas(8) Fp8x8 {
  __nv_fp8x2_storage_t pair[4];
};

__device__ __nv_fp8_interpretation_t interpretation(bool e4m3) { return e4m3 ? __NV_E4M3 : __NV_E5M2; }

__device__ float max_abs(float m, const Bf16x8& v) {
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const float2 f = __bfloat1622float2(v.pair[p]);
    m = fmaxf(m, fmaxf(fabsf(f.x), fabsf(f.y)));
  }
  return m;
}

__device__ Fp8x8 to_fp8(const Bf16x8& v, float scale, bool e4m3) {
  Fp8x8 out;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const float2 f = __bfloat1622float2(v.pair[p]);
    out.pair[p] = __nv_cvt_float2_to_fp8x2(make_float2(f.x * scale, f.y * scale), __NV_SATFINITE, interpretation(e4m3));
  }
  return out;
}

__device__ Bf16x8 from_fp8(const Fp8x8& v, float s, bool e4m3) {
  Bf16x8 out;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const float2 f = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(v.pair[p], interpretation(e4m3))));
    out.pair[p] = __floats2bfloat162_rn(f.x * s, f.y * s);
  }
  return out;
}
#else
struct alignas(16) Bf16x8 {
  gpu_bfloat16 value[8];
};
struct alignas(8) Fp8x8 {
  std::uint8_t value[8];
};

__device__ float max_abs(float m, const Bf16x8& v) {
#pragma unroll
  for (int e = 0; e < 8; ++e) m = fmaxf(m, fabsf(pitot::gpu::float_from_bf16(v.value[e])));
  return m;
}

__device__ Fp8x8 to_fp8(const Bf16x8& v, float scale, bool e4m3) {
  const Fp8 format = e4m3 ? Fp8::E4M3 : Fp8::E5M2;
  Fp8x8 out;
#pragma unroll
  for (int e = 0; e < 8; ++e) out.value[e] = suite::encode_fp8(pitot::gpu::float_from_bf16(v.value[e]) * scale, format);
  return out;
}

__device__ Bf16x8 from_fp8(const Fp8x8& v, float s, bool e4m3) {
  const Fp8 format = e4m3 ? Fp8::E4M3 : Fp8::E5M2;
  Bf16x8 out;
#pragma unroll
  for (int e = 0; e < 8; ++e) out.value[e] = pitot::gpu::bf16_from_float(suite::decode_fp8(v.value[e], format) * s);
  return out;
}
#endif

// amax over the tensor: each block reduces its share and merges with one atomic.
// Non-negative floats order like their bit patterns as ints, so atomicMax on the bits is a float max.
__global__ void amax_kernel(const Bf16x8* __restrict__ x, std::int64_t vecs, float* amax) {
  float m = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; i < vecs; i += std::int64_t{gridDim.x} * kBlock) {
    const Bf16x8 v = x[i];  // the whole 16 bytes loaded before any conversion
    m = max_abs(m, v);
  }
  // Per 32 threads (on a 64-lane wavefront each half reduces alone, as on CUDA).
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, pitot::gpu::shfl_xor(m, offset));
  __shared__ float warp_max[kBlock / 32];
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kBlock / 32; ++w) m = fmaxf(m, warp_max[w]);
    atomicMax(reinterpret_cast<int*>(amax), __float_as_int(m));
  }
}

// q = fp8(x * scale), scale = fp8_max / amax computed by every block from the amax above.
__global__ void cast_kernel(const Bf16x8* __restrict__ x, Fp8x8* __restrict__ q, std::int64_t vecs,
                            const float* amax, float fp8_max, bool e4m3, float* scale_inv) {
  const float a = *amax;
  const float scale = a > 0 ? fp8_max / a : 1.0f;
  if (blockIdx.x == 0 && threadIdx.x == 0) *scale_inv = 1.0f / scale;
  for (std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; i < vecs; i += std::int64_t{gridDim.x} * kBlock) {
    const Bf16x8 v = x[i];
    q[i] = to_fp8(v, scale, e4m3);
  }
}

// y = bf16(float(q) * scale_inv).
__global__ void dequantize_kernel(const Fp8x8* __restrict__ q, Bf16x8* __restrict__ y, std::int64_t vecs,
                                  const float* scale_inv, bool e4m3) {
  const float s = *scale_inv;
  for (std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; i < vecs; i += std::int64_t{gridDim.x} * kBlock) {
    const Fp8x8 v = q[i];
    y[i] = from_fp8(v, s, e4m3);
  }
}

// The check's amax: one element per thread, no vectors, no shuffles.
__global__ void simple_amax(const gpu_bfloat16* x, std::int64_t n, float* amax) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i < n) atomicMax(reinterpret_cast<int*>(amax), __float_as_int(fabsf(pitot::gpu::float_from_bf16(x[i]))));
}

unsigned grid_size() { return static_cast<unsigned>(kBlocksPerSm * suite::multiprocessor_count()); }

struct Tensor {
  std::int64_t rows, hidden, elements;
};

Tensor tensor_of(pitot::State& state) {
  const std::int64_t rows = state.get_int("M"), hidden = state.get_int("hidden");
  if (hidden % 8 != 0) throw std::invalid_argument("hidden must be a multiple of 8, not " + std::to_string(hidden));
  return {rows, hidden, rows * hidden};
}

float read_float(const float* device) { return suite::to_host(device, 1)[0]; }

void cast_to_fp8(pitot::State& state) {
  const Fp8 format = suite::fp8_format(state.get_string("format"));
  const bool e4m3 = format == Fp8::E4M3;
  const Tensor t = tensor_of(state);
  DeviceArray<gpu_bfloat16> x(t.elements);
  DeviceArray<std::uint8_t> q(t.elements);
  DeviceArray<float> amax(1), scale_inv(1), check_amax(1);
  suite::fill_uniform(x.get(), t.elements, -3.0f, 3.0f, 21);
  suite::fill_uniform_fp8(q.get(), t.elements, -1.0f, 1.0f, format, 22);
  const auto* x8 = reinterpret_cast<const Bf16x8*>(x.get());
  auto* q8 = reinterpret_cast<Fp8x8*>(q.get());
  const std::int64_t vecs = t.elements / 8;
  const unsigned grid = grid_size();
  const float max = suite::fp8_max(format);
  auto launch = [&](gpuStream_t stream) {
    PITOT_GPU_CHECK(gpuMemsetAsync(amax.get(), 0, sizeof(float), stream));
    amax_kernel<<<grid, kBlock, 0, stream>>>(x8, vecs, amax.get());
    cast_kernel<<<grid, kBlock, 0, stream>>>(x8, q8, vecs, amax.get(), max, e4m3, scale_inv.get());
  };
  launch(nullptr);
  PITOT_GPU_CHECK(gpuGetLastError());

  // amax against the simple kernel, exactly; the scale the cast used follows from it.
  PITOT_GPU_CHECK(gpuMemset(check_amax.get(), 0, sizeof(float)));
  simple_amax<<<static_cast<unsigned>((t.elements + 255) / 256), 256>>>(x.get(), t.elements, check_amax.get());
  PITOT_GPU_CHECK(gpuGetLastError());
  const float want_amax = read_float(check_amax.get());
  const float scale = suite::current_scale(want_amax, format);
  suite::require(suite::compare(std::vector<double>{read_float(amax.get()), read_float(scale_inv.get())},
                                std::vector<double>{want_amax, 1.0f / scale}, 1e-6, 0.0),
                 "amax and scale_inv");
  // A few rows quantized on the CPU: within one FP8 step of x * scale (saturated at fp8_max).
  const auto picked = suite::sample_indices(t.rows, 8);
  const auto xs = suite::decode(suite::rows_to_host(x.get(), t.hidden, picked));
  const auto qs = suite::decode(suite::rows_to_host(q.get(), t.hidden, picked), format);
  std::vector<double> want(xs.size()), step(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float scaled = xs[i] * scale;
    want[i] = std::fmax(-max, std::fmin(max, scaled));
    step[i] = suite::fp8_spacing(scaled, format);
  }
  suite::require(suite::compare(suite::widen(qs), want, 0.0, step), "fp8 output");

  // Memory traffic: x read by both kernels (2 bytes per element each), q written (1 byte).
  state.add_bytes(5.0 * static_cast<double>(t.elements));
  state.add_items(static_cast<double>(t.elements));
  state.exec([&](pitot::Launch& l) { launch(l.stream()); });
}
PITOT_BENCHMARK(cast_to_fp8)
    .axis("format", {"e4m3", "e5m2"})
    .axis("M", suite::token_counts())
    .axis("hidden", suite::hidden_sizes());

void cast_from_fp8(pitot::State& state) {
  const Fp8 format = suite::fp8_format(state.get_string("format"));
  const bool e4m3 = format == Fp8::E4M3;
  const Tensor t = tensor_of(state);
  DeviceArray<std::uint8_t> q(t.elements);
  DeviceArray<gpu_bfloat16> y(t.elements);
  DeviceArray<float> scale_inv(1);
  const float max = suite::fp8_max(format);
  suite::fill_uniform_fp8(q.get(), t.elements, -max, max, format, 31);  // the whole FP8 range
  suite::fill_uniform(y.get(), t.elements, -1.0f, 1.0f, 32);
  const float s = 3.0f / max;  // as if amax were 3
  suite::fill_value(scale_inv.get(), 1, s);
  const auto* q8 = reinterpret_cast<const Fp8x8*>(q.get());
  auto* y8 = reinterpret_cast<Bf16x8*>(y.get());
  const std::int64_t vecs = t.elements / 8;
  const unsigned grid = grid_size();
  dequantize_kernel<<<grid, kBlock>>>(q8, y8, vecs, scale_inv.get(), e4m3);
  PITOT_GPU_CHECK(gpuGetLastError());

  const auto picked = suite::sample_indices(t.rows, 8);
  const auto qs = suite::decode(suite::rows_to_host(q.get(), t.hidden, picked), format);
  const auto ys = suite::decode(suite::rows_to_host(y.get(), t.hidden, picked));
  std::vector<double> want(qs.size());
  for (std::size_t i = 0; i < qs.size(); ++i) want[i] = qs[i] * s;
  suite::require(suite::compare(suite::widen(ys), want, suite::kBf16Rtol, 0.0), "bf16 output");

  state.add_bytes(3.0 * static_cast<double>(t.elements));  // 1 byte read, 2 written
  state.add_items(static_cast<double>(t.elements));
  state.exec([&](pitot::Launch& l) {
    dequantize_kernel<<<grid, kBlock, 0, l.stream()>>>(q8, y8, vecs, scale_inv.get(), e4m3);
  });
}
PITOT_BENCHMARK(cast_from_fp8)
    .axis("format", {"e4m3", "e5m2"})
    .axis("M", suite::token_counts())
    .axis("hidden", suite::hidden_sizes());

}  // namespace

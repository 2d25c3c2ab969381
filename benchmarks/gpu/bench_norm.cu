// RMSNorm and LayerNorm forward over [tokens, hidden] rows: bf16 in and out, fp32 math.
// pitot's own kernels, one block per row, the row held in registers between the reduction and
// the write: each byte is read once and written once, so GB/s is read against the copy ceiling
// (bench_memory). Hidden sizes come from the models of the shape table.
// Portable: built by nvcc and by hipcc (<pitot/gpu.hpp>); only the bf16 packing differs.
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "device.cuh"
#include "reference.hpp"
#include "shapes.hpp"

namespace {

using suite::DeviceArray;

constexpr int kBlock = 256;
constexpr int kVec = 8;               // bf16 values per 16-byte load
constexpr int kMaxVecsPerThread = 8;  // rows up to 256 * 8 * 8 = 16384 values stay in registers
constexpr float kEps = 1e-5f;

#if PITOT_GPU_CUDA
struct alignas(16) Bf16x8 {
  __nv_bfloat162 pair[4];
};

__device__ void unpack(const Bf16x8& in, float (&out)[kVec]) {
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const float2 f = __bfloat1622float2(in.pair[p]);
    out[2 * p] = f.x;
    out[2 * p + 1] = f.y;
  }
}

// Values 2p and 2p + 1 of `out`, rounded to nearest even.
__device__ void pack_pair(Bf16x8& out, int p, float first, float second) {
  out.pair[p] = __floats2bfloat162_rn(first, second);
}
#else
// ROCm 5 has no bf16x2 type: eight scalars, still one 16-byte load or store.
struct alignas(16) Bf16x8 {
  gpu_bfloat16 value[kVec];
};

__device__ void unpack(const Bf16x8& in, float (&out)[kVec]) {
#pragma unroll
  for (int e = 0; e < kVec; ++e) out[e] = pitot::gpu::float_from_bf16(in.value[e]);
}

__device__ void pack_pair(Bf16x8& out, int p, float first, float second) {
  out.value[2 * p] = pitot::gpu::bf16_from_float(first);
  out.value[2 * p + 1] = pitot::gpu::bf16_from_float(second);
}
#endif

// Sum over the block; every thread gets the total. `scratch` holds one float per 32 threads (a warp;
// on a 64-lane wavefront the shuffles below stay within each half, which reduces alone).
__device__ float block_sum(float value, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) value += pitot::gpu::shfl_xor(value, offset);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < kBlock / 32; ++w) total += scratch[w];
  return total;
}

// y = (x - mean) / sqrt(var + eps) * gamma + beta for LayerNorm; x / sqrt(mean(x^2) + eps) * gamma
// for RMSNorm. One block per row of `vecs` Bf16x8.
template <bool kLayerNorm>
__global__ void __launch_bounds__(kBlock) norm_kernel(const Bf16x8* __restrict__ x, const Bf16x8* __restrict__ gamma,
                                                      const Bf16x8* __restrict__ beta, Bf16x8* __restrict__ y,
                                                      int vecs, float eps) {
  __shared__ float scratch[kBlock / 32];
  const std::int64_t row_offset = static_cast<std::int64_t>(blockIdx.x) * vecs;
  const float n = static_cast<float>(vecs) * kVec;
  float v[kMaxVecsPerThread][kVec];
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kMaxVecsPerThread; ++u) {
    const int i = threadIdx.x + u * kBlock;
    if (i < vecs) {
      unpack(x[row_offset + i], v[u]);
#pragma unroll
      for (int e = 0; e < kVec; ++e) sum += kLayerNorm ? v[u][e] : v[u][e] * v[u][e];
    }
  }
  float mean = 0, inv_std;
  if (kLayerNorm) {
    // Two passes over the registers: the variance from (x - mean)^2 does not cancel.
    mean = block_sum(sum, scratch) / n;
    float squares = 0;
#pragma unroll
    for (int u = 0; u < kMaxVecsPerThread; ++u)
      if (threadIdx.x + u * kBlock < static_cast<unsigned>(vecs))
#pragma unroll
        for (int e = 0; e < kVec; ++e) squares += (v[u][e] - mean) * (v[u][e] - mean);
    inv_std = rsqrtf(block_sum(squares, scratch) / n + eps);
  } else {
    inv_std = rsqrtf(block_sum(sum, scratch) / n + eps);
  }
#pragma unroll
  for (int u = 0; u < kMaxVecsPerThread; ++u) {
    const int i = threadIdx.x + u * kBlock;
    if (i < vecs) {
      float g[kVec], b[kVec] = {};
      unpack(gamma[i], g);
      if (kLayerNorm) unpack(beta[i], b);
      Bf16x8 out;
#pragma unroll
      for (int p = 0; p < 4; ++p)
        pack_pair(out, p, (v[u][2 * p] - mean) * inv_std * g[2 * p] + b[2 * p],
                  (v[u][2 * p + 1] - mean) * inv_std * g[2 * p + 1] + b[2 * p + 1]);
      y[row_offset + i] = out;
    }
  }
}

// One norm over [M, hidden]: setup, check against the CPU on a few rows, then time it.
void run_norm(pitot::State& state, bool layer_norm) {
  const std::int64_t rows = state.get_int("M");
  const std::int64_t hidden = state.get_int("hidden");
  if (hidden % kVec != 0 || hidden > std::int64_t{kBlock} * kVec * kMaxVecsPerThread) {
    state.skip("the kernel handles hidden sizes that are multiples of 8 up to 16384");
    return;
  }
  const int vecs = static_cast<int>(hidden / kVec);
  DeviceArray<gpu_bfloat16> x(rows * hidden), y(rows * hidden), gamma(hidden), beta(hidden);
  // Inputs off-centre (mean 1) so LayerNorm's mean matters; the output starts as noise too.
  suite::fill_uniform(x.get(), x.size(), -1.0f, 3.0f, 11);
  suite::fill_uniform(y.get(), y.size(), -1.0f, 1.0f, 12);
  suite::fill_uniform(gamma.get(), hidden, 0.5f, 1.5f, 13);
  suite::fill_uniform(beta.get(), hidden, -0.5f, 0.5f, 14);
  const auto* x8 = reinterpret_cast<const Bf16x8*>(x.get());
  const auto* g8 = reinterpret_cast<const Bf16x8*>(gamma.get());
  const auto* b8 = reinterpret_cast<const Bf16x8*>(beta.get());
  auto* y8 = reinterpret_cast<Bf16x8*>(y.get());
  auto launch = [&](gpuStream_t stream) {
    if (layer_norm)
      norm_kernel<true><<<static_cast<unsigned>(rows), kBlock, 0, stream>>>(x8, g8, b8, y8, vecs, kEps);
    else
      norm_kernel<false><<<static_cast<unsigned>(rows), kBlock, 0, stream>>>(x8, g8, b8, y8, vecs, kEps);
  };
  launch(nullptr);
  PITOT_GPU_CHECK(gpuGetLastError());

  // Check 8 rows, first and last included, against the double-precision reference.
  const auto picked = suite::sample_indices(rows, 8);
  const auto xs = suite::decode(suite::rows_to_host(x.get(), hidden, picked));
  const auto ys = suite::decode(suite::rows_to_host(y.get(), hidden, picked));
  const auto gs = suite::decode(suite::to_host(gamma.get(), hidden));
  const auto bs = suite::decode(suite::to_host(beta.get(), hidden));
  std::vector<double> want, got;
  for (std::size_t r = 0; r < picked.size(); ++r) {
    const std::span<const float> row(xs.data() + r * hidden, static_cast<std::size_t>(hidden));
    const auto ref = layer_norm ? suite::layernorm_reference(row, gs, bs, kEps) : suite::rmsnorm_reference(row, gs, kEps);
    want.insert(want.end(), ref.begin(), ref.end());
    got.insert(got.end(), ys.begin() + r * hidden, ys.begin() + (r + 1) * hidden);
  }
  suite::require(suite::compare(got, want, suite::kBf16Rtol, 1.0 / 1024), layer_norm ? "layernorm output" : "rmsnorm output");

  // Read x, write y, read gamma (and beta) once.
  const double params = (layer_norm ? 2.0 : 1.0) * static_cast<double>(gamma.bytes());
  state.add_bytes(static_cast<double>(x.bytes() + y.bytes()) + params);
  state.add_items(static_cast<double>(rows));
  state.exec([&](pitot::Launch& l) { launch(l.stream()); });
}

void rmsnorm(pitot::State& state) { run_norm(state, false); }
PITOT_BENCHMARK(rmsnorm).axis("M", suite::token_counts()).axis("hidden", suite::hidden_sizes());

void layernorm(pitot::State& state) { run_norm(state, true); }
PITOT_BENCHMARK(layernorm).axis("M", suite::token_counts()).axis("hidden", suite::hidden_sizes());

}  // namespace

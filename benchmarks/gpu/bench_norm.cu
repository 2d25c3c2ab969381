// RMSNorm and LayerNorm over [tokens, hidden] rows: bf16 in and out, fp32 math, with a `pass` axis.
// pitot's own kernels. Forward: one block per row, the row held in registers between the reduction
// and the write (each byte read once and written once), saving each row's mean and 1/std as
// training does. Backward: dx by one block per row (x and dy held in registers, the saved
// statistics read), then dgamma (and dbeta) as column sums: partial sums over row chunks in fp32
// and a final kernel. GB/s is read against the copy ceiling (bench_memory). Hidden sizes come from
// the models of the shape table.
// Portable: built by nvcc and by hipcc (<pitot/gpu.hpp>); only the bf16 packing differs.
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>

#include <cstdint>
#include <memory>
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
                                                      int vecs, float eps, float* __restrict__ saved_mean,
                                                      float* __restrict__ saved_rstd) {
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
  if (threadIdx.x == 0) {
    saved_mean[blockIdx.x] = mean;
    saved_rstd[blockIdx.x] = inv_std;
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

// dx of one row per block: with x_hat = (x - mean) rstd and g = gamma dy,
//   dx = rstd (g - [LayerNorm: mean(g)] - x_hat mean(g x_hat)).
// x and dy stay in registers as bf16 (16 bytes per 8 values) between the reductions and the write.
template <bool kLayerNorm>
__global__ void __launch_bounds__(kBlock) norm_dx_kernel(const Bf16x8* __restrict__ x, const Bf16x8* __restrict__ dy,
                                                         const Bf16x8* __restrict__ gamma,
                                                         const float* __restrict__ saved_mean,
                                                         const float* __restrict__ saved_rstd, Bf16x8* __restrict__ dx,
                                                         int vecs) {
  __shared__ float scratch[kBlock / 32];
  const std::int64_t row_offset = static_cast<std::int64_t>(blockIdx.x) * vecs;
  const float n = static_cast<float>(vecs) * kVec;
  const float mean = kLayerNorm ? saved_mean[blockIdx.x] : 0.0f, rstd = saved_rstd[blockIdx.x];
  Bf16x8 xs[kMaxVecsPerThread], dys[kMaxVecsPerThread];
  float sum_g = 0, sum_gx = 0;
#pragma unroll
  for (int u = 0; u < kMaxVecsPerThread; ++u) {
    const int i = threadIdx.x + u * kBlock;
    if (i < vecs) {
      xs[u] = x[row_offset + i];
      dys[u] = dy[row_offset + i];
      float xv[kVec], dv[kVec], gv[kVec];
      unpack(xs[u], xv);
      unpack(dys[u], dv);
      unpack(gamma[i], gv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float g = gv[e] * dv[e];
        sum_g += g;
        sum_gx += g * (xv[e] - mean) * rstd;
      }
    }
  }
  const float mean_g = kLayerNorm ? block_sum(sum_g, scratch) / n : 0.0f;
  const float mean_gx = block_sum(sum_gx, scratch) / n;
#pragma unroll
  for (int u = 0; u < kMaxVecsPerThread; ++u) {
    const int i = threadIdx.x + u * kBlock;
    if (i < vecs) {
      float xv[kVec], dv[kVec], gv[kVec], out[kVec];
      unpack(xs[u], xv);
      unpack(dys[u], dv);
      unpack(gamma[i], gv);
#pragma unroll
      for (int e = 0; e < kVec; ++e) out[e] = rstd * (gv[e] * dv[e] - mean_g - (xv[e] - mean) * rstd * mean_gx);
      Bf16x8 packed;
#pragma unroll
      for (int p = 0; p < 4; ++p) pack_pair(packed, p, out[2 * p], out[2 * p + 1]);
      dx[row_offset + i] = packed;
    }
  }
}

// Partial column sums of dy x_hat (and dy) over a chunk of rows: thread t of block (bx, chunk) owns
// the 8 columns of vector bx * kBlock + t. partial_* are [chunks, hidden] in fp32.
template <bool kLayerNorm>
__global__ void __launch_bounds__(kBlock) norm_param_partial_kernel(
    const Bf16x8* __restrict__ x, const Bf16x8* __restrict__ dy, const float* __restrict__ saved_mean,
    const float* __restrict__ saved_rstd, float* __restrict__ partial_gamma, float* __restrict__ partial_beta,
    int vecs, std::int64_t rows, std::int64_t rows_per_chunk) {
  const int v = blockIdx.x * kBlock + threadIdx.x;
  if (v >= vecs) return;
  const std::int64_t first = blockIdx.y * rows_per_chunk;
  const std::int64_t last = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
  float dg[kVec] = {}, db[kVec] = {};
  for (std::int64_t r = first; r < last; ++r) {
    float xv[kVec], dv[kVec];
    unpack(x[r * vecs + v], xv);
    unpack(dy[r * vecs + v], dv);
    const float mean = kLayerNorm ? saved_mean[r] : 0.0f, rstd = saved_rstd[r];
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      dg[e] += dv[e] * (xv[e] - mean) * rstd;
      if (kLayerNorm) db[e] += dv[e];
    }
  }
  const std::int64_t out = static_cast<std::int64_t>(blockIdx.y) * vecs * kVec + static_cast<std::int64_t>(v) * kVec;
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    partial_gamma[out + e] = dg[e];
    if (kLayerNorm) partial_beta[out + e] = db[e];
  }
}

// dgamma (and dbeta) in bf16: the sum of the chunks' partial sums, one thread per column.
template <bool kLayerNorm>
__global__ void __launch_bounds__(kBlock) norm_param_final_kernel(const float* __restrict__ partial_gamma,
                                                                  const float* __restrict__ partial_beta,
                                                                  gpu_bfloat16* __restrict__ dgamma,
                                                                  gpu_bfloat16* __restrict__ dbeta, int hidden,
                                                                  int chunks) {
  const int c = blockIdx.x * kBlock + threadIdx.x;
  if (c >= hidden) return;
  float g = 0, b = 0;
  for (int k = 0; k < chunks; ++k) {
    g += partial_gamma[static_cast<std::int64_t>(k) * hidden + c];
    if (kLayerNorm) b += partial_beta[static_cast<std::int64_t>(k) * hidden + c];
  }
  dgamma[c] = pitot::gpu::bf16_from_float(g);
  if (kLayerNorm) dbeta[c] = pitot::gpu::bf16_from_float(b);
}

// One norm over [M, hidden] for the chosen passes: setup, check against the CPU, then time it.
void run_norm(pitot::State& state, bool layer_norm) {
  const std::int64_t rows = state.get_int("M");
  const std::int64_t hidden = state.get_int("hidden");
  const suite::Passes passes = suite::parse_pass(state.get_string("pass"));
  if (hidden % kVec != 0 || hidden > std::int64_t{kBlock} * kVec * kMaxVecsPerThread) {
    state.skip("the kernel handles hidden sizes that are multiples of 8 up to 16384");
    return;
  }
  const int vecs = static_cast<int>(hidden / kVec);
  DeviceArray<gpu_bfloat16> x(rows * hidden), y(rows * hidden), gamma(hidden), beta(hidden);
  DeviceArray<float> mean(rows), rstd(rows);
  // Inputs off-centre (mean 1) so LayerNorm's mean matters; the outputs start as noise too.
  suite::fill_uniform(x.get(), x.size(), -1.0f, 3.0f, 11);
  suite::fill_uniform(y.get(), y.size(), -1.0f, 1.0f, 12);
  suite::fill_uniform(gamma.get(), hidden, 0.5f, 1.5f, 13);
  suite::fill_uniform(beta.get(), hidden, -0.5f, 0.5f, 14);
  suite::fill_uniform(mean.get(), rows, -1.0f, 1.0f, 15);
  suite::fill_uniform(rstd.get(), rows, -1.0f, 1.0f, 16);
  const auto* x8 = reinterpret_cast<const Bf16x8*>(x.get());
  const auto* g8 = reinterpret_cast<const Bf16x8*>(gamma.get());
  const auto* b8 = reinterpret_cast<const Bf16x8*>(beta.get());
  auto* y8 = reinterpret_cast<Bf16x8*>(y.get());
  auto forward = [&](gpuStream_t stream) {
    if (layer_norm)
      norm_kernel<true><<<static_cast<unsigned>(rows), kBlock, 0, stream>>>(x8, g8, b8, y8, vecs, kEps, mean.get(),
                                                                            rstd.get());
    else
      norm_kernel<false><<<static_cast<unsigned>(rows), kBlock, 0, stream>>>(x8, g8, b8, y8, vecs, kEps, mean.get(),
                                                                             rstd.get());
  };
  forward(nullptr);
  PITOT_GPU_CHECK(gpuGetLastError());

  // Check 8 rows, first and last included, against the double-precision reference: the output and
  // the saved statistics.
  const auto picked = suite::sample_indices(rows, 8);
  const auto xs = suite::decode(suite::rows_to_host(x.get(), hidden, picked));
  const auto gs = suite::decode(suite::to_host(gamma.get(), hidden));
  const auto bs = suite::decode(suite::to_host(beta.get(), hidden));
  const auto mean_host = suite::to_host(mean.get(), rows), rstd_host = suite::to_host(rstd.get(), rows);
  const char* name = layer_norm ? "layernorm" : "rmsnorm";
  {
    const auto ys = suite::decode(suite::rows_to_host(y.get(), hidden, picked));
    std::vector<double> want, got, stats_want, stats_got;
    for (std::size_t r = 0; r < picked.size(); ++r) {
      const std::span<const float> row(xs.data() + r * hidden, static_cast<std::size_t>(hidden));
      const auto ref = layer_norm ? suite::layernorm_reference(row, gs, bs, kEps) : suite::rmsnorm_reference(row, gs, kEps);
      want.insert(want.end(), ref.begin(), ref.end());
      got.insert(got.end(), ys.begin() + r * hidden, ys.begin() + (r + 1) * hidden);
      const std::vector<float> dummy(static_cast<std::size_t>(hidden), 0.0f);
      const auto stats = suite::norm_backward_reference(row, gs, dummy, kEps, layer_norm);
      stats_want.insert(stats_want.end(), {stats.mean, stats.rstd});
      stats_got.insert(stats_got.end(), {static_cast<double>(layer_norm ? mean_host[picked[r]] : 0.0f),
                                         static_cast<double>(rstd_host[picked[r]])});
    }
    suite::require(suite::compare(got, want, suite::kBf16Rtol, 1.0 / 1024), std::string(name) + " output");
    suite::require(suite::compare(stats_got, stats_want, 1e-5, 1e-6), std::string(name) + " saved mean and 1/std");
  }

  // Backward: dy uniform in [-1, 1); partial column sums over chunks of about 64 rows.
  std::unique_ptr<DeviceArray<gpu_bfloat16>> dy, dx, dgamma, dbeta;
  std::unique_ptr<DeviceArray<float>> partial_gamma, partial_beta;
  const std::int64_t rows_per_chunk = 64, chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  auto backward = [&](gpuStream_t stream) {
    const auto* dy8 = reinterpret_cast<const Bf16x8*>(dy->get());
    auto* dx8 = reinterpret_cast<Bf16x8*>(dx->get());
    const dim3 partial_grid(static_cast<unsigned>((vecs + kBlock - 1) / kBlock), static_cast<unsigned>(chunks));
    const unsigned final_blocks = static_cast<unsigned>((hidden + kBlock - 1) / kBlock);
    if (layer_norm) {
      norm_dx_kernel<true><<<static_cast<unsigned>(rows), kBlock, 0, stream>>>(x8, dy8, g8, mean.get(), rstd.get(), dx8, vecs);
      norm_param_partial_kernel<true><<<partial_grid, kBlock, 0, stream>>>(x8, dy8, mean.get(), rstd.get(),
                                                                           partial_gamma->get(), partial_beta->get(),
                                                                           vecs, rows, rows_per_chunk);
      norm_param_final_kernel<true><<<final_blocks, kBlock, 0, stream>>>(partial_gamma->get(), partial_beta->get(),
                                                                         dgamma->get(), dbeta->get(),
                                                                         static_cast<int>(hidden), static_cast<int>(chunks));
    } else {
      norm_dx_kernel<false><<<static_cast<unsigned>(rows), kBlock, 0, stream>>>(x8, dy8, g8, mean.get(), rstd.get(), dx8, vecs);
      norm_param_partial_kernel<false><<<partial_grid, kBlock, 0, stream>>>(x8, dy8, mean.get(), rstd.get(),
                                                                            partial_gamma->get(), nullptr, vecs, rows,
                                                                            rows_per_chunk);
      norm_param_final_kernel<false><<<final_blocks, kBlock, 0, stream>>>(partial_gamma->get(), nullptr,
                                                                          dgamma->get(), nullptr,
                                                                          static_cast<int>(hidden), static_cast<int>(chunks));
    }
  };
  if (passes.backward) {
    dy = std::make_unique<DeviceArray<gpu_bfloat16>>(rows * hidden);
    dx = std::make_unique<DeviceArray<gpu_bfloat16>>(rows * hidden);
    dgamma = std::make_unique<DeviceArray<gpu_bfloat16>>(hidden);
    dbeta = std::make_unique<DeviceArray<gpu_bfloat16>>(hidden);
    partial_gamma = std::make_unique<DeviceArray<float>>(chunks * hidden);
    partial_beta = std::make_unique<DeviceArray<float>>(chunks * hidden);
    suite::fill_uniform(dy->get(), dy->size(), -1.0f, 1.0f, 17);
    suite::fill_uniform(dx->get(), dx->size(), -1.0f, 1.0f, 18);
    suite::fill_uniform(dgamma->get(), hidden, -1.0f, 1.0f, 19);
    suite::fill_uniform(dbeta->get(), hidden, -1.0f, 1.0f, 20);
    backward(nullptr);
    PITOT_GPU_CHECK(gpuGetLastError());

    // dx of the 8 rows against the reference (which recomputes the statistics in double).
    const auto dys = suite::decode(suite::rows_to_host(dy->get(), hidden, picked));
    const auto dxs = suite::decode(suite::rows_to_host(dx->get(), hidden, picked));
    std::vector<double> want, got;
    for (std::size_t r = 0; r < picked.size(); ++r) {
      const std::span<const float> row(xs.data() + r * hidden, static_cast<std::size_t>(hidden));
      const std::span<const float> drow(dys.data() + r * hidden, static_cast<std::size_t>(hidden));
      const auto ref = suite::norm_backward_reference(row, gs, drow, kEps, layer_norm);
      want.insert(want.end(), ref.dx.begin(), ref.dx.end());
      got.insert(got.end(), dxs.begin() + r * hidden, dxs.begin() + (r + 1) * hidden);
    }
    suite::require(suite::compare(got, want, suite::kBf16Rtol, 1.0 / 1024), std::string(name) + " dx");
    // dgamma and dbeta of 16 columns: sums over every row, with the saved statistics (checked above).
    const auto dgs = suite::decode(suite::to_host(dgamma->get(), hidden));
    const auto dbs = suite::decode(suite::to_host(dbeta->get(), hidden));
    std::vector<double> g_got, g_want, g_atol, b_got, b_want, b_atol;
    std::vector<float> zeros(static_cast<std::size_t>(rows), 0.0f);
    for (std::int64_t c : suite::sample_indices(hidden, 16)) {
      const auto x_col = suite::decode(suite::strided_rows_to_host(x.get() + c, 1, hidden, rows));
      const auto dy_col = suite::decode(suite::strided_rows_to_host(dy->get() + c, 1, hidden, rows));
      const auto ref = suite::norm_param_column_reference(x_col, dy_col, layer_norm ? mean_host : zeros, rstd_host);
      g_got.push_back(dgs[c]);
      g_want.push_back(ref.dgamma);
      g_atol.push_back(1.0 / 2048 * ref.magnitude);
      b_got.push_back(dbs[c]);
      b_want.push_back(ref.dbeta);
      b_atol.push_back(1.0 / 2048 * ref.beta_magnitude);
    }
    suite::require(suite::compare(g_got, g_want, suite::kBf16Rtol, g_atol), std::string(name) + " dgamma");
    if (layer_norm) suite::require(suite::compare(b_got, b_want, suite::kBf16Rtol, b_atol), "layernorm dbeta");
  }

  // Bytes every pass must move (the partial sums' fp32 traffic, rows / 64 x hidden x 4 bytes each
  // way, is not counted): forward reads x and the parameters, writes y and the statistics;
  // backward reads x, dy, gamma and the statistics, writes dx and the parameter gradients.
  const double matrix = static_cast<double>(x.bytes());
  const double params = (layer_norm ? 2.0 : 1.0) * static_cast<double>(gamma.bytes());
  const double stats = (layer_norm ? 8.0 : 4.0) * static_cast<double>(rows);
  double bytes = 0;
  if (passes.forward) bytes += 2 * matrix + params + stats;
  if (passes.backward) bytes += 3 * matrix + static_cast<double>(gamma.bytes()) + stats + params;
  state.add_bytes(bytes);
  state.add_items(static_cast<double>(rows));
  state.exec([&](pitot::Launch& l) {
    if (passes.forward) forward(l.stream());
    if (passes.backward) backward(l.stream());
  });
}

void rmsnorm(pitot::State& state) { run_norm(state, false); }
PITOT_BENCHMARK(rmsnorm)
    .axis("M", suite::token_counts())
    .axis("hidden", suite::hidden_sizes())
    .axis("pass", suite::pass_names())
    .version("2");

void layernorm(pitot::State& state) { run_norm(state, true); }
PITOT_BENCHMARK(layernorm)
    .axis("M", suite::token_counts())
    .axis("hidden", suite::hidden_sizes())
    .axis("pass", suite::pass_names())
    .version("2");

}  // namespace

// CPU references for the suite's checks, in double precision, and the comparison that fails a point
// with the size of its error. Plain C++: the same code runs in the benchmark programs and in the CI
// tests (tests/suite/), which have no GPU.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "numerics.hpp"

namespace suite {

// Tolerances, by what limits the precision (docs/suite.md explains each).
// A bf16 result is rounded once (half a unit in the last place, 2^-9 relative): two units allowed.
inline constexpr double kBf16Rtol = 1.0 / 128;
// A GEMM entry accumulates k products in fp32 (possibly split over k): allowed error
// kGemmAtol * sum_k |a_k w_k| on top of the output rounding. A wrong index or transpose is off by
// about |C| ~ sqrt(sum_k (a_k w_k)^2), at least 6x more than this for the suite's shapes.
inline constexpr double kGemmAtol = 1.0 / 2048;

// The outcome of comparing `got` against `want`; value i may be off by atol_i + rtol * |want_i|.
struct Comparison {
  std::int64_t checked = 0;
  std::int64_t wrong = 0;  // outside the tolerance, or NaN
  double max_abs_error = 0;
  // The value with the largest error / allowed ratio (above 1: wrong).
  std::int64_t worst_index = -1;
  double worst_ratio = 0;
  double worst_got = 0;
  double worst_want = 0;
  double worst_allowed = 0;
  bool ok() const { return wrong == 0 && checked > 0; }
};
Comparison compare(std::span<const double> got, std::span<const double> want, double rtol,
                   std::span<const double> atol);
Comparison compare(std::span<const double> got, std::span<const double> want, double rtol, double atol);
// "gemm output: 3 of 64 values wrong, worst [5]: got 1.25, want 1.5 (error 0.25, allowed 0.01)".
std::string describe(const Comparison& c, std::string_view what);
// Throws std::runtime_error(describe(c, what)) unless c.ok(): the point fails and is not timed.
void require(const Comparison& c, std::string_view what);

// `count` indices spread evenly over [0, n), first and last included (edges catch most
// indexing mistakes); all of them when n <= count.
std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t count);

// Entries of C = scale * A W^T for a few rows of A and rows of W (PyTorch's Linear layout):
// a_rows is [ra, k] and w_rows [rw, k], row-major; value and magnitude are [ra, rw], where
// magnitude = scale * sum_k |a_k w_k| sizes the accumulation tolerance.
struct GemmSample {
  std::vector<double> value;
  std::vector<double> magnitude;
};
GemmSample gemm_reference(std::span<const float> a_rows, std::span<const float> w_rows, std::int64_t k,
                          double scale);

// One row of RMSNorm, x / sqrt(mean(x^2) + eps) * gamma, and of LayerNorm,
// (x - mean) / sqrt(var + eps) * gamma + beta (variance over n, not n - 1).
std::vector<double> rmsnorm_reference(std::span<const float> x, std::span<const float> gamma, double eps);
std::vector<double> layernorm_reference(std::span<const float> x, std::span<const float> gamma,
                                        std::span<const float> beta, double eps);

// Current scaling for FP8: amax = max |x|; scale = fp8_max / amax (1 when amax is 0), computed in
// float exactly as the kernels do, so the CPU and the GPU quantize with the same number.
float amax_reference(std::span<const float> x);
float current_scale(float amax, Fp8 format);

// One query row of attention: softmax(scale * q . k_j) over the first `count` keys (causal: the
// query at position i sees keys 0..i), applied to the values. keys and values are [>= count, d].
std::vector<double> attention_row_reference(std::span<const float> q, std::span<const float> keys,
                                            std::span<const float> values, std::int64_t count, double scale);

}  // namespace suite

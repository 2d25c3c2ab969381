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

// The backward pass of a linear layer Y = X W^T (X [m, k], W [n, k], dY [m, n], all row-major):
// dgrad dX = dY W ([m, k]) and wgrad dW = dY^T X ([n, k]). Whole matrices, for the tests; the
// benchmarks check a few entries with gemm_reference on gathered rows and columns (dX[i][j] is
// gemm_reference of row i of dY and column j of W; dW[i][j] of column i of dY and column j of X).
std::vector<double> linear_dgrad_reference(std::span<const float> dy, std::span<const float> w, std::int64_t m,
                                           std::int64_t n, std::int64_t k);
std::vector<double> linear_wgrad_reference(std::span<const float> dy, std::span<const float> x, std::int64_t m,
                                           std::int64_t n, std::int64_t k);

// Normalization backward for one row, from the row itself (its statistics recomputed in double):
// with x_hat = (x - mean) * rstd (RMSNorm: mean 0, rstd = 1 / sqrt(mean(x^2) + eps)) and g = gamma * dy,
//   RMSNorm   dx = rstd * (g - x_hat * mean(g * x_hat))
//   LayerNorm dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))
// and the row's share of the parameter gradients, dgamma += dy * x_hat, dbeta += dy.
struct NormRowGrads {
  std::vector<double> dx;
  std::vector<double> dgamma;  // this row's dy * x_hat
  std::vector<double> dbeta;   // this row's dy (LayerNorm)
  double mean = 0;             // the statistics the forward saves (mean 0 for RMSNorm)
  double rstd = 0;
};
NormRowGrads norm_backward_reference(std::span<const float> x, std::span<const float> gamma, std::span<const float> dy,
                                     double eps, bool layer_norm);
// One column j of the parameter gradients over all rows, from the column's x and dy and each row's
// saved statistics: dgamma_j = sum_r dy_rj (x_rj - mean_r) rstd_r, dbeta_j = sum_r dy_rj, and
// magnitude = sum_r |dy_rj x_hat_rj| (sizes the fp32 accumulation tolerance).
struct ColumnGrads {
  double dgamma = 0;
  double dbeta = 0;
  double magnitude = 0;
  double beta_magnitude = 0;
};
ColumnGrads norm_param_column_reference(std::span<const float> x_column, std::span<const float> dy_column,
                                        std::span<const float> mean, std::span<const float> rstd);

// Attention of one query row over the visible keys [first, last) (keys and values [>= last, d]):
// output, log-sum-exp of the scaled scores (the Stats cuDNN saves), and the query's gradient
//   P_j = softmax(scale q.k_j), dP_j = do.v_j, D = sum_j P_j dP_j (= do.o), dS_j = P_j (dP_j - D),
//   dq = scale sum_j dS_j k_j.
struct AttentionRow {
  std::vector<double> o;
  double lse = 0;
  std::vector<double> dq;  // empty when dout is empty
};
AttentionRow attention_row(std::span<const float> q, std::span<const float> keys, std::span<const float> values,
                           std::span<const float> dout, std::int64_t first, std::int64_t last, double scale);
// The gradient of one key row j and its value row over the queries that see it, given each query's
// forward log-sum-exp and D_i = do_i.o_i (the forward's own, so O(s d) per key instead of O(s^2 d)):
//   P_ij = exp(scale q_i.k_j - lse_i), dv_j = sum_i P_ij do_i, dk_j = scale sum_i P_ij (do_i.v_j - D_i) q_i.
// queries and douts are [count, d] (the queries that see key j, of every query head sharing the kv head).
struct KeyGrads {
  std::vector<double> dk;
  std::vector<double> dv;
  std::vector<double> dk_magnitude;  // scale sum_i |P_ij (do_i.v_j - D_i) q_i|, per element
  std::vector<double> dv_magnitude;  // sum_i |P_ij do_i|
};
KeyGrads attention_key_grads(std::span<const float> key, std::span<const float> value, std::span<const float> queries,
                             std::span<const float> douts, std::span<const double> lse, std::span<const double> delta,
                             double scale);

}  // namespace suite

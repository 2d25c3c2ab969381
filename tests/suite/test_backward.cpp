// The backward references against finite differences of the forward references: each gradient the
// GPU points are checked with is the derivative of a loss L = sum(dY * Y) of the forward it belongs
// to. A wrong formula (a dropped term, a transposed operand) fails these tests; some of them show it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "numerics.hpp"
#include "reference.hpp"
#include "shapes.hpp"

namespace {

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo = -1, float hi = 1) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = suite::uniform_at(seed, i, lo, hi);
  return v;
}

// d loss / d v[i] by central differences, with the step as the float input really moved.
double derivative(std::vector<float>& v, std::size_t i, const std::function<double()>& loss, float step = 1e-2f) {
  const float saved = v[i];
  v[i] = saved + step;
  const float up = v[i];
  const double l_up = loss();
  v[i] = saved - step;
  const float down = v[i];
  const double l_down = loss();
  v[i] = saved;
  return (l_up - l_down) / (static_cast<double>(up) - down);
}

bool close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  return suite::compare(got, want, tol, tol).ok();
}

// ---- Linear layer ---------------------------------------------------------------------------------

struct Linear {
  std::int64_t m = 5, n = 4, k = 3;
  std::vector<float> x = random_values(15, 1), w = random_values(12, 2), dy = random_values(20, 3);
  double loss() const {  // sum(dY * X W^T)
    double l = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t t = 0; t < k; ++t) l += static_cast<double>(dy[i * n + j]) * x[i * k + t] * w[j * k + t];
    return l;
  }
};

TEST(LinearBackward, DgradAndWgradAreTheLossGradients) {
  Linear f;
  const auto dx = suite::linear_dgrad_reference(f.dy, f.w, f.m, f.n, f.k);
  const auto dw = suite::linear_wgrad_reference(f.dy, f.x, f.m, f.n, f.k);
  std::vector<double> fd_x, fd_w;
  for (std::size_t i = 0; i < f.x.size(); ++i) fd_x.push_back(derivative(f.x, i, [&] { return f.loss(); }));
  for (std::size_t i = 0; i < f.w.size(); ++i) fd_w.push_back(derivative(f.w, i, [&] { return f.loss(); }));
  EXPECT_TRUE(close(dx, fd_x, 1e-5)) << suite::describe(suite::compare(dx, fd_x, 1e-5, 1e-5), "dX");
  EXPECT_TRUE(close(dw, fd_w, 1e-5)) << suite::describe(suite::compare(dw, fd_w, 1e-5, 1e-5), "dW");
  // With a square W, dgrad through W^T instead of W has the right shape and the wrong numbers.
  Linear sq;
  sq.m = 4, sq.n = 4, sq.k = 4;
  sq.x = random_values(16, 4), sq.w = random_values(16, 5), sq.dy = random_values(16, 6);
  std::vector<float> wt(16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) wt[j * 4 + i] = sq.w[i * 4 + j];
  std::vector<double> fd_sq;
  for (std::size_t i = 0; i < sq.x.size(); ++i) fd_sq.push_back(derivative(sq.x, i, [&] { return sq.loss(); }));
  EXPECT_TRUE(close(suite::linear_dgrad_reference(sq.dy, sq.w, 4, 4, 4), fd_sq, 1e-5));
  EXPECT_FALSE(close(suite::linear_dgrad_reference(sq.dy, wt, 4, 4, 4), fd_sq, 1e-5));
}

TEST(LinearBackward, TheBenchmarksGatherConventionGivesTheSameEntries) {
  // bench_gemm checks dX[i][j] as gemm_reference(row i of dY, column j of W) and dW[i][j] as
  // gemm_reference(column i of dY, column j of X).
  Linear f;
  const auto dx = suite::linear_dgrad_reference(f.dy, f.w, f.m, f.n, f.k);
  const auto dw = suite::linear_wgrad_reference(f.dy, f.x, f.m, f.n, f.k);
  auto column = [](const std::vector<float>& a, std::int64_t rows, std::int64_t cols, std::int64_t j) {
    std::vector<float> c;
    for (std::int64_t r = 0; r < rows; ++r) c.push_back(a[r * cols + j]);
    return c;
  };
  auto row = [](const std::vector<float>& a, std::int64_t cols, std::int64_t i) {
    return std::vector<float>(a.begin() + i * cols, a.begin() + (i + 1) * cols);
  };
  for (std::int64_t i = 0; i < f.m; ++i)
    for (std::int64_t j = 0; j < f.k; ++j)
      EXPECT_NEAR(suite::gemm_reference(row(f.dy, f.n, i), column(f.w, f.n, f.k, j), f.n, 1.0).value[0],
                  dx[i * f.k + j], 1e-12);
  for (std::int64_t i = 0; i < f.n; ++i)
    for (std::int64_t j = 0; j < f.k; ++j)
      EXPECT_NEAR(suite::gemm_reference(column(f.dy, f.m, f.n, i), column(f.x, f.m, f.k, j), f.m, 1.0).value[0],
                  dw[i * f.k + j], 1e-12);
}

// ---- Normalization --------------------------------------------------------------------------------

struct Norm {
  bool layer_norm;
  std::size_t n = 24;
  std::vector<float> x = random_values(n, 11, -1, 3), gamma = random_values(n, 13, 0.5, 1.5),
                     beta = random_values(n, 14, -0.5, 0.5), dy = random_values(n, 17);
  double loss() const {
    const auto y = layer_norm ? suite::layernorm_reference(x, gamma, beta, 1e-5) : suite::rmsnorm_reference(x, gamma, 1e-5);
    double l = 0;
    for (std::size_t i = 0; i < n; ++i) l += dy[i] * y[i];
    return l;
  }
};

void expect_norm_gradients(bool layer_norm) {
  Norm f{layer_norm};
  const auto g = suite::norm_backward_reference(f.x, f.gamma, f.dy, 1e-5, layer_norm);
  std::vector<double> fd_x, fd_gamma, fd_beta;
  for (std::size_t i = 0; i < f.n; ++i) {
    fd_x.push_back(derivative(
        f.x, i, [&] { return f.loss(); }, 1e-3f));
    fd_gamma.push_back(derivative(
        f.gamma, i, [&] { return f.loss(); }, 1e-3f));
    if (layer_norm) fd_beta.push_back(derivative(
        f.beta, i, [&] { return f.loss(); }, 1e-3f));
  }
  EXPECT_TRUE(close(g.dx, fd_x, 1e-4)) << suite::describe(suite::compare(g.dx, fd_x, 1e-4, 1e-4), "dx");
  EXPECT_TRUE(close(g.dgamma, fd_gamma, 1e-4)) << suite::describe(suite::compare(g.dgamma, fd_gamma, 1e-4, 1e-4), "dgamma");
  if (layer_norm) {
    EXPECT_TRUE(close(g.dbeta, fd_beta, 1e-4));
  }
}

TEST(NormBackward, RmsNormGradientsAreTheLossGradients) { expect_norm_gradients(false); }
TEST(NormBackward, LayerNormGradientsAreTheLossGradients) { expect_norm_gradients(true); }

TEST(NormBackward, RmsNormsFormulaIsNotLayerNorms) {
  // LayerNorm's dx without its mean(g) term (RMSNorm's formula with the mean) is wrong: the
  // finite differences reject it.
  Norm f{true};
  const auto ln = suite::norm_backward_reference(f.x, f.gamma, f.dy, 1e-5, true);
  std::vector<double> fd_x;
  for (std::size_t i = 0; i < f.n; ++i) fd_x.push_back(derivative(
      f.x, i, [&] { return f.loss(); }, 1e-3f));
  std::vector<double> without_mean_term(ln.dx);
  double mean_g = 0;
  for (std::size_t i = 0; i < f.n; ++i) mean_g += static_cast<double>(f.gamma[i]) * f.dy[i] / static_cast<double>(f.n);
  for (auto& v : without_mean_term) v += ln.rstd * mean_g;
  EXPECT_FALSE(close(without_mean_term, fd_x, 1e-4));
}

TEST(NormBackward, ColumnSumsWithSavedStatisticsMatchTheRows) {
  // dgamma_j over 6 rows from the columns and the rows' statistics = the sum of the rows' shares.
  for (bool layer_norm : {false, true}) {
    const std::size_t rows = 6, n = 16;
    const auto x = random_values(rows * n, 21, -1, 3), dy = random_values(rows * n, 22), gamma = random_values(n, 23);
    std::vector<double> dgamma(n, 0), dbeta(n, 0);
    std::vector<float> mean, rstd;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::span<const float> xr(x.data() + r * n, n), dyr(dy.data() + r * n, n);
      const auto g = suite::norm_backward_reference(xr, gamma, dyr, 1e-5, layer_norm);
      for (std::size_t j = 0; j < n; ++j) {
        dgamma[j] += g.dgamma[j];
        if (layer_norm) dbeta[j] += g.dbeta[j];
      }
      mean.push_back(static_cast<float>(g.mean));
      rstd.push_back(static_cast<float>(g.rstd));
    }
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<float> xc, dyc;
      for (std::size_t r = 0; r < rows; ++r) {
        xc.push_back(x[r * n + j]);
        dyc.push_back(dy[r * n + j]);
      }
      const auto c = suite::norm_param_column_reference(xc, dyc, mean, rstd);
      EXPECT_NEAR(c.dgamma, dgamma[j], 1e-5 * c.magnitude + 1e-6);
      if (layer_norm) {
        EXPECT_NEAR(c.dbeta, dbeta[j], 1e-9);
      }
    }
  }
}

// ---- Attention ------------------------------------------------------------------------------------

struct Attention {
  std::int64_t s = 7, d = 4;
  double scale = 0.7;
  suite::AttentionMask mask;
  std::vector<float> q = random_values(28, 31, -2, 2), k = random_values(28, 32), v = random_values(28, 33),
                     dout = random_values(28, 34);
  suite::AttentionRow row(std::int64_t i, bool grad) const {
    const auto r = suite::visible_keys(mask, i, s);
    return suite::attention_row(std::span<const float>(q.data() + i * d, d), k, v,
                                grad ? std::span<const float>(dout.data() + i * d, d) : std::span<const float>(),
                                r.first, r.last, scale);
  }
  double loss() const {
    double l = 0;
    for (std::int64_t i = 0; i < s; ++i) {
      const auto o = row(i, false).o;
      for (std::int64_t t = 0; t < d; ++t) l += dout[i * d + t] * o[t];
    }
    return l;
  }
};

void expect_attention_gradients(const suite::AttentionMask& mask) {
  Attention f;
  f.mask = mask;
  std::vector<double> dq, fd_q, dk, fd_k, dv, fd_v;
  std::vector<double> lse, delta;
  for (std::int64_t i = 0; i < f.s; ++i) {
    const auto r = f.row(i, true);
    dq.insert(dq.end(), r.dq.begin(), r.dq.end());
    lse.push_back(r.lse);
    double dl = 0;
    for (std::int64_t t = 0; t < f.d; ++t) dl += f.dout[i * f.d + t] * r.o[t];
    delta.push_back(dl);
  }
  for (std::int64_t j = 0; j < f.s; ++j) {
    // The queries that see key j.
    std::vector<float> queries, douts;
    std::vector<double> l, dl;
    for (std::int64_t i = 0; i < f.s; ++i) {
      const auto r = suite::visible_keys(mask, i, f.s);
      if (j < r.first || j >= r.last) continue;
      queries.insert(queries.end(), f.q.begin() + i * f.d, f.q.begin() + (i + 1) * f.d);
      douts.insert(douts.end(), f.dout.begin() + i * f.d, f.dout.begin() + (i + 1) * f.d);
      l.push_back(lse[i]);
      dl.push_back(delta[i]);
    }
    const auto g = suite::attention_key_grads(std::span<const float>(f.k.data() + j * f.d, f.d),
                                              std::span<const float>(f.v.data() + j * f.d, f.d), queries, douts, l, dl,
                                              f.scale);
    dk.insert(dk.end(), g.dk.begin(), g.dk.end());
    dv.insert(dv.end(), g.dv.begin(), g.dv.end());
  }
  for (std::size_t e = 0; e < f.q.size(); ++e) {
    fd_q.push_back(derivative(
        f.q, e, [&] { return f.loss(); }, 1e-3f));
    fd_k.push_back(derivative(
        f.k, e, [&] { return f.loss(); }, 1e-3f));
    fd_v.push_back(derivative(
        f.v, e, [&] { return f.loss(); }, 1e-3f));
  }
  EXPECT_TRUE(close(dq, fd_q, 1e-4)) << suite::describe(suite::compare(dq, fd_q, 1e-4, 1e-4), "dq");
  EXPECT_TRUE(close(dk, fd_k, 1e-4)) << suite::describe(suite::compare(dk, fd_k, 1e-4, 1e-4), "dk");
  EXPECT_TRUE(close(dv, fd_v, 1e-4)) << suite::describe(suite::compare(dv, fd_v, 1e-4, 1e-4), "dv");
}

TEST(AttentionBackward, NoMask) { expect_attention_gradients(suite::attention_mask("none", 0)); }
TEST(AttentionBackward, Causal) { expect_attention_gradients(suite::attention_mask("causal", 0)); }
TEST(AttentionBackward, CausalSlidingWindow) { expect_attention_gradients(suite::attention_mask("causal", 3)); }

TEST(AttentionBackward, LogSumExpAndOutputMatchTheOldReference) {
  Attention f;
  const auto r = suite::attention_row(std::span<const float>(f.q.data(), 4), f.k, f.v, {}, 0, 5, f.scale);
  const auto old = suite::attention_row_reference(std::span<const float>(f.q.data(), 4), f.k, f.v, 5, f.scale);
  for (std::size_t t = 0; t < 4; ++t) EXPECT_NEAR(r.o[t], old[t], 1e-12);
  double sum = 0;
  for (std::int64_t j = 0; j < 5; ++j) {
    double dot = 0;
    for (std::int64_t t = 0; t < 4; ++t) dot += static_cast<double>(f.q[t]) * f.k[j * 4 + t];
    sum += std::exp(f.scale * dot);
  }
  EXPECT_NEAR(r.lse, std::log(sum), 1e-12);
}

TEST(AttentionBackward, KeyGradientsNeedTheRightDelta) {
  // dk with D_i = 0 instead of do_i . o_i is not the gradient: the check would catch a backward that
  // skipped the softmax's row term.
  Attention f;
  f.mask = suite::attention_mask("none", 0);
  std::vector<double> lse, zeros(static_cast<std::size_t>(f.s), 0.0);
  for (std::int64_t i = 0; i < f.s; ++i) lse.push_back(f.row(i, false).lse);
  const auto wrong = suite::attention_key_grads(std::span<const float>(f.k.data(), 4), std::span<const float>(f.v.data(), 4),
                                                f.q, f.dout, lse, zeros, f.scale);
  std::vector<double> fd;
  for (std::size_t e = 0; e < 4; ++e) fd.push_back(derivative(
      f.k, e, [&] { return f.loss(); }, 1e-3f));
  EXPECT_FALSE(close(wrong.dk, fd, 1e-4));
}

}  // namespace

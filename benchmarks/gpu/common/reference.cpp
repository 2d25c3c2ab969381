#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace suite {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void require_same_size(std::size_t a, std::size_t b, const char* what) {
  if (a != b)
    throw std::invalid_argument(std::string(what) + ": sizes differ (" + std::to_string(a) + " and " +
                                std::to_string(b) + ")");
}

}  // namespace

Comparison compare(std::span<const double> got, std::span<const double> want, double rtol,
                   std::span<const double> atol) {
  require_same_size(got.size(), want.size(), "compare");
  require_same_size(atol.size(), want.size(), "compare (tolerances)");
  Comparison c;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(got[i] - want[i]);
    const double allowed = atol[i] + rtol * std::fabs(want[i]);
    // NaN compares false everywhere: count it wrong and make it the worst.
    const double ratio = std::isnan(error) ? std::numeric_limits<double>::infinity()
                         : allowed > 0     ? error / allowed
                         : error > 0       ? std::numeric_limits<double>::infinity()
                                           : 0.0;
    ++c.checked;
    if (!(error <= allowed)) ++c.wrong;
    if (!std::isnan(error)) c.max_abs_error = std::max(c.max_abs_error, error);
    if (c.worst_index < 0 || ratio > c.worst_ratio) {
      c.worst_index = static_cast<std::int64_t>(i);
      c.worst_ratio = ratio;
      c.worst_got = got[i];
      c.worst_want = want[i];
      c.worst_allowed = allowed;
    }
  }
  return c;
}

Comparison compare(std::span<const double> got, std::span<const double> want, double rtol, double atol) {
  const std::vector<double> each(want.size(), atol);
  return compare(got, want, rtol, each);
}

std::string describe(const Comparison& c, std::string_view what) {
  std::string text(what);
  if (c.checked == 0) return text + ": nothing was checked";
  text += c.wrong == 0 ? ": all " + std::to_string(c.checked) + " values within tolerance"
                       : ": " + std::to_string(c.wrong) + " of " + std::to_string(c.checked) + " values wrong";
  text += ", worst [" + std::to_string(c.worst_index) + "]: got " + number(c.worst_got) + ", want " +
          number(c.worst_want) + " (error " + number(std::fabs(c.worst_got - c.worst_want)) + ", allowed " +
          number(c.worst_allowed) + ")";
  return text;
}

void require(const Comparison& c, std::string_view what) {
  if (!c.ok()) throw std::runtime_error(describe(c, what));
}

std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t count) {
  std::vector<std::int64_t> indices;
  if (n <= 0 || count <= 0) return indices;
  if (n <= count) {
    for (std::int64_t i = 0; i < n; ++i) indices.push_back(i);
    return indices;
  }
  if (count == 1) return {0};
  for (std::int64_t j = 0; j < count; ++j) indices.push_back(j * (n - 1) / (count - 1));
  return indices;
}

GemmSample gemm_reference(std::span<const float> a_rows, std::span<const float> w_rows, std::int64_t k,
                          double scale) {
  if (k <= 0 || a_rows.size() % k != 0 || w_rows.size() % k != 0)
    throw std::invalid_argument("gemm_reference: row data is not a whole number of rows of k=" + std::to_string(k));
  const std::size_t ra = a_rows.size() / k, rw = w_rows.size() / k;
  GemmSample s;
  s.value.reserve(ra * rw);
  s.magnitude.reserve(ra * rw);
  for (std::size_t i = 0; i < ra; ++i) {
    for (std::size_t j = 0; j < rw; ++j) {
      double sum = 0, magnitude = 0;
      for (std::int64_t t = 0; t < k; ++t) {
        const double p = static_cast<double>(a_rows[i * k + t]) * static_cast<double>(w_rows[j * k + t]);
        sum += p;
        magnitude += std::fabs(p);
      }
      s.value.push_back(scale * sum);
      s.magnitude.push_back(std::fabs(scale) * magnitude);
    }
  }
  return s;
}

std::vector<double> rmsnorm_reference(std::span<const float> x, std::span<const float> gamma, double eps) {
  require_same_size(x.size(), gamma.size(), "rmsnorm_reference");
  double squares = 0;
  for (float v : x) squares += static_cast<double>(v) * v;
  const double inv_rms = 1.0 / std::sqrt(squares / static_cast<double>(x.size()) + eps);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv_rms * gamma[i];
  return y;
}

std::vector<double> layernorm_reference(std::span<const float> x, std::span<const float> gamma,
                                        std::span<const float> beta, double eps) {
  require_same_size(x.size(), gamma.size(), "layernorm_reference");
  require_same_size(x.size(), beta.size(), "layernorm_reference");
  const double n = static_cast<double>(x.size());
  double sum = 0;
  for (float v : x) sum += v;
  const double mean = sum / n;
  double squares = 0;
  for (float v : x) squares += (v - mean) * (v - mean);
  const double inv_std = 1.0 / std::sqrt(squares / n + eps);
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = (x[i] - mean) * inv_std * gamma[i] + beta[i];
  return y;
}

float amax_reference(std::span<const float> x) {
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  return amax;
}

float current_scale(float amax, Fp8 format) { return amax > 0 ? fp8_max(format) / amax : 1.0f; }

std::vector<double> attention_row_reference(std::span<const float> q, std::span<const float> keys,
                                            std::span<const float> values, std::int64_t count, double scale) {
  const std::size_t d = q.size();
  if (d == 0 || count <= 0 || keys.size() < count * d || values.size() < count * d)
    throw std::invalid_argument("attention_row_reference: need " + std::to_string(count) + " keys and values of " +
                                std::to_string(d) + " elements");
  std::vector<double> logits(static_cast<std::size_t>(count));
  double max_logit = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < count; ++j) {
    double dot = 0;
    for (std::size_t t = 0; t < d; ++t) dot += static_cast<double>(q[t]) * keys[j * d + t];
    logits[j] = scale * dot;
    max_logit = std::max(max_logit, logits[j]);
  }
  double total = 0;
  for (auto& l : logits) total += (l = std::exp(l - max_logit));
  std::vector<double> out(d, 0.0);
  for (std::int64_t j = 0; j < count; ++j)
    for (std::size_t t = 0; t < d; ++t) out[t] += logits[j] / total * values[j * d + t];
  return out;
}

std::vector<double> linear_dgrad_reference(std::span<const float> dy, std::span<const float> w, std::int64_t m,
                                           std::int64_t n, std::int64_t k) {
  require_same_size(dy.size(), static_cast<std::size_t>(m * n), "linear_dgrad_reference (dy)");
  require_same_size(w.size(), static_cast<std::size_t>(n * k), "linear_dgrad_reference (w)");
  std::vector<double> dx(static_cast<std::size_t>(m * k), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t t = 0; t < n; ++t)
      for (std::int64_t j = 0; j < k; ++j) dx[i * k + j] += static_cast<double>(dy[i * n + t]) * w[t * k + j];
  return dx;
}

std::vector<double> linear_wgrad_reference(std::span<const float> dy, std::span<const float> x, std::int64_t m,
                                           std::int64_t n, std::int64_t k) {
  require_same_size(dy.size(), static_cast<std::size_t>(m * n), "linear_wgrad_reference (dy)");
  require_same_size(x.size(), static_cast<std::size_t>(m * k), "linear_wgrad_reference (x)");
  std::vector<double> dw(static_cast<std::size_t>(n * k), 0.0);
  for (std::int64_t t = 0; t < m; ++t)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < k; ++j) dw[i * k + j] += static_cast<double>(dy[t * n + i]) * x[t * k + j];
  return dw;
}

NormRowGrads norm_backward_reference(std::span<const float> x, std::span<const float> gamma, std::span<const float> dy,
                                     double eps, bool layer_norm) {
  require_same_size(x.size(), gamma.size(), "norm_backward_reference");
  require_same_size(x.size(), dy.size(), "norm_backward_reference");
  const double n = static_cast<double>(x.size());
  NormRowGrads r;
  if (layer_norm) {
    double sum = 0;
    for (float v : x) sum += v;
    r.mean = sum / n;
  }
  double squares = 0;
  for (float v : x) squares += (v - r.mean) * (v - r.mean);
  r.rstd = 1.0 / std::sqrt(squares / n + eps);
  double mean_g = 0, mean_gx = 0;
  std::vector<double> x_hat(x.size()), g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x_hat[i] = (x[i] - r.mean) * r.rstd;
    g[i] = static_cast<double>(gamma[i]) * dy[i];
    mean_g += g[i] / n;
    mean_gx += g[i] * x_hat[i] / n;
  }
  r.dx.resize(x.size());
  r.dgamma.resize(x.size());
  if (layer_norm) r.dbeta.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    r.dx[i] = r.rstd * (g[i] - (layer_norm ? mean_g : 0.0) - x_hat[i] * mean_gx);
    r.dgamma[i] = dy[i] * x_hat[i];
    if (layer_norm) r.dbeta[i] = dy[i];
  }
  return r;
}

ColumnGrads norm_param_column_reference(std::span<const float> x_column, std::span<const float> dy_column,
                                        std::span<const float> mean, std::span<const float> rstd) {
  require_same_size(x_column.size(), dy_column.size(), "norm_param_column_reference");
  require_same_size(x_column.size(), mean.size(), "norm_param_column_reference (mean)");
  require_same_size(x_column.size(), rstd.size(), "norm_param_column_reference (rstd)");
  ColumnGrads c;
  for (std::size_t r = 0; r < x_column.size(); ++r) {
    const double term = static_cast<double>(dy_column[r]) * (static_cast<double>(x_column[r]) - mean[r]) * rstd[r];
    c.dgamma += term;
    c.magnitude += std::fabs(term);
    c.dbeta += dy_column[r];
    c.beta_magnitude += std::fabs(dy_column[r]);
  }
  return c;
}

AttentionRow attention_row(std::span<const float> q, std::span<const float> keys, std::span<const float> values,
                           std::span<const float> dout, std::int64_t first, std::int64_t last, double scale) {
  const std::size_t d = q.size();
  if (d == 0 || first < 0 || last <= first || keys.size() < last * d || values.size() < last * d ||
      (!dout.empty() && dout.size() != d))
    throw std::invalid_argument("attention_row: need keys and values [" + std::to_string(first) + ", " +
                                std::to_string(last) + ") of " + std::to_string(d) + " elements");
  const std::size_t count = static_cast<std::size_t>(last - first);
  std::vector<double> p(count);
  double max_logit = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < count; ++j) {
    double dot = 0;
    for (std::size_t t = 0; t < d; ++t) dot += static_cast<double>(q[t]) * keys[(first + j) * d + t];
    p[j] = scale * dot;
    max_logit = std::max(max_logit, p[j]);
  }
  double total = 0;
  for (auto& l : p) total += (l = std::exp(l - max_logit));
  AttentionRow r;
  r.lse = max_logit + std::log(total);
  r.o.assign(d, 0.0);
  for (std::size_t j = 0; j < count; ++j) {
    p[j] /= total;
    for (std::size_t t = 0; t < d; ++t) r.o[t] += p[j] * values[(first + j) * d + t];
  }
  if (dout.empty()) return r;
  std::vector<double> dp(count);
  double delta = 0;
  for (std::size_t j = 0; j < count; ++j) {
    double dot = 0;
    for (std::size_t t = 0; t < d; ++t) dot += static_cast<double>(dout[t]) * values[(first + j) * d + t];
    dp[j] = dot;
    delta += p[j] * dot;
  }
  r.dq.assign(d, 0.0);
  for (std::size_t j = 0; j < count; ++j) {
    const double ds = p[j] * (dp[j] - delta);
    for (std::size_t t = 0; t < d; ++t) r.dq[t] += scale * ds * keys[(first + j) * d + t];
  }
  return r;
}

KeyGrads attention_key_grads(std::span<const float> key, std::span<const float> value, std::span<const float> queries,
                             std::span<const float> douts, std::span<const double> lse, std::span<const double> delta,
                             double scale) {
  const std::size_t d = key.size();
  require_same_size(value.size(), d, "attention_key_grads (value)");
  require_same_size(queries.size(), lse.size() * d, "attention_key_grads (queries)");
  require_same_size(douts.size(), lse.size() * d, "attention_key_grads (douts)");
  require_same_size(delta.size(), lse.size(), "attention_key_grads (delta)");
  KeyGrads g;
  g.dk.assign(d, 0.0);
  g.dv.assign(d, 0.0);
  g.dk_magnitude.assign(d, 0.0);
  g.dv_magnitude.assign(d, 0.0);
  for (std::size_t i = 0; i < lse.size(); ++i) {
    double qk = 0, dov = 0;
    for (std::size_t t = 0; t < d; ++t) {
      qk += static_cast<double>(queries[i * d + t]) * key[t];
      dov += static_cast<double>(douts[i * d + t]) * value[t];
    }
    const double p = std::exp(scale * qk - lse[i]);
    const double ds = p * (dov - delta[i]);
    for (std::size_t t = 0; t < d; ++t) {
      g.dv[t] += p * douts[i * d + t];
      g.dv_magnitude[t] += std::fabs(p * douts[i * d + t]);
      g.dk[t] += scale * ds * queries[i * d + t];
      g.dk_magnitude[t] += std::fabs(scale * ds * queries[i * d + t]);
    }
  }
  return g;
}

}  // namespace suite

// The spread of a point's process medians, moderated by the spreads of the other points of its
// benchmark, or of its program where the benchmark has too few (docs/compare.md, "Pooled
// noise"): the empirical Bayes variance of Smyth (2004), as limma's squeezeVar fits it. Each
// point's variance is taken as drawn from a scaled inverse chi-square prior (variance s0², df d0)
// fitted to all the group's points by moments of log s²; a point's posterior variance is
// (d0 s0² + d s²) / (d0 + d), with d0 + d degrees of freedom for its t interval. With 2 processes
// a side (d = 2) the t quantile alone makes an interval 2.6 times wider than with d = 12; the
// prior gives the quiet points of a benchmark their benchmark's evidence.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "asv/keys.hpp"
#include "driver/compare/stats.hpp"

namespace pitot::driver::compare {

namespace {

// Recurrence up to x >= 6, then the asymptotic series: plenty for a moment fit.
double digamma(double x) {
  double shift = 0;
  for (; x < 6; x += 1) shift -= 1 / x;
  const double f = 1 / (x * x);
  return shift + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double trigamma(double x) {
  double shift = 0;
  for (; x < 6; x += 1) shift += 1 / (x * x);
  const double f = 1 / (x * x);
  return shift + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

// x with trigamma(x) = y (trigamma falls from +inf to 0 over (0, inf)): bisection on log x.
double inverse_trigamma(double y) {
  double lo = std::log(1e-8), hi = std::log(1e8);
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (trigamma(std::exp(mid)) > y ? lo : hi) = mid;
  }
  return std::exp((lo + hi) / 2);
}

}  // namespace

ProcessSpread process_spread(const SideData& base, const SideData& head) {
  auto logs = [](const std::vector<double>& medians) {
    std::vector<double> out;
    for (double v : medians)
      if (std::isfinite(v) && v > 0) out.push_back(std::log(v));
    return out;
  };
  const auto x = logs(base.process_medians), y = logs(head.process_medians);
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  if (n < 1 || m < 1 || n + m < 3) return {};
  double ss = 0;
  for (const auto* v : {&x, &y}) {
    double mean = 0;
    for (double a : *v) mean += a / static_cast<double>(v->size());
    for (double a : *v) ss += (a - mean) * (a - mean);
  }
  return {ss / (n + m - 2), n + m - 2};
}

NoisePrior fit_noise_prior(const std::vector<ProcessSpread>& spreads) {
  // log s² is unbiased for log σ² after removing digamma(d/2) - log(d/2); its variance over the
  // points is trigamma(d/2) from sampling plus trigamma(d0/2) from the prior's spread.
  std::vector<double> e;
  double sampling = 0;
  for (const auto& s : spreads) {
    if (!(s.df > 0 && s.variance > 0 && std::isfinite(s.variance))) continue;
    const double half = s.df / 2.0;
    e.push_back(std::log(s.variance) - digamma(half) + std::log(half));
    sampling += trigamma(half);
  }
  NoisePrior prior;
  const auto k = static_cast<int>(e.size());
  if (k < kMinPooledPoints) return prior;
  double mean = 0;
  for (double v : e) mean += v / k;
  double var = 0;
  for (double v : e) var += (v - mean) * (v - mean) / (k - 1);
  const double excess = var - sampling / k;
  // No spread beyond sampling: the points share one variance; kMaxPriorDf keeps a point's own
  // spread in play all the same.
  prior.df = excess > 0 ? std::min(kMaxPriorDf, 2 * inverse_trigamma(excess)) : kMaxPriorDf;
  prior.variance = std::exp(mean + digamma(prior.df / 2) - std::log(prior.df / 2));
  prior.points = k;
  return prior;
}

std::vector<std::string> pooling_groups(const std::string& benchmark, const std::string& unit) {
  const std::string program = asv_row_program(benchmark);
  if (program == benchmark) return {program + '\n' + unit};
  return {benchmark + '\n' + unit, program + '\n' + unit};
}

}  // namespace pitot::driver::compare

#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace pitot {

double median(std::vector<double> values) {
  std::erase_if(values, [](double x) { return !std::isfinite(x); });
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

double quantile_sorted(const std::vector<double>& y, double q) {
  if (y.empty()) throw std::invalid_argument("quantile of an empty sample");
  double z = (static_cast<double>(y.size()) - 1.0) * q;
  auto j = static_cast<std::size_t>(std::floor(z));
  double frac = z - static_cast<double>(j);
  if (j + 1 >= y.size()) return y.back();
  // y[j] + frac * step, kept within [y[j], y[j+1]]: monotone in q. (1 - frac) * y[j] + frac *
  // y[j+1] rounds twice and can land an ulp below y[j] between equal values, so percentiles of
  // a sample with repeated values came out unsorted (asv's samples column, docs/asv-format.md §5).
  const double v = y[j] + frac * (y[j + 1] - y[j]);
  return std::clamp(v, y[j], y[j + 1]);
}

std::pair<double, double> median_ci99_sorted(const std::vector<double>& y) {
  // asv_runner.statistics.quantile_ci: walk the Binomial(n, 1/2) CDF over the order statistics.
  const double inf = std::numeric_limits<double>::infinity();
  const double pa = 0.005, pb = 0.995;
  double a = -inf, b = inf;
  const auto n = static_cast<double>(y.size());
  double cdf = 0;
  for (std::size_t k = 0; k < y.size(); ++k) {
    const auto kd = static_cast<double>(k);
    // pmf in log space so that large n neither overflows nor underflows to a wrong sum.
    double log_pmf = std::lgamma(n + 1) - std::lgamma(kd + 1) - std::lgamma(n - kd + 1) - n * std::log(2.0);
    cdf += std::exp(log_pmf);
    if (cdf <= pa) a = y[k];
    if (cdf >= pb) {
      b = y[k];
      break;
    }
  }
  return {a, b};
}

Stats compute_stats(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("statistics of an empty sample");
  std::sort(samples.begin(), samples.end());
  Stats s;
  s.n = static_cast<int>(samples.size());
  s.median = quantile_sorted(samples, 0.5);
  s.q25 = quantile_sorted(samples, 0.25);
  s.q75 = quantile_sorted(samples, 0.75);
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / s.n;
  double ss = 0;
  for (double x : samples) ss += (x - s.mean) * (x - s.mean);
  s.stdev = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0.0;  // sample standard deviation
  std::tie(s.ci99_lo, s.ci99_hi) = median_ci99_sorted(samples);
  return s;
}

}  // namespace pitot

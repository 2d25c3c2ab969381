// The rank statistics of `pitot compare` (driver/compare/stats.hpp): the Hodges-Lehmann shift,
// the Mann-Whitney test and its exact distribution, and the shift's interval from them.
#include "driver/compare/stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace pitot::driver::compare {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Largest n*m for which the exact Mann-Whitney distribution is computed; the normal
// approximation is within a rank or so of it beyond that.
constexpr std::int64_t kExactLimit = 2500;

// Doubles mapped to unsigned integers in the same order, so a bisection over the integers is a
// bisection over every representable double (64 steps at most).
std::uint64_t ordered_bits(double x) {
  auto bits = std::bit_cast<std::uint64_t>(x);
  return (bits >> 63) ? ~bits : (bits | (std::uint64_t{1} << 63));
}
double from_ordered_bits(std::uint64_t o) {
  std::uint64_t bits = (o >> 63) ? (o & ~(std::uint64_t{1} << 63)) : ~o;
  return std::bit_cast<double>(bits);
}

// Number of pairs with b[j] - a[i] <= t. The difference falls as a[i] grows and rises with
// b[j], so the first i that qualifies only moves right as j grows: one pass.
std::int64_t count_differences_at_most(const std::vector<double>& a, const std::vector<double>& b, double t) {
  const std::size_t n = a.size();
  std::size_t i = 0;
  std::int64_t count = 0;
  for (double bj : b) {
    while (i < n && bj - a[i] > t) ++i;
    count += static_cast<std::int64_t>(n - i);
  }
  return count;
}

// Exact null distribution of U (pairs with b > a) for n and m untied samples, as a CDF.
// The largest of the n+m values is a b with probability m/(n+m) (it beats all n a's) or an a.
std::vector<double> exact_u_cdf(int n, int m) {
  // row[j] holds the pmf for (i, j) with i the current row.
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>{1.0});
  for (int i = 1; i <= n; ++i) {
    std::vector<std::vector<double>> cur(m + 1);
    cur[0] = {1.0};
    for (int j = 1; j <= m; ++j) {
      std::vector<double> pmf(static_cast<std::size_t>(i) * j + 1, 0.0);
      const double pb = double(j) / (i + j), pa = double(i) / (i + j);
      const auto& left = cur[j - 1];  // (i, j-1): the largest was a b, adding i to U
      for (std::size_t u = 0; u < left.size(); ++u) pmf[u + i] += pb * left[u];
      const auto& up = prev[j];  // (i-1, j): the largest was an a
      for (std::size_t u = 0; u < up.size(); ++u) pmf[u] += pa * up[u];
      cur[j] = std::move(pmf);
    }
    prev = std::move(cur);
  }
  std::vector<double> cdf = std::move(prev[m]);
  std::partial_sum(cdf.begin(), cdf.end(), cdf.begin());
  return cdf;
}

// The exact CDFs are reused across points of the same sample sizes.
const std::vector<double>& cached_u_cdf(int n, int m) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::vector<double>> cache;
  std::lock_guard lock(mutex);
  auto key = std::minmax(n, m);  // the distribution is symmetric in n and m
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, exact_u_cdf(key.first, key.second)).first;
  return it->second;
}

}  // namespace

double kth_pairwise_difference(const std::vector<double>& a, const std::vector<double>& b, std::int64_t k) {
  const auto total = static_cast<std::int64_t>(a.size()) * static_cast<std::int64_t>(b.size());
  if (k < 1 || k > total) throw std::out_of_range("kth_pairwise_difference: k outside 1..n*m");
  // Smallest t (over all doubles) with count(t) >= k: that t is the k-th difference itself.
  std::uint64_t lo = ordered_bits(b.front() - a.back()), hi = ordered_bits(b.back() - a.front());
  while (lo < hi) {
    std::uint64_t mid = lo + (hi - lo) / 2;
    if (count_differences_at_most(a, b, from_ordered_bits(mid)) >= k) hi = mid;
    else lo = mid + 1;
  }
  return from_ordered_bits(lo);
}

double hodges_lehmann(const std::vector<double>& a, const std::vector<double>& b) {
  const auto total = static_cast<std::int64_t>(a.size()) * static_cast<std::int64_t>(b.size());
  if (total == 0) throw std::invalid_argument("hodges_lehmann: empty sample");
  if (total % 2) return kth_pairwise_difference(a, b, (total + 1) / 2);
  return 0.5 * (kth_pairwise_difference(a, b, total / 2) + kth_pairwise_difference(a, b, total / 2 + 1));
}

double mann_whitney_cdf(int n, int m, std::int64_t u) {
  if (u < 0) return 0.0;
  if (u >= static_cast<std::int64_t>(n) * m) return 1.0;
  return std::min(1.0, cached_u_cdf(n, m)[static_cast<std::size_t>(u)]);
}

std::int64_t shift_interval_rank(int n, int m, double confidence) {
  if (n < 1 || m < 1) return 0;
  const double tail = (1 - confidence) / 2;
  const std::int64_t nm = static_cast<std::int64_t>(n) * m;
  std::int64_t k = 0;
  if (nm <= kExactLimit) {
    // Largest k with P(U <= k-1) <= tail: then each end misses with probability <= tail.
    while (k < nm && mann_whitney_cdf(n, m, k) <= tail) ++k;
  } else {
    const double sigma = std::sqrt(double(nm) * (n + m + 1) / 12.0);
    k = static_cast<std::int64_t>(std::floor(nm / 2.0 + 0.5 - normal_upper_quantile(tail) * sigma));
  }
  k = std::min(k, (nm + 1) / 2);  // the interval never turns inside out
  return std::max<std::int64_t>(k, 0);
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (n == 0 || m == 0) return 1.0;
  // Mid-ranks of the pooled sample; U counts pairs with b above a (ties count one half).
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(n + m);
  for (double x : a) pooled.emplace_back(x, 0);
  for (double x : b) pooled.emplace_back(x, 1);
  std::sort(pooled.begin(), pooled.end());
  const double N = n + m;
  double rank_sum_b = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = double(j - i), mid_rank = (i + 1 + j) / 2.0;
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    for (std::size_t q = i; q < j; ++q)
      if (pooled[q].second == 1) rank_sum_b += mid_rank;
    i = j;
  }
  const double u = rank_sum_b - m * (m + 1) / 2.0;
  const double nm = double(n) * m;
  if (!ties && nm <= kExactLimit) {
    const auto ui = static_cast<std::int64_t>(std::llround(u));
    double lower = mann_whitney_cdf(n, m, ui), upper = 1.0 - mann_whitney_cdf(n, m, ui - 1);
    return std::min(1.0, 2 * std::min(lower, upper));
  }
  const double variance = nm / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
  if (!(variance > 0)) return 1.0;
  const double z = std::max(0.0, std::abs(u - nm / 2) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

ShiftInterval shift_interval(const std::vector<double>& a, const std::vector<double>& b, double confidence) {
  ShiftInterval s;
  s.estimate = hodges_lehmann(a, b);
  const std::int64_t k = shift_interval_rank(static_cast<int>(a.size()), static_cast<int>(b.size()), confidence);
  if (k < 1) {
    s.lo = -kInf;
    s.hi = kInf;
    return s;
  }
  const std::int64_t nm = static_cast<std::int64_t>(a.size()) * static_cast<std::int64_t>(b.size());
  s.lo = kth_pairwise_difference(a, b, k);
  s.hi = kth_pairwise_difference(a, b, nm + 1 - k);
  s.bounded = true;
  return s;
}

}  // namespace pitot::driver::compare

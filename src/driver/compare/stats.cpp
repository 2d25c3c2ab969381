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

#include <fmt/format.h>

#include "core/stats.hpp"

namespace pitot::driver::compare {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
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

std::vector<double> positive_logs(const std::vector<double>& values, int& dropped) {
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values) {
    if (std::isfinite(v) && v > 0) logs.push_back(std::log(v));
    else ++dropped;
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

double median_sorted(const std::vector<double>& s) { return s.empty() ? kNaN : quantile_sorted(s, 0.5); }

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Slower: return "slower";
    case Verdict::Faster: return "faster";
    case Verdict::Unchanged: return "unchanged";
    case Verdict::Inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

const char* noise_source_name(NoiseSource s) {
  switch (s) {
    case NoiseSource::None: return "none";
    case NoiseSource::Processes: return "processes";
    case NoiseSource::History: return "history";
    case NoiseSource::Prior: return "prior";
  }
  return "none";
}

const char* evidence_name(Evidence e) {
  switch (e) {
    case Evidence::Samples: return "samples";
    case Evidence::Processes: return "processes";
    case Evidence::Intervals: return "intervals";
    case Evidence::Values: return "values";
  }
  return "values";
}

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

double normal_upper_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_upper_quantile: p outside (0, 1)");
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
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

Verdict verdict_for_interval(double ratio, double ratio_lo, double ratio_hi, double same_lo, double same_hi,
                             bool higher_is_better, double threshold) {
  const double up = 1 + threshold, down = 1 / up;
  // A change at the threshold is called about half the time (its estimate is beyond it half the
  // time) once the interval is narrower than the threshold; one of twice the threshold nearly
  // always. With no change, the interval must miss 1 (at 99.9%) and the estimate stray past the
  // threshold: both rare.
  if (ratio > up && ratio_lo > 1) return higher_is_better ? Verdict::Faster : Verdict::Slower;
  if (ratio < down && ratio_hi < 1) return higher_is_better ? Verdict::Slower : Verdict::Faster;
  if (same_lo >= down && same_hi <= up) return Verdict::Unchanged;
  return Verdict::Inconclusive;
}

double change_alpha(const MethodOptions& options) { return (1 - options.confidence) / std::max(1, options.looks); }
double unchanged_alpha(const MethodOptions& options) {
  return (1 - options.unchanged_confidence) / std::max(1, options.looks);
}

Comparison compare_samples(const std::vector<double>& base, const std::vector<double>& head,
                           bool higher_is_better, const MethodOptions& options) {
  Comparison c;
  c.evidence = Evidence::Samples;
  int dropped = 0;
  const auto a = positive_logs(base, dropped);
  const auto b = positive_logs(head, dropped);
  c.dropped = dropped;
  const std::string dropped_note =
      dropped ? fmt::format(" ({} non-positive or non-finite samples ignored)", dropped) : "";
  c.ratio_lo = 0;
  c.ratio_hi = kInf;
  c.ratio = (a.empty() || b.empty()) ? kNaN : std::exp(median_sorted(b) - median_sorted(a));
  const auto n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (n < options.min_samples || m < options.min_samples) {
    c.note = fmt::format("too few samples (base {}, head {}; a verdict needs {} a side){}", n, m,
                         options.min_samples, dropped_note);
    return c;
  }
  const ShiftInterval s = shift_interval(a, b, 1 - change_alpha(options));
  const ShiftInterval same = shift_interval(a, b, 1 - unchanged_alpha(options));
  c.ratio = std::exp(s.estimate);
  c.p_value = mann_whitney_p(a, b);
  if (!s.bounded) {
    c.note = fmt::format("too few samples (base {}, head {}) for a {} interval{}", n, m,
                         percent(options.confidence), dropped_note);
    return c;
  }
  c.ratio_lo = std::exp(s.lo);
  c.ratio_hi = std::exp(s.hi);
  c.verdict = same.bounded ? verdict_for_interval(c.ratio, c.ratio_lo, c.ratio_hi, std::exp(same.lo), std::exp(same.hi),
                                                  higher_is_better, options.threshold)
                           : verdict_for_interval(c.ratio, c.ratio_lo, c.ratio_hi, higher_is_better, options.threshold);
  const double alpha = change_alpha(options);
  if ((c.verdict == Verdict::Slower || c.verdict == Verdict::Faster) && !(c.p_value < alpha)) {
    // The interval and the test are duals; with many ties they can part by a hair. Trust neither alone.
    c.note = fmt::format("interval beyond ±{} but rank test p = {:.2g} is not below {:g}", percent(options.threshold),
                         c.p_value, alpha);
    c.verdict = Verdict::Inconclusive;
  } else if (c.verdict == Verdict::Inconclusive) {
    c.note = fmt::format("interval reaches across the ±{} threshold", percent(options.threshold));
  }
  c.note += dropped_note;
  return c;
}

namespace {

// Regularised incomplete beta I_x(a, b) by its continued fraction (modified Lentz).
double incomplete_beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    c = 1 + num / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    c = 1 + num / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1) < 1e-15) break;
  }
  return h;
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * incomplete_beta_fraction(a, b, x) / a;
  return 1 - front * incomplete_beta_fraction(b, a, 1 - x) / b;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double squared_deviations(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s;
}

std::vector<double> positive_logs_unsorted(const std::vector<double>& values, int& dropped) {
  std::vector<double> logs;
  for (double v : values) {
    if (std::isfinite(v) && v > 0) logs.push_back(std::log(v));
    else ++dropped;
  }
  return logs;
}

// exp(half) - 1 in percent: the half-width of an interval of log ratios, as a ratio.
double half_width_percent(double half) { return std::expm1(half) * 100; }

}  // namespace

double student_t_upper(double t, double df) {
  if (!(df > 0) || !std::isfinite(df)) return 0.5 * std::erfc(t / std::sqrt(2.0));
  if (std::isnan(t)) return kNaN;
  const double tail = 0.5 * regularized_incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? tail : 1 - tail;
}

double student_t_upper_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_upper_quantile: p outside (0, 1)");
  if (!(df > 0) || !std::isfinite(df)) return normal_upper_quantile(p);
  double lo = -1e7, hi = 1e7;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (student_t_upper(mid, df) > p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

NoiseFloor history_noise(const std::vector<double>& run_medians) {
  NoiseFloor f;
  int dropped = 0;
  const auto logs = positive_logs_unsorted(run_medians, dropped);
  if (logs.size() < 4) return f;
  double sum = 0;
  for (std::size_t i = 1; i < logs.size(); ++i) sum += (logs[i] - logs[i - 1]) * (logs[i] - logs[i - 1]);
  f.runs = static_cast<int>(logs.size());
  f.sigma = std::sqrt(sum / (2.0 * (f.runs - 1)));
  // Successive differences are correlated: about two thirds of r-1 degrees of freedom (von Neumann).
  f.df = std::max(2, (2 * (f.runs - 1)) / 3);
  return f;
}

Comparison compare_runs(const SideData& base, const SideData& head, bool higher_is_better,
                        const MethodOptions& options, const NoiseFloor& history) {
  int dropped_medians = 0;
  const auto x = positive_logs_unsorted(base.process_medians, dropped_medians);
  const auto y = positive_logs_unsorted(head.process_medians, dropped_medians);
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  const double alpha = change_alpha(options);
  const bool by_processes = n >= 1 && m >= 1 && std::max(n, m) >= 2;

  Comparison c;
  if (!by_processes) {
    c = compare_samples(base.samples, head.samples, higher_is_better, options);
  } else {
    c.evidence = Evidence::Processes;
    int dropped = 0;
    const auto a = positive_logs(base.samples, dropped);
    const auto b = positive_logs(head.samples, dropped);
    c.dropped = dropped;
    const int ns = static_cast<int>(a.size()), ms = static_cast<int>(b.size());
    c.ratio_lo = 0;
    c.ratio_hi = kInf;
    const double d = mean_of(y) - mean_of(x);
    c.ratio = std::exp(d);
    if ((!base.samples.empty() && ns < options.min_samples) || (!head.samples.empty() && ms < options.min_samples)) {
      c.note = fmt::format("too few samples (base {}, head {}; a verdict needs {} a side)", ns, ms, options.min_samples);
    } else {
      const int df = n + m - 2;
      const double s = std::sqrt((squared_deviations(x) + squared_deviations(y)) / df);
      const double se = s * std::sqrt(1.0 / n + 1.0 / m);
      const double q = student_t_upper_quantile(alpha / 2, df);
      double half = q * se, stat_se = se, stat_df = df;
      c.noise = NoiseSource::Processes;
      if (history.sigma > 0) {
        const double se_f = history.sigma * std::sqrt(2.0);
        const double half_f = student_t_upper_quantile(alpha / 2, history.df) * se_f;
        if (half_f > half) {
          half = half_f;
          stat_se = se_f;
          stat_df = history.df;
          c.noise = NoiseSource::History;
          c.history_runs = history.runs;
        }
      }
      c.ratio_lo = std::exp(d - half);
      c.ratio_hi = std::exp(d + half);
      const double half_same = student_t_upper_quantile(unchanged_alpha(options) / 2, stat_df) * stat_se;
      c.noise_percent = half_width_percent(half);
      c.p_value = stat_se > 0 ? std::min(1.0, 2 * student_t_upper(std::abs(d) / stat_se, stat_df)) : (d == 0 ? 1.0 : 0.0);
      c.verdict = verdict_for_interval(c.ratio, c.ratio_lo, c.ratio_hi, std::exp(d - half_same), std::exp(d + half_same),
                                       higher_is_better, options.threshold);
      if (c.verdict == Verdict::Inconclusive)
        c.note = fmt::format("interval reaches across the ±{} threshold", percent(options.threshold));
    }
  }
  c.base_processes = std::max(n, base.samples.empty() ? 0 : 1);
  c.head_processes = std::max(m, head.samples.empty() ? 0 : 1);
  c.dropped += dropped_medians;
  if (by_processes || c.evidence != Evidence::Samples || !(c.ratio_lo > 0) || !std::isfinite(c.ratio_hi)) return c;

  // One process a side: the samples cannot see the offset a process carries. Widen the interval
  // to the run-to-run noise floor: the point's history, else the prior.
  double sigma = 0, df = 0;
  if (history.sigma > 0) {
    sigma = history.sigma;
    df = history.df;
    c.noise = NoiseSource::History;
    c.history_runs = history.runs;
  } else if (options.noise_prior > 0) {
    sigma = options.noise_prior;
    c.noise = NoiseSource::Prior;
  } else {
    return c;
  }
  const double est = std::log(c.ratio);
  const double se_f = sigma * std::sqrt(2.0);
  const double half_f = student_t_upper_quantile(alpha / 2, df) * se_f;
  c.noise_percent = half_width_percent(half_f);
  const double lo = std::min(std::log(c.ratio_lo), est - half_f), hi = std::max(std::log(c.ratio_hi), est + half_f);
  const bool widened = lo < std::log(c.ratio_lo) || hi > std::log(c.ratio_hi);
  c.ratio_lo = std::exp(lo);
  c.ratio_hi = std::exp(hi);
  // The rank test treats samples of one process as independent; the floor's own test does not.
  const double p_floor = std::min(1.0, 2 * student_t_upper(std::abs(est) / se_f, df));
  c.p_value = std::max(c.p_value, p_floor);
  Verdict v = verdict_for_interval(c.ratio, c.ratio_lo, c.ratio_hi, higher_is_better, options.threshold);
  if ((v == Verdict::Slower || v == Verdict::Faster) && !(c.p_value < alpha)) v = Verdict::Inconclusive;
  if (widened) {
    c.note = c.noise == NoiseSource::History ? "one process a side: widened to the noise floor of its history"
                                             : "one process a side: widened to the prior noise floor";
  }
  // The prior is a guess about this machine: it may rule a change out, never in.
  if (c.noise == NoiseSource::Prior && (v == Verdict::Slower || v == Verdict::Faster)) {
    v = Verdict::Inconclusive;
    c.note = fmt::format(
        "one process a side and no history: a {} verdict needs evidence of the run-to-run noise; run "
        "`pitot run --processes 3` for each side (or `pitot ab`), or build a history",
        verdict_name((c.ratio > 1) != higher_is_better ? Verdict::Slower : Verdict::Faster));
  }
  c.verdict = v;
  return c;
}

Comparison compare_intervals(double base_median, double base_lo, double base_hi, double head_median,
                             double head_lo, double head_hi, bool higher_is_better,
                             const MethodOptions& options) {
  Comparison c;
  c.evidence = Evidence::Intervals;
  c.ratio = (base_median > 0 && head_median > 0) ? head_median / base_median : kNaN;
  c.ratio_lo = 0;
  c.ratio_hi = kInf;
  auto usable = [](double x) { return std::isfinite(x) && x > 0; };
  if (!usable(base_lo) || !usable(base_hi) || !usable(head_lo) || !usable(head_hi)) {
    c.note = "no samples, and a stored 99% interval is open (fewer than 8 samples)";
    return c;
  }
  // Both stored intervals hold their medians with 99% each, so this one holds the ratio with at
  // least 98%: conservative, like every step of the fallback.
  c.ratio_lo = head_lo / base_hi;
  c.ratio_hi = head_hi / base_lo;
  c.verdict = verdict_for_interval(c.ratio, c.ratio_lo, c.ratio_hi, higher_is_better, options.threshold);
  c.note = "no samples: from the stored 99% intervals of the medians";
  return c;
}

Comparison compare_values(double base, double head) {
  Comparison c;
  c.evidence = Evidence::Values;
  c.ratio = (base > 0 && head > 0 && std::isfinite(base) && std::isfinite(head)) ? head / base : kNaN;
  c.ratio_lo = 0;
  c.ratio_hi = kInf;
  c.note = "single values without samples or interval: no verdict possible";
  return c;
}

}  // namespace pitot::driver::compare

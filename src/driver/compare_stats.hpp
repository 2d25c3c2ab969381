// The statistics behind `pitot compare`: one verdict per point from two sets of samples.
// The method is described (and its false-alarm rate measured) in docs/compare.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pitot::compare {

// What a point did between base and head, from the user's side: "slower" means worse
// (more seconds, or less throughput), whatever the unit.
enum class Verdict { Slower, Faster, Unchanged, Inconclusive };
const char* verdict_name(Verdict v);

// Which evidence a verdict rests on.
enum class Evidence {
  Samples,    // raw samples on both sides: Hodges-Lehmann interval and Mann-Whitney test
  Intervals,  // no samples: the stored 99% intervals of the medians
  Values,     // single values only: no verdict possible
};
const char* evidence_name(Evidence e);

struct MethodOptions {
  double threshold = 0.02;   // minimum effect: |log ratio| must exceed log(1 + threshold)
  double confidence = 0.99;  // two-sided level of the ratio's interval, per point
  int min_samples = 5;       // fewer samples on either side: inconclusive, never a verdict
};

struct Comparison {
  Verdict verdict = Verdict::Inconclusive;
  Evidence evidence = Evidence::Values;
  double ratio = 0;     // head / base of the stored quantity (time, or throughput); NaN if unknown
  double ratio_lo = 0;  // interval of the ratio; 0 and +inf when it is unbounded
  double ratio_hi = 0;
  double p_value = -1;  // two-sided Mann-Whitney p; negative when no rank test was run
  std::string note;     // why a verdict could not be reached, or what it rests on
};

// --- building blocks, on sorted data -------------------------------------------------------

// The k-th smallest (1-based) of the n*m differences b[j] - a[i], both inputs sorted ascending.
// Exact (the same floating-point value as materialising all differences) in O((n+m) * 64).
double kth_pairwise_difference(const std::vector<double>& a, const std::vector<double>& b,
                               std::int64_t k);

// Hodges-Lehmann estimate of the shift b - a: the median of all pairwise differences.
double hodges_lehmann(const std::vector<double>& a, const std::vector<double>& b);

// The rank k such that [D(k), D(n*m+1-k)] (order statistics of the pairwise differences) is a
// two-sided interval of at least `confidence` for the shift, from the Mann-Whitney distribution
// (exact for n*m <= 2500, normal approximation above). 0 when no such interval exists.
std::int64_t shift_interval_rank(int n, int m, double confidence);

// P(U <= u) of the Mann-Whitney statistic for samples of n and m with no ties (exact).
double mann_whitney_cdf(int n, int m, std::int64_t u);

// Two-sided Mann-Whitney U test p-value (exact without ties for small samples; otherwise the
// normal approximation with tie and continuity corrections). 1 when every value is equal.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// Upper quantile of the standard normal: z with P(Z > z) = p.
double normal_upper_quantile(double p);

struct ShiftInterval {
  double estimate = 0, lo = 0, hi = 0;
  bool bounded = false;  // false: too few samples for an interval at this level
};
// Hodges-Lehmann shift b - a with its Mann-Whitney-inverted interval.
ShiftInterval shift_interval(const std::vector<double>& a_sorted, const std::vector<double>& b_sorted,
                             double confidence);

// --- verdicts ----------------------------------------------------------------------------------

// From raw samples (positive values: seconds per iteration, or a throughput). Works on logs,
// so the shift is a ratio. `higher_is_better` is true for throughput units.
Comparison compare_samples(const std::vector<double>& base, const std::vector<double>& head,
                           bool higher_is_better, const MethodOptions& options);

// From the stored 99% intervals of the medians when there are no samples. An infinite or
// non-positive end makes the verdict inconclusive.
Comparison compare_intervals(double base_median, double base_lo, double base_hi, double head_median,
                             double head_lo, double head_hi, bool higher_is_better,
                             const MethodOptions& options);

// Single values without any interval: the ratio, and never a verdict.
Comparison compare_values(double base, double head);

// The verdict implied by an interval [lo, hi] of the ratio head/base and the threshold.
Verdict verdict_for_interval(double ratio_lo, double ratio_hi, bool higher_is_better, double threshold);

}  // namespace pitot::compare

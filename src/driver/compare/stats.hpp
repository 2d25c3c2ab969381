// The statistics behind `pitot compare`: one verdict per point from two sets of samples.
// The method is described (and its false-alarm rate measured) in docs/compare.md.
// Defined in stats/: the rank statistics (ranks.cpp), the normal and t distributions
// (distributions.cpp), and the verdicts with the noise floor (verdicts.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pitot::driver::compare {

// What a point did between base and head, from the user's side: "slower" means worse
// (more seconds, or less throughput), whatever the unit.
enum class Verdict { Slower, Faster, Unchanged, Inconclusive };
const char* verdict_name(Verdict v);

// Which evidence a verdict rests on.
enum class Evidence {
  Samples,    // raw samples on both sides: Hodges-Lehmann interval and Mann-Whitney test
  Processes,  // per-process medians: a t interval over processes
  Intervals,  // no samples: the stored 99% intervals of the medians
  Values,     // single values only: no verdict possible
};
const char* evidence_name(Evidence e);

struct MethodOptions {
  double threshold = 0.02;   // minimum effect: |log ratio| must exceed log(1 + threshold)
  double confidence = 0.999;  // two-sided level of the ratio's interval, per point
  int min_samples = 5;       // fewer samples on either side: inconclusive, never a verdict
  // Prior run-to-run noise: the standard deviation of log(process median) between processes,
  // used when a side has one process and the point has no history (docs/compare.md, "The noise
  // floor"). 0 turns the prior off (samples of one process are then taken as independent).
  double noise_prior = 0.02;
  // "unchanged" needs the interval at this (narrower) level within ±threshold: an equivalence
  // test whose error, calling a change beyond the threshold unchanged, is at most half of
  // 1 - unchanged_confidence a side. "slower" and "faster" use `confidence`.
  double unchanged_confidence = 0.90;
  // The share of both error rates this comparison spends. pitot ab adds processes to undecided
  // points and looks again: its looks' shares sum to 1 (Bonferroni), so the rates hold over all
  // looks together (ab::look_shares).
  double look_share = 1;
  // Moderate each point's process spread by its program's other points (NoiseSource::Pooled).
  bool pool_noise = true;
  // Compare GPU points by their time at the card's nominal clock (each sample times the SM clock
  // measured over it), where both sides have it and their clocks are not surely apart
  // (docs/compare.md, "Per clock").
  bool per_clock = false;
};

// Where the run-to-run noise of a point comes from.
enum class NoiseSource {
  None,       // no floor: one process a side, no history, prior off
  Processes,  // the spread of the per-process medians of this comparison
  Pooled,     // ... moderated by the spreads of the other points of its program (empirical Bayes)
  History,    // the spread of the point's recent run medians in the database
  Prior,      // the documented prior (MethodOptions::noise_prior)
};
const char* noise_source_name(NoiseSource s);

// Run-to-run noise learned from a point's history: the standard deviation of log(run median)
// between runs, from `runs` runs, with `df` degrees of freedom.
struct NoiseFloor {
  double sigma = 0;  // 0: no history
  int df = 0;
  int runs = 0;
};

// One side of a point: its pooled samples and, when known, the median of each process.
struct SideData {
  std::vector<double> samples;
  std::vector<double> process_medians;  // empty or one entry: a single process
};

struct Comparison {
  Verdict verdict = Verdict::Inconclusive;
  Evidence evidence = Evidence::Values;
  double ratio = 0;     // head / base of the stored quantity (time, or throughput); NaN if unknown
  double ratio_lo = 0;  // interval of the ratio; 0 and +inf when it is unbounded
  double ratio_hi = 0;
  double p_value = -1;  // two-sided Mann-Whitney p; negative when no rank test was run
  std::string note;     // why a verdict could not be reached, or what it rests on
  // The run-to-run noise the interval allows for: its source and the half-width it imposes
  // (percent of the ratio at the chosen confidence; NaN when there is none).
  NoiseSource noise = NoiseSource::None;
  double noise_percent = std::numeric_limits<double>::quiet_NaN();
  int history_runs = 0;                        // runs the history floor was learned from
  int pooled_points = 0;                       // Pooled: the points of the program the prior was fitted to
  double prior_df = 0;                         // ... and the prior's degrees of freedom
  int base_processes = 0, head_processes = 0;  // processes per side (0: unknown)
  bool per_clock = false;                      // compared by the time at the nominal clock
  double clock_shift_percent = std::numeric_limits<double>::quiet_NaN();  // head's clock against base's
  // Per clock: the share of the benchmark's time that follows the SM clock (1: time x clock).
  double clock_elasticity = std::numeric_limits<double>::quiet_NaN();
  int dropped = 0;                             // non-positive or non-finite samples and medians ignored
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

// Student's t with `df` degrees of freedom: P(T > t), and t with P(T > t) = p. df <= 0 means
// the normal distribution (a standard deviation taken as known).
double student_t_upper(double t, double df);
double student_t_upper_quantile(double p, double df);

// Run-to-run noise from a history of run medians (oldest first): the standard deviation of
// log(median) from successive differences (sum of squared differences / 2(r-1)), which a single
// step change in the history inflates only a little. Needs at least 4 positive medians.
NoiseFloor history_noise(const std::vector<double>& run_medians);

struct ShiftInterval {
  double estimate = 0, lo = 0, hi = 0;
  bool bounded = false;  // false: too few samples for an interval at this level
};
// Hodges-Lehmann shift b - a with its Mann-Whitney-inverted interval.
ShiftInterval shift_interval(const std::vector<double>& a_sorted, const std::vector<double>& b_sorted,
                             double confidence);

// --- the noise pooled over a program's points (stats/pooled.cpp) ------------------------------

// The pooled variance of the log process medians of one point (both sides, each about its own
// mean) and its degrees of freedom (n + m - 2); df 0 when the point has no process spread.
struct ProcessSpread {
  double variance = 0;
  int df = 0;
};
ProcessSpread process_spread(const SideData& base, const SideData& head);

// A scaled inverse chi-square prior for the process variance of a program's points; df 0: none.
struct NoisePrior {
  double variance = 0;
  double df = 0;
  int points = 0;  // the points it was fitted to
};
inline constexpr int kMinPooledPoints = 10;  // fewer points with a spread: no prior
inline constexpr double kMaxPriorDf = 50;    // the prior never outweighs this many degrees of freedom
// --per-clock: fewer deviations than this (a benchmark's processes, or a point's samples within
// theirs), no fit (the benchmark: time x clock, 1; the point: its benchmark's).
inline constexpr int kMinElasticityDf = 16;
// --per-clock: how far a point's elasticity may sit from its benchmark's, a priori. On the
// whole-suite runs of an H100, 0.1, 0.25 and 0.5 decided within 1% of each other.
inline constexpr double kElasticitySpread = 0.25;
// The prior fitted by moments of log variance (Smyth 2004; limma's fitFDist, without covariates).
NoisePrior fit_noise_prior(const std::vector<ProcessSpread>& spreads);
// The points that may share one prior, nearest first: one benchmark's of one unit, then its
// program's (the benchmark's first name). A point takes the first whose prior could be fitted.
std::vector<std::string> pooling_groups(const std::string& benchmark, const std::string& unit);

// --- the card's clock taken out (stats/verdicts.cpp) ------------------------------------------

// How far head's clock sat from base's: the difference of the mean log process clocks, in
// percent, and whether its interval at the slower/faster confidence excludes no difference (t over
// the processes, as compare_runs). NaN percent without two processes on one side.
struct ClockShift {
  double percent = std::numeric_limits<double>::quiet_NaN();
  bool sure = false;
  // Apart by more than kClockShiftFar thresholds, sure or not: time x clock is constant only for
  // the part of a kernel the SM clock drives, so a wide shift leaves the memory-bound part's error
  // in the ratio (an H100 FP8 GEMM of 50 us read 3% slower per clock at a 10% shift between 2+2
  // processes, no change made: docs/results/whole-suite-ab.md).
  bool far = false;
  // Whether the point goes back to its times: the clock moved with the build, or too far for the model.
  bool by_time() const { return sure || far; }
};
constexpr double kClockShiftFar = 3;
ClockShift clock_shift(const std::vector<double>& base_clocks, const std::vector<double>& head_clocks,
                       const MethodOptions& options);

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

// The verdict that knows run-to-run noise (docs/compare.md, "The method"). With process medians
// on both sides and at least two on one side: a t interval of the difference of mean log process
// medians (pooled spread, n+m-2 degrees of freedom). With one process a side: the samples'
// Hodges-Lehmann interval. Either is widened to at least the noise floor: the history's (when
// `history.sigma` > 0), else, for one process a side, the prior.
// With a `prior` (df > 0), the process spread is moderated by it (NoiseSource::Pooled).
Comparison compare_runs(const SideData& base, const SideData& head, bool higher_is_better,
                        const MethodOptions& options, const NoiseFloor& history = {}, const NoisePrior& prior = {});

// Single values without any interval: the ratio, and never a verdict.
Comparison compare_values(double base, double head);

// The verdict (docs/compare.md, "The method"): slower when the estimate `ratio` is beyond the
// threshold and the whole interval [lo, hi] above 1, faster the same way round; unchanged when the equivalence interval [same_lo, same_hi] lies within
// ±threshold; else inconclusive.
Verdict verdict_for_interval(double ratio, double ratio_lo, double ratio_hi, double same_lo, double same_hi,
                             bool higher_is_better, double threshold);
// The same with one interval for both questions.
inline Verdict verdict_for_interval(double ratio, double ratio_lo, double ratio_hi, bool higher_is_better,
                                    double threshold) {
  return verdict_for_interval(ratio, ratio_lo, ratio_hi, ratio_lo, ratio_hi, higher_is_better, threshold);
}
// The per-look error rates of `options`: 1 - confidence and 1 - unchanged_confidence, each times the look's share.
double change_alpha(const MethodOptions& options);
double unchanged_alpha(const MethodOptions& options);

}  // namespace pitot::driver::compare

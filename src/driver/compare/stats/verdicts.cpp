// The verdicts of `pitot compare` (driver/compare/stats.hpp): one per point, from samples, from
// process medians widened to the noise floor, from stored intervals, or none from single values;
// the noise floor a point's history gives. The method is in docs/compare.md, "The method".
#include "driver/compare/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "core/stats.hpp"

namespace pitot::driver::compare {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
    case NoiseSource::Pooled: return "pooled";
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

double change_alpha(const MethodOptions& options) { return (1 - options.confidence) * options.look_share; }
double unchanged_alpha(const MethodOptions& options) { return (1 - options.unchanged_confidence) * options.look_share; }

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

// --per-clock's guard (docs/compare.md, "Per clock"): comparing at the nominal clock cannot see a
// change of the clock itself (a build that draws more power and is clocked lower), so the sides'
// process clocks are compared as compare_runs compares process medians, and a sure gap sends the
// point back to its times.
ClockShift clock_shift(const std::vector<double>& base_clocks, const std::vector<double>& head_clocks,
                       const MethodOptions& options) {
  int dropped = 0;
  const auto x = positive_logs_unsorted(base_clocks, dropped), y = positive_logs_unsorted(head_clocks, dropped);
  const auto n = static_cast<double>(x.size()), m = static_cast<double>(y.size());
  ClockShift shift;
  if (x.empty() || y.empty() || std::max(n, m) < 2) return shift;
  const double d = mean_of(y) - mean_of(x), df = n + m - 2;
  const double se = std::sqrt((squared_deviations(x) + squared_deviations(y)) / df) * std::sqrt(1 / n + 1 / m);
  shift.percent = 100 * std::expm1(d);
  shift.sure = se > 0 ? std::abs(d) > student_t_upper_quantile(change_alpha(options) / 2, df) * se : d != 0;
  shift.far = std::abs(d) > std::log1p(kClockShiftFar * options.threshold);
  return shift;
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
                        const MethodOptions& options, const NoiseFloor& history, const NoisePrior& prior) {
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
      double df = n + m - 2;
      double variance = (squared_deviations(x) + squared_deviations(y)) / df;
      c.noise = NoiseSource::Processes;
      if (prior.df > 0) {
        variance = (prior.df * prior.variance + df * variance) / (prior.df + df);
        df += prior.df;
        c.noise = NoiseSource::Pooled;
        c.pooled_points = prior.points;
        c.prior_df = prior.df;
      }
      const double se = std::sqrt(variance) * std::sqrt(1.0 / n + 1.0 / m);
      const double q = student_t_upper_quantile(alpha / 2, df);
      double half = q * se, stat_se = se, stat_df = df;
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

#include "driver/compare/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "driver/common/errors.hpp"

namespace pitot::driver::compare {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What a row's samples are compared on: the times, or with --per-clock the times at the nominal
// clock where both sides have them for as many processes and their clocks are neither surely nor
// far apart.
struct Compared {
  SideData base, head;
  bool per_clock = false;
  ClockShift shift;
  double elasticity = kNaN;
};

bool has_clocks(const PointData& d) {
  return !d.samples_per_clock.empty() && d.process_per_clock.size() == d.process_medians.size() &&
         d.process_clocks.size() == d.process_medians.size();
}

// A side's times at the nominal clock for a kernel whose time follows the clock with elasticity
// e: t x clock^e (e = 1: the per-clock values as the sources computed them).
SideData at_nominal_clock(const PointData& d, double e) {
  if (e == 1) return {d.samples_per_clock, d.process_per_clock};
  SideData s;
  for (std::size_t i = 0; i < d.samples.size() && i < d.samples_per_clock.size(); ++i)
    s.samples.push_back(d.samples[i] * std::pow(d.samples_per_clock[i] / d.samples[i], e));
  for (std::size_t p = 0; p < d.process_medians.size(); ++p)
    s.process_medians.push_back(d.process_medians[p] * std::pow(d.process_clocks[p], e));
  return s;
}

Compared compared_on(const Row& row, const MethodOptions& options, double elasticity) {
  const PointData &b = row.base, &h = row.head;
  Compared e{{b.samples, b.process_medians}, {h.samples, h.process_medians}, false, {}};
  if (!options.per_clock || !has_clocks(b) || !has_clocks(h)) return e;
  e.shift = clock_shift(b.process_clocks, h.process_clocks, options);
  if (e.shift.by_time()) return e;
  e.base = at_nominal_clock(b, elasticity);
  e.head = at_nominal_clock(h, elasticity);
  e.per_clock = true;
  e.elasticity = elasticity;
  return e;
}

// The points whose processes one elasticity is fitted to: a benchmark, in one unit.
std::string elasticity_group(const Row& row) { return row.base.benchmark + '\n' + row.base.unit; }

// A point's own elasticity, fitted on its samples within their processes (base and head together:
// the deviations from each process's means, so no change between the sides enters it): the slope
// of log time on log clock and its sampling variance. None (NaN) with fewer than kMinElasticityDf
// deviations or a clock that did not move.
struct OwnFit {
  double slope = kNaN, variance = kNaN;
};
OwnFit own_fit(const Row& row) {
  const PointData::ClockSums &b = row.base.within_clock, &h = row.head.within_clock;
  const double tt = b.tt + h.tt, tc = b.tc + h.tc, cc = b.cc + h.cc;
  const int df = b.df + h.df;
  if (df < kMinElasticityDf || !(cc > 0)) return {};
  const double residual = std::max(tt - tc * tc / cc, 0.0) / (df - 1);
  return {-tc / cc, residual / cc};
}

// The elasticity of each benchmark's time to the SM clock, for --per-clock: log process time on
// log process clock, by least squares on the deviations from each point's side means (so a change
// between the sides cannot enter it), pooled over the benchmark's points, clamped to 0
// (memory-bound) - 1 (SM-bound). On an H100 it was 0.7-0.8 for GEMMs and attention and about 0
// for memory-bound kernels, and at it the GEMMs' spread between processes was 0.26-0.28% against
// 0.45-0.58% at 1 (docs/results/whole-suite-ab.md, "The clock's share of the time, fitted"). Too
// few processes to fit: 1.
std::map<std::string, double> clock_elasticities(const std::vector<Row>& rows) {
  struct Sums {
    double tc = 0, cc = 0;
    int df = 0;
  };
  std::map<std::string, Sums> sums;
  for (const Row& row : rows)
    for (const PointData* d : {&row.base, &row.head}) {
      const std::size_t n = d->process_medians.size();
      if (n < 2 || !has_clocks(*d)) continue;
      std::vector<double> lt, lc;  // log time and log clock of each process
      for (std::size_t p = 0; p < n; ++p) {
        lt.push_back(std::log(d->process_medians[p]));
        lc.push_back(std::log(d->process_clocks[p]));
      }
      double mt = 0, mc = 0;
      for (std::size_t p = 0; p < n; ++p) {
        mt += lt[p] / static_cast<double>(n);
        mc += lc[p] / static_cast<double>(n);
      }
      if (!std::isfinite(mt) || !std::isfinite(mc)) continue;  // a non-positive time or clock
      Sums& s = sums[elasticity_group(row)];
      for (std::size_t p = 0; p < n; ++p) {
        s.tc += (lt[p] - mt) * (lc[p] - mc);
        s.cc += (lc[p] - mc) * (lc[p] - mc);
      }
      s.df += static_cast<int>(n) - 1;
    }
  std::map<std::string, double> out;
  for (const auto& [group, s] : sums)
    out[group] = s.df >= kMinElasticityDf && s.cc > 0 ? std::clamp(-s.tc / s.cc, 0.0, 1.0) : 1.0;
  return out;
}

// The point's elasticity: its own fit and its benchmark's, weighed by their precisions (the
// benchmark's as a prior that its points sit within kElasticitySpread of it). The benchmark's
// alone was wrong for some of its points: on an H100 the time of a small MoE GEMM stayed within
// 1.3% over processes whose clock readings sat 0.73-0.93 of the nominal, so at the GEMMs' 0.7 its
// processes read up to 19% apart per clock (docs/results/whole-suite-ab.md, "Seventh run"). A
// point whose clock hardly moves within a process keeps about its benchmark's.
double elasticity_of(const std::map<std::string, double>& elasticities, const Row& row) {
  const auto it = elasticities.find(elasticity_group(row));
  const double group = it == elasticities.end() ? 1.0 : it->second;
  const OwnFit own = own_fit(row);
  if (!std::isfinite(own.slope)) return group;
  const double w_own = 1 / std::max(own.variance, 1e-300), w_group = 1 / (kElasticitySpread * kElasticitySpread);
  return std::clamp((w_own * own.slope + w_group * group) / (w_own + w_group), 0.0, 1.0);
}

// Pick the strongest evidence both sides have.
Comparison compare_points(const PointData& base, const PointData& head, const Compared& e, bool higher_is_better,
                          const MethodOptions& options, const NoiseFloor& history, const NoisePrior& prior) {
  if (!base.samples.empty() && !head.samples.empty()) {
    Comparison c = compare_runs(e.base, e.head, higher_is_better, options, history, prior);
    c.per_clock = e.per_clock;
    c.clock_shift_percent = e.shift.percent;
    c.clock_elasticity = e.elasticity;
    if (e.shift.by_time())
      c.note += fmt::format("{}the card's clock sat {:+.1f}% apart between the sides: compared by time, not per clock",
                            c.note.empty() ? "" : "; ", e.shift.percent);
    return c;
  }
  if (base.has_interval && head.has_interval)
    return compare_intervals(base.value, base.ci_lo, base.ci_hi, head.value, head.ci_lo, head.ci_hi,
                             higher_is_better, options);
  return compare_values(base.value, head.value);
}

// The groups whose prior a row may take, nearest first (stats/pooled.cpp). Times and times per
// clock spread differently: each has its own.
std::vector<std::string> prior_keys(const Row& row, const Compared& e) {
  std::vector<std::string> keys = pooling_groups(row.base.benchmark, row.base.unit);
  for (auto& key : keys) key += e.per_clock ? "\nper clock" : "";
  return keys;
}

// The prior of each benchmark's and each program's process spreads (stats/pooled.cpp), from their
// points compared by processes; a group with too few such points gets none.
std::map<std::string, NoisePrior> pooled_priors(const std::vector<Row>& rows, const std::vector<Compared>& compared) {
  std::map<std::string, std::vector<ProcessSpread>> spreads;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    if (row.base.samples.empty() || row.head.samples.empty()) continue;
    const ProcessSpread s = process_spread({{}, compared[i].base.process_medians}, {{}, compared[i].head.process_medians});
    if (s.df > 0)
      for (const auto& key : prior_keys(row, compared[i])) spreads[key].push_back(s);
  }
  std::map<std::string, NoisePrior> priors;
  for (const auto& [group, list] : spreads)
    if (NoisePrior p = fit_noise_prior(list); p.df > 0) priors[group] = p;
  return priors;
}

// A row's prior: its benchmark's where its benchmark has one, else its program's (none: {}).
// A program's benchmarks can differ much in spread (on an H100 the GEMMs' against the MoE
// GEMMs'), and its prior then spreads widely (d0 of 1-4), pooling little.
NoisePrior prior_of(const std::map<std::string, NoisePrior>& priors, const Row& row, const Compared& e) {
  for (const auto& key : prior_keys(row, e))
    if (const auto it = priors.find(key); it != priors.end()) return it->second;
  return {};
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::Slower: return 0;
    case Verdict::Inconclusive: return 1;
    case Verdict::Faster: return 2;
    case Verdict::Unchanged: return 3;
  }
  return 1;
}

}  // namespace

int Report::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const Row& r) { return r.comparison.verdict == v; }));
}

double Report::geometric_mean() const {
  double sum = 0;
  int n = 0;
  for (const auto& r : rows)
    if (std::isfinite(r.effect)) {
      sum += r.effect;
      ++n;
    }
  return n ? std::exp(sum / n) : kNaN;
}

Report build_report(const ResultSet& base, const ResultSet& head, const MethodOptions& options) {
  Report r;
  r.base_label = base.label;
  r.head_label = head.label;
  r.options = options;
  r.history_files = head.history_files;
  r.environments = head.environments;
  std::map<std::string, const PointData*> head_by_key;
  for (const auto& p : head.points) head_by_key[p.key] = &p;
  std::size_t shared = 0;
  for (const auto& b : base.points) shared += head_by_key.count(b.key);
  if (shared == 0 && !base.points.empty() && !head.points.empty())
    throw InputError(fmt::format(
        "base and head share no point: nothing to compare (base has {} points, such as {}; "
        "head has {}, such as {}). Are they runs of the same programs?",
        base.points.size(), base.points.front().display, head.points.size(),
        head.points.front().display));
  std::map<std::string, bool> in_base;
  std::vector<NoiseFloor> floors;  // one per row
  for (const auto& b : base.points) {
    in_base[b.key] = true;
    auto it = head_by_key.find(b.key);
    if (it == head_by_key.end()) {
      if (!b.derived) r.removed.push_back({b.display, ""});
      continue;
    }
    const PointData& h = *it->second;
    if (b.unit != h.unit)
      throw InputError(fmt::format("mismatched units for {}: {} in base ({}), {} in head ({})", b.display, b.unit,
                                   base.label, h.unit, head.label));
    if (b.world_size != h.world_size)
      throw InputError(fmt::format("{} ran in {} rank{} in base ({}) and in {} in head ({}): a multi-rank point on one "
                                   "number of GPUs is not the same point on another; compare runs of the same "
                                   "--ranks (docs/ranks.md)",
                                   b.display, b.world_size, b.world_size == 1 ? "" : "s", base.label, h.world_size,
                                   head.label));
    const bool skipped_both = b.state == PointState::Skipped && h.state == PointState::Skipped;
    if (b.derived || h.derived) {
      if (!skipped_both) ++r.derived_tracks;
      continue;
    }
    if (skipped_both) {
      // Nothing ran on either side: no change to report, and no line for it.
      ++r.skipped_both;
      continue;
    }
    const bool base_ok = b.state == PointState::Ok, head_ok = h.state == PointState::Ok;
    if (base_ok && h.state == PointState::Failed) {
      r.failed.push_back({b.display, h.reason});
    } else if (b.state == PointState::Failed && head_ok) {
      r.fixed.push_back({b.display, b.reason});
    } else if (b.state == PointState::Failed && h.state == PointState::Failed) {
      r.still_failing.push_back({b.display, h.reason});
    } else if (!base_ok || !head_ok) {
      if (base_ok || head_ok)
        r.not_comparable.push_back(
            {b.display, fmt::format("skipped in {}: {}", base_ok ? "head" : "base", base_ok ? h.reason : b.reason)});
      else  // one side failed, the other skipped
        r.not_comparable.push_back({b.display, b.state == PointState::Failed
                                                   ? fmt::format("failed in base, skipped in head: {}", h.reason)
                                                   : fmt::format("skipped in base, failed in head: {}", h.reason)});
    } else if (!b.version.empty() && !h.version.empty() && b.version != h.version) {
      r.not_comparable.push_back({b.display, fmt::format("benchmark version changed ({} -> {})", b.version, h.version)});
    } else {
      Row row;
      row.base = b;
      row.head = h;
      row.higher_is_better = unit_higher_is_better(b.unit);
      NoiseFloor floor;
      if (auto hist = head.history.find(b.key); hist != head.history.end()) floor = history_noise(hist->second);
      floors.push_back(floor);
      r.rows.push_back(std::move(row));
    }
  }
  const auto elasticities = options.per_clock ? clock_elasticities(r.rows) : std::map<std::string, double>{};
  std::vector<Compared> compared;
  for (const Row& row : r.rows) compared.push_back(compared_on(row, options, elasticity_of(elasticities, row)));
  const auto priors = options.pool_noise ? pooled_priors(r.rows, compared) : std::map<std::string, NoisePrior>{};
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    Row& row = r.rows[i];
    row.comparison = compare_points(row.base, row.head, compared[i], row.higher_is_better, options, floors[i],
                                    prior_of(priors, row, compared[i]));
    r.dropped += row.comparison.dropped;
    const double ratio = row.comparison.ratio;
    row.effect = (std::isfinite(ratio) && ratio > 0) ? std::log(ratio) * (row.higher_is_better ? -1 : 1) : kNaN;
    if (is_change(row.comparison.verdict)) row.kernels = kernel_changes(row.base, row.head);
    row.state_differs = state_differences(row.base.card, row.head.card,
                                          clock_shift(row.base.process_clocks, row.head.process_clocks, options));
  }
  for (const auto& h : head.points)
    if (!in_base.count(h.key) && !h.derived) r.added.push_back({h.display, h.state == PointState::Ok ? "" : h.reason});
  sort_rows(r.rows);
  r.state = check_state(r.rows);
  return r;
}

void sort_rows(std::vector<Row>& rows) {
  // Unknown effects last; ties by name so the order is stable.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const int sa = severity(a.comparison.verdict), sb = severity(b.comparison.verdict);
    if (sa != sb) return sa < sb;
    const bool fa = std::isfinite(a.effect), fb = std::isfinite(b.effect);
    if (fa != fb) return fa;
    if (fa && a.effect != b.effect) return a.effect > b.effect;
    return a.base.display < b.base.display;
  });
}

int report_exit_code(const Report& report) {
  return (report.count(Verdict::Slower) > 0 || !report.failed.empty()) ? 1 : 0;
}

}  // namespace pitot::driver::compare

// The method of `pitot compare` on synthetic samples with known answers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "driver/compare/stats.hpp"
#include "noise.hpp"

namespace pc = pitot::driver::compare;

namespace {

using pitot::driver::compare::testing::Noise;

std::vector<double> lognormal_samples(Noise& noise, int n, double median, double sigma) {
  std::vector<double> v(n);
  for (auto& x : v) x = noise.lognormal(median, sigma);
  return v;
}

// A GPU-like timing: mostly tight, with a right tail (a tenth of the samples 1.2x-3x slower:
// a neighbour, a clock dip, an interrupt).
std::vector<double> heavy_tailed_samples(Noise& noise, int n, double median) {
  std::vector<double> v(n);
  for (auto& x : v) {
    x = noise.lognormal(median, 0.01);
    if (noise.uniform() < 0.1) x *= 1.2 + 1.8 * noise.uniform();
  }
  return v;
}

// Event timers tick in 32 ns steps: most samples share a handful of values.
std::vector<double> quantized_samples(Noise& noise, int n, double median, double sigma) {
  std::vector<double> v(n);
  for (auto& x : v) x = std::round(noise.lognormal(median, sigma) / 32e-9) * 32e-9;
  return v;
}

struct Tally {
  int slower = 0, faster = 0, unchanged = 0, inconclusive = 0;
  void add(pc::Verdict v) {
    switch (v) {
      case pc::Verdict::Slower: ++slower; break;
      case pc::Verdict::Faster: ++faster; break;
      case pc::Verdict::Unchanged: ++unchanged; break;
      case pc::Verdict::Inconclusive: ++inconclusive; break;
    }
  }
};

std::ostream& operator<<(std::ostream& o, const Tally& t) {
  return o << "slower " << t.slower << ", faster " << t.faster << ", unchanged " << t.unchanged << ", inconclusive "
           << t.inconclusive;
}

constexpr int kTrials = 1000;

template <class Make>
Tally run_trials(std::uint64_t seed, const pc::MethodOptions& options, Make make) {
  Noise noise(seed);
  Tally tally;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> base, head;
    make(noise, base, head);
    tally.add(pc::compare_samples(base, head, false, options).verdict);
  }
  return tally;
}

}  // namespace

// --- building blocks against known values (scipy.stats.mannwhitneyu, R's wilcox.test) ----------

TEST(CompareStats, MannWhitneyPValueMatchesScipy) {
  // scipy.stats.mannwhitneyu(a, b).pvalue (exact, two-sided) = 0.10139860139860139
  EXPECT_NEAR(pc::mann_whitney_p({1, 2, 3, 4, 5, 6, 7}, {2.5, 3.5, 8, 9, 10, 11}), 0.1013986014, 1e-9);
  // With ties: method='asymptotic' (tie and continuity corrected) = 0.016098254978888133
  EXPECT_NEAR(pc::mann_whitney_p({1, 1, 2, 2, 3, 3, 3, 4}, {2, 3, 3, 4, 4, 5, 5, 5, 6}), 0.0160982550, 1e-9);
  EXPECT_DOUBLE_EQ(pc::mann_whitney_p({2, 2, 2}, {2, 2, 2}), 1.0);
}

TEST(CompareStats, ExactDistributionIsAProbability) {
  EXPECT_NEAR(pc::mann_whitney_cdf(7, 9, 7 * 9), 1.0, 1e-12);
  EXPECT_NEAR(pc::mann_whitney_cdf(5, 5, 0), 1.0 / 252, 1e-15);  // one ordering of C(10,5)
  for (int u = 0; u <= 30; ++u)                                  // symmetric: P(U <= u) = P(U >= nm - u)
    EXPECT_NEAR(pc::mann_whitney_cdf(6, 10, u), 1 - pc::mann_whitney_cdf(6, 10, 60 - u - 1), 1e-12);
}

TEST(CompareStats, IntervalRankMatchesTables) {
  EXPECT_EQ(pc::shift_interval_rank(10, 10, 0.95), 24);  // R: wilcox.test(conf.int=TRUE) uses D(24)..D(77)
  EXPECT_EQ(pc::shift_interval_rank(5, 5, 0.99), 1);     // 2/252 < 1%: [min, max] of the differences
  EXPECT_EQ(pc::shift_interval_rank(4, 4, 0.99), 0);     // 2/70 > 1%: no 99% interval exists
  // Exact and normal approximation agree around the switch-over.
  const auto exact = pc::shift_interval_rank(50, 50, 0.99);
  const double sigma = std::sqrt(50.0 * 50 * 101 / 12);
  const double normal = 1250 + 0.5 - pc::normal_upper_quantile(0.005) * sigma;
  EXPECT_NEAR(static_cast<double>(exact), normal, 2.0);
}

TEST(CompareStats, KthPairwiseDifferenceIsExact) {
  Noise noise(7);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 1 + static_cast<int>(noise.uniform() * 25), m = 1 + static_cast<int>(noise.uniform() * 25);
    std::vector<double> a(n), b(m);
    for (auto& x : a) x = std::round(noise.normal() * 4) / 4;  // ties on purpose
    for (auto& x : b) x = noise.normal();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<double> all;
    for (double y : b)
      for (double x : a) all.push_back(y - x);
    std::sort(all.begin(), all.end());
    for (int k = 1; k <= n * m; ++k) ASSERT_EQ(pc::kth_pairwise_difference(a, b, k), all[k - 1]) << "k=" << k;
  }
}

TEST(CompareStats, HodgesLehmannFindsAShift) {
  std::vector<double> a = {1, 2, 3, 4, 5}, b = {11, 12, 13, 14, 15};
  EXPECT_DOUBLE_EQ(pc::hodges_lehmann(a, b), 10.0);
  auto s = pc::shift_interval(a, b, 0.99);
  EXPECT_TRUE(s.bounded);
  EXPECT_DOUBLE_EQ(s.lo, 6.0);  // 5+5 at 99%: min and max of the differences
  EXPECT_DOUBLE_EQ(s.hi, 14.0);
}

// --- the verdicts the issue asks for --------------------------------------------------------

// Identical distributions: how often is "slower" claimed? At most 1% of 1,000 seeded trials,
// even with no minimum effect at all (threshold 0), where only the 99% interval protects.
TEST(CompareStats, AATrialsRarelyClaimSlower) {
  pc::MethodOptions options;
  for (double threshold : {0.0, 0.02}) {
    options.threshold = threshold;
    for (int n : {10, 30, 100}) {
      Tally t = run_trials(1000 + n, options, [n](Noise& noise, auto& base, auto& head) {
        base = lognormal_samples(noise, n, 1e-3, 0.02);
        head = lognormal_samples(noise, n, 1e-3, 0.02);
      });
      std::cout << "A/A lognormal 2%, " << n << " a side, threshold " << threshold << ": " << t << "\n";
      EXPECT_LE(t.slower, kTrials / 100) << t;
      EXPECT_LE(t.faster, kTrials / 100) << t;
    }
  }
}

TEST(CompareStats, AATrialsWithHeavyTailsAndTiesRarelyClaimSlower) {
  pc::MethodOptions zero;
  zero.threshold = 0;
  Tally tails = run_trials(11, zero, [](Noise& noise, auto& base, auto& head) {
    base = heavy_tailed_samples(noise, 30, 5e-6);
    head = heavy_tailed_samples(noise, 30, 5e-6);
  });
  std::cout << "A/A heavy right tail, 30 a side, threshold 0: " << tails << "\n";
  EXPECT_LE(tails.slower, kTrials / 100) << tails;
  Tally ties = run_trials(12, zero, [](Noise& noise, auto& base, auto& head) {
    base = quantized_samples(noise, 30, 3.2e-6, 0.01);  // ~100 ticks: four or five distinct values
    head = quantized_samples(noise, 30, 3.2e-6, 0.01);
  });
  std::cout << "A/A 32 ns ticks, 30 a side, threshold 0: " << ties << "\n";
  EXPECT_LE(ties.slower, kTrials / 100) << ties;
}

// A real 5% slowdown with 30 samples a side (1% noise) is found at least 99% of the time.
TEST(CompareStats, FivePercentShiftIsFound) {
  pc::MethodOptions options;  // threshold 2%, 99%
  Tally t = run_trials(5, options, [](Noise& noise, auto& base, auto& head) {
    base = lognormal_samples(noise, 30, 1e-3, 0.01);
    head = lognormal_samples(noise, 30, 1.05e-3, 0.01);
  });
  std::cout << "5% shift, lognormal 1%, 30 a side: " << t << "\n";
  EXPECT_GE(t.slower, kTrials * 99 / 100) << t;
  EXPECT_EQ(t.faster, 0) << t;
  // And a 5% speed-up the other way.
  Tally f = run_trials(6, options, [](Noise& noise, auto& base, auto& head) {
    base = lognormal_samples(noise, 30, 1.05e-3, 0.01);
    head = lognormal_samples(noise, 30, 1e-3, 0.01);
  });
  EXPECT_GE(f.faster, kTrials * 99 / 100) << f;
  EXPECT_EQ(f.slower, 0) << f;
}

// Medians and rank statistics shrug off outliers where a mean would not.
TEST(CompareStats, HeavyRightTailsStillShowTheShift) {
  pc::MethodOptions options;
  Tally t = run_trials(8, options, [](Noise& noise, auto& base, auto& head) {
    base = heavy_tailed_samples(noise, 30, 1e-3);
    head = heavy_tailed_samples(noise, 30, 1.05e-3);
  });
  std::cout << "5% shift, heavy right tail, 30 a side: " << t << "\n";
  EXPECT_GE(t.slower, kTrials * 95 / 100) << t;
  EXPECT_EQ(t.faster, 0) << t;
}

TEST(CompareStats, AFewHugeOutliersAreNotARegression) {
  Noise noise(9);
  auto base = lognormal_samples(noise, 30, 1e-3, 0.005);
  auto head = lognormal_samples(noise, 30, 1e-3, 0.005);
  for (int i = 0; i < 3; ++i) head[i * 10] *= 50;  // three samples 50x slower
  auto c = pc::compare_samples(base, head, false, {});
  EXPECT_NE(c.verdict, pc::Verdict::Slower) << c.note;
  EXPECT_NEAR(c.ratio, 1.0, 0.01);
}

TEST(CompareStats, TiesAllEqualAreUnchanged) {
  std::vector<double> same(20, 3.2e-6);
  auto c = pc::compare_samples(same, same, false, {});
  EXPECT_EQ(c.verdict, pc::Verdict::Unchanged);
  EXPECT_DOUBLE_EQ(c.ratio, 1.0);
  EXPECT_DOUBLE_EQ(c.p_value, 1.0);
}

TEST(CompareStats, QuantizedShiftIsFound) {
  Noise noise(10);
  auto base = quantized_samples(noise, 30, 3.2e-6, 0.01);
  auto head = quantized_samples(noise, 30, 3.2e-6 * 1.10, 0.01);
  auto c = pc::compare_samples(base, head, false, {});
  EXPECT_EQ(c.verdict, pc::Verdict::Slower) << c.note;
  EXPECT_NEAR(c.ratio, 1.10, 0.02);
}

TEST(CompareStats, TinySamplesAreInconclusive) {
  // A doubling that no one could miss, but with too few samples to show it was not chance.
  for (int n = 1; n <= 4; ++n) {
    std::vector<double> base(n), head(n);
    for (int i = 0; i < n; ++i) {
      base[i] = 1e-3 * (1 + 0.001 * i);
      head[i] = 2e-3 * (1 + 0.001 * i);
    }
    auto c = pc::compare_samples(base, head, false, {});
    EXPECT_EQ(c.verdict, pc::Verdict::Inconclusive) << "n=" << n;
    EXPECT_NEAR(c.ratio, 2.0, 0.01) << "n=" << n;  // the estimate is still shown
    EXPECT_NE(c.note.find("too few samples"), std::string::npos) << c.note;
    // Even when the sample floor is lowered, 4+4 cannot give a 99% interval.
    pc::MethodOptions low;
    low.min_samples = 1;
    EXPECT_EQ(pc::compare_samples(base, head, false, low).verdict, pc::Verdict::Inconclusive) << "n=" << n;
  }
  // One side tiny is enough to refuse.
  Noise noise(3);
  auto c = pc::compare_samples(lognormal_samples(noise, 100, 1e-3, 0.01), {2e-3, 2e-3}, false, {});
  EXPECT_EQ(c.verdict, pc::Verdict::Inconclusive);
}

TEST(CompareStats, ThroughputDirection) {
  Noise noise(4);
  auto base = lognormal_samples(noise, 30, 100.0, 0.01);  // GB/s
  auto head = lognormal_samples(noise, 30, 90.0, 0.01);
  auto c = pc::compare_samples(base, head, /*higher_is_better=*/true, {});
  EXPECT_EQ(c.verdict, pc::Verdict::Slower);  // less throughput is worse
  EXPECT_NEAR(c.ratio, 0.9, 0.01);
  EXPECT_EQ(pc::compare_samples(head, base, true, {}).verdict, pc::Verdict::Faster);
}

TEST(CompareStats, SmallRealChangeIsUnchangedNotSlower) {
  // A certain 0.5% slowdown: real, but below the 2% that matters.
  Noise noise(13);
  auto base = lognormal_samples(noise, 200, 1e-3, 0.002);
  auto head = lognormal_samples(noise, 200, 1.005e-3, 0.002);
  auto c = pc::compare_samples(base, head, false, {});
  EXPECT_EQ(c.verdict, pc::Verdict::Unchanged);
  EXPECT_LT(c.p_value, 0.01);  // the rank test sees it; the threshold decides it does not matter
}

TEST(CompareStats, NoisyChangeNearThresholdIsInconclusive) {
  Noise noise(14);
  auto base = lognormal_samples(noise, 10, 1e-3, 0.05);
  auto head = lognormal_samples(noise, 10, 1.03e-3, 0.05);
  EXPECT_EQ(pc::compare_samples(base, head, false, {}).verdict, pc::Verdict::Inconclusive);
}

TEST(CompareStats, NonPositiveSamplesAreIgnoredAndSaid) {
  std::vector<double> base = {1, 1.01, 0.99, 1, 1.02, 0.98, 0, -1}, head = {2, 2.01, 1.99, 2, 2.02, 1.98};
  pc::MethodOptions at99;  // 6 + 6 samples cannot give a 99.9% interval at all
  at99.confidence = 0.99;
  auto c = pc::compare_samples(base, head, false, at99);
  EXPECT_EQ(c.verdict, pc::Verdict::Slower);
  EXPECT_NE(c.note.find("2 non-positive"), std::string::npos) << c.note;
}

// --- fallbacks without samples --------------------------------------------------------------

TEST(CompareStats, StoredIntervalsFallback) {
  // The sample database's 30% regression, from its stored intervals only.
  auto c = pc::compare_intervals(0.00411, 0.00408, 0.00415, 0.005343, 0.005304, 0.005395, false, {});
  EXPECT_EQ(c.verdict, pc::Verdict::Slower);
  EXPECT_EQ(c.evidence, pc::Evidence::Intervals);
  EXPECT_NEAR(c.ratio, 1.3, 0.001);
  EXPECT_NE(c.note.find("stored 99% intervals"), std::string::npos);
  // Overlapping intervals within the threshold: unchanged.
  EXPECT_EQ(pc::compare_intervals(1.0, 0.995, 1.005, 1.001, 0.996, 1.006, false, {}).verdict, pc::Verdict::Unchanged);
  // Wide intervals: inconclusive.
  EXPECT_EQ(pc::compare_intervals(1.0, 0.9, 1.1, 1.05, 0.95, 1.15, false, {}).verdict, pc::Verdict::Inconclusive);
  // An open end (asv writes ±inf for fewer than 8 samples): inconclusive.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(pc::compare_intervals(1.0, -inf, inf, 2.0, 1.9, 2.1, false, {}).verdict, pc::Verdict::Inconclusive);
}

TEST(CompareStats, SingleValuesNeverGiveAVerdict) {
  auto c = pc::compare_values(1.25e6, 1.1e6);
  EXPECT_EQ(c.verdict, pc::Verdict::Inconclusive);
  EXPECT_NEAR(c.ratio, 0.88, 1e-9);
  EXPECT_EQ(c.evidence, pc::Evidence::Values);
}

TEST(CompareStats, VerdictForIntervalEdges) {
  using pc::Verdict;
  // Slower: the estimate beyond the threshold (2%) and the interval wholly above 1 (a change).
  EXPECT_EQ(pc::verdict_for_interval(1.05, 1.03, 1.2, false, 0.02), Verdict::Slower);
  EXPECT_EQ(pc::verdict_for_interval(1.025, 1.001, 1.04, false, 0.02), Verdict::Slower);
  EXPECT_EQ(pc::verdict_for_interval(1.025, 0.999, 1.04, false, 0.02), Verdict::Inconclusive);  // may be no change
  EXPECT_EQ(pc::verdict_for_interval(1.019, 1.015, 1.023, false, 0.02), Verdict::Inconclusive);  // estimate under it
  EXPECT_EQ(pc::verdict_for_interval(1.0, 0.99, 1.01, false, 0.02), Verdict::Unchanged);
  EXPECT_EQ(pc::verdict_for_interval(0.9, 0.8, 0.97, false, 0.02), Verdict::Faster);
  EXPECT_EQ(pc::verdict_for_interval(0.9, 0.8, 0.97, true, 0.02), Verdict::Slower);
  // Unchanged is read from the equivalence interval, slower from the wider one.
  EXPECT_EQ(pc::verdict_for_interval(1.0, 0.97, 1.03, 0.99, 1.01, false, 0.02), Verdict::Unchanged);
  EXPECT_EQ(pc::verdict_for_interval(1.0, 0.97, 1.03, 0.97, 1.03, false, 0.02), Verdict::Inconclusive);
}

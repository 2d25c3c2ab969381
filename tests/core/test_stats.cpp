// Statistics against values computed by hand (see the comments for the arithmetic).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "core/stats.hpp"

using pitot::compute_stats;

TEST(Stats, TenSamples) {
  // 1..10 shuffled. median (5+6)/2; q25: z=9*0.25=2.25 -> 3+0.25*(4-3); q75: z=6.75 -> 7.75;
  // stdev: sample variance of 1..10 is 10*11/12.
  // CI: Binomial(10,1/2) CDF is 1/1024 at k=0 (<= 0.005) and 11/1024 at k=1, so a=y[0];
  // it first reaches 0.995 at k=9 (1023/1024), so b=y[9].
  auto s = compute_stats({7, 3, 10, 1, 5, 9, 2, 8, 4, 6});
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q25, 3.25);
  EXPECT_DOUBLE_EQ(s.q75, 7.75);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(s.stdev, std::sqrt(10.0 * 11.0 / 12.0), 1e-12);
  EXPECT_DOUBLE_EQ(s.ci99_lo, 1);
  EXPECT_DOUBLE_EQ(s.ci99_hi, 10);
}

TEST(Stats, QuantilesAreMonotoneOverRepeatedValues) {
  // 200 equal values then 50 larger: (1 - f) * v + f * v rounds to an ulp under v at some q, after
  // q's that read v exactly, and the asv samples column (101 percentiles) came out unsorted.
  std::vector<double> y(200, 1e-6);
  y.insert(y.end(), 50, 3e-6);
  double last = 0;
  for (int i = 0; i <= 100; ++i) {
    const double q = pitot::quantile_sorted(y, i / 100.0);
    EXPECT_GE(q, last) << "percentile " << i;
    if (i <= 79) EXPECT_EQ(q, 1e-6) << "percentile " << i << " lies among the equal values";
    last = q;
  }
}

TEST(Stats, TwentySamplesInterval) {
  // Binomial(20,1/2) CDF: k=3 -> 1351/2^20 = 0.00129 (<= 0.005), k=4 -> 6196/2^20 = 0.0059.
  // So a=y[3]=4 and, by symmetry, b=y[16]=17.
  std::vector<double> y(20);
  std::iota(y.begin(), y.end(), 1.0);
  auto s = compute_stats(y);
  EXPECT_DOUBLE_EQ(s.median, 10.5);
  EXPECT_DOUBLE_EQ(s.ci99_lo, 4);
  EXPECT_DOUBLE_EQ(s.ci99_hi, 17);
}

TEST(Stats, EightSamplesGiveMinAndMax) {
  // docs/asv-format.md §5: for n = 8 the interval is exactly [min, max].
  auto s = compute_stats({5, 1, 4, 8, 2, 7, 3, 6});
  EXPECT_DOUBLE_EQ(s.ci99_lo, 1);
  EXPECT_DOUBLE_EQ(s.ci99_hi, 8);
}

TEST(Stats, FewSamplesLeaveTheIntervalOpen) {
  auto s = compute_stats({1, 2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(std::isinf(s.ci99_lo) && s.ci99_lo < 0);
  EXPECT_TRUE(std::isinf(s.ci99_hi) && s.ci99_hi > 0);
  auto one = compute_stats({2.5});
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.stdev, 0);
}

TEST(Stats, LargeSampleIntervalIsNarrowAndFinite) {
  // 100000 samples: the pmf must not underflow to a sum that never reaches 0.995.
  std::vector<double> y(100000);
  std::iota(y.begin(), y.end(), 0.0);
  auto s = compute_stats(y);
  ASSERT_TRUE(std::isfinite(s.ci99_lo) && std::isfinite(s.ci99_hi));
  EXPECT_LT(s.ci99_lo, s.median);
  EXPECT_GT(s.ci99_hi, s.median);
  // Normal approximation: half-width about 2.576 * sqrt(n)/2 ranks = 407.
  EXPECT_NEAR(s.ci99_hi - s.median, 407, 3);
}

TEST(Stats, EmptySampleIsAnError) { EXPECT_THROW(compute_stats({}), std::invalid_argument); }

TEST(Median, OfTheFiniteValuesNaNWhenNone) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(pitot::median({4.0, 1.0, nan, 3.0, inf}), 3.0);  // of 1, 3, 4
  EXPECT_DOUBLE_EQ(pitot::median({2.0, 1.0}), 1.5);
  EXPECT_TRUE(std::isnan(pitot::median({})));
  EXPECT_TRUE(std::isnan(pitot::median({nan, -inf})));
}

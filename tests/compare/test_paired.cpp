// Paired rounds (pitot ab --paired; docs/compare.md, "Paired rounds"): base's and head's process
// of a round ran at once, taking the GPU in turns, so a drift of the card is shared by the pair.
// Compared pair by pair, what a pair shared cancels; the stated error rates hold through ab's
// looks whether or not the pairs share anything, and with a shared drift far more points are
// decided than the unpaired comparison of the same medians decides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "driver/ab/schedule.hpp"
#include "driver/compare/stats.hpp"
#include "noise.hpp"

namespace pc = pitot::driver::compare;
using pc::testing::Noise;

namespace {

TEST(Paired, PairsNeedAsManyPositiveMediansOnEachSide) {
  EXPECT_TRUE(pc::pairs_of({{}, {1.0, 2.0}}, {{}, {1.5, 2.5}}));
  EXPECT_FALSE(pc::pairs_of({{}, {1.0, 2.0, 3.0}}, {{}, {1.5, 2.5}}));  // a process missing on one side
  EXPECT_FALSE(pc::pairs_of({{}, {1.0}}, {{}, {1.5}}));                // one pair has no spread
  EXPECT_FALSE(pc::pairs_of({{}, {1.0, 0.0}}, {{}, {1.5, 2.5}}));      // a dropped median shifts the pairs
  EXPECT_FALSE(pc::pairs_of({{}, {1.0, NAN}}, {{}, {1.5, 2.5}}));
}

TEST(Paired, TheSpreadIsThatOfThePairsDifferences) {
  // Each pair moved together by 10%: the differences are 0.01 and 0.03 (variance 2e-4).
  const std::vector<double> x = {0.0, 0.1}, y = {0.01, 0.13};
  EXPECT_NEAR(pc::pair_variance(x, y), 2e-4, 1e-12);
  const pc::SideData base{{}, {1.0, std::exp(0.1)}}, head{{}, {std::exp(0.01), std::exp(0.13)}};
  const pc::ProcessSpread paired = pc::process_spread(base, head, true);
  EXPECT_EQ(paired.df, 1);
  EXPECT_NEAR(paired.variance, 2e-4, 1e-12);
  const pc::ProcessSpread alone = pc::process_spread(base, head, false);
  EXPECT_EQ(alone.df, 2);
  EXPECT_GT(alone.variance, 20 * paired.variance);  // the shared 10% is in the unpaired spread
}

TEST(Paired, ComparePairByPairCancelsTheSharedDrift) {
  // Four pairs, each pair's processes moved together by up to ±3%, head 0.1% slower in each.
  const std::vector<double> drift = {0.0, 0.03, -0.02, 0.01};
  pc::SideData base, head;
  for (double d : drift) {
    base.process_medians.push_back(1e-3 * std::exp(d));
    head.process_medians.push_back(1e-3 * std::exp(d + 0.001 + (d > 0 ? 0.0005 : -0.0005)));
  }
  base.samples.assign(20, 1e-3);
  head.samples.assign(20, 1e-3);
  pc::MethodOptions method;
  method.threshold = 0.01;
  const pc::Comparison unpaired = pc::compare_runs(base, head, false, method);
  method.paired = true;
  const pc::Comparison paired = pc::compare_runs(base, head, false, method);
  EXPECT_EQ(unpaired.verdict, pc::Verdict::Inconclusive);
  EXPECT_FALSE(unpaired.paired);
  EXPECT_EQ(paired.verdict, pc::Verdict::Unchanged);
  EXPECT_TRUE(paired.paired);
  EXPECT_NEAR(paired.ratio, std::exp(0.001), 1e-9);
  // Unequal counts: no pairs, the unpaired comparison.
  base.process_medians.pop_back();
  EXPECT_FALSE(pc::compare_runs(base, head, false, method).paired);
}

struct Counts {
  int slower = 0, faster = 0, unchanged = 0, decided_first = 0;
};

// A suite through ab's looks: each round, a pair's two processes share a drift of `shared` (the
// card's state), and each has its own offset of `own`; the prior is refitted at each look.
Counts run_suite(std::uint64_t seed, double change, double shared, double own, bool paired, int points = 400) {
  Noise noise(seed);
  const std::vector<int> looks = pitot::driver::ab::look_schedule(pitot::driver::ab::kFirstLook, 12);
  pc::MethodOptions method;
  method.threshold = 0.01;
  method.looks = static_cast<int>(looks.size());
  method.paired = paired;
  std::vector<pc::SideData> base(points), head(points);
  std::vector<pc::Verdict> verdict(points, pc::Verdict::Inconclusive);
  std::vector<bool> open(points, true);
  std::vector<double> scale;  // points differ in noise, as a suite's do
  for (int i = 0; i < points; ++i) scale.push_back(std::exp(0.4 * noise.normal()));
  Counts k;
  int done = 0;
  for (std::size_t look = 0; look < looks.size(); ++look) {
    for (; done < looks[look]; ++done)
      for (int i = 0; i < points; ++i)
        if (open[i]) {
          const double drift = shared * scale[i] * noise.normal();
          base[i].process_medians.push_back(1e-4 * std::exp(drift + own * scale[i] * noise.normal()));
          head[i].process_medians.push_back(1e-4 * change * std::exp(drift + own * scale[i] * noise.normal()));
          base[i].samples.assign(20, base[i].process_medians.back());
          head[i].samples.assign(20, head[i].process_medians.back());
        }
    std::vector<pc::ProcessSpread> spreads;
    for (int i = 0; i < points; ++i) spreads.push_back(pc::process_spread(base[i], head[i], paired));
    const pc::NoisePrior prior = pc::fit_noise_prior(spreads);
    for (int i = 0; i < points; ++i) {
      if (!open[i]) continue;
      verdict[i] = pc::compare_runs(base[i], head[i], false, method, {}, prior).verdict;
      if (verdict[i] != pc::Verdict::Inconclusive) {
        open[i] = false;
        if (look == 0) ++k.decided_first;
      }
    }
  }
  for (pc::Verdict v : verdict) {
    k.slower += v == pc::Verdict::Slower;
    k.faster += v == pc::Verdict::Faster;
    k.unchanged += v == pc::Verdict::Unchanged;
  }
  return k;
}

TEST(Paired, AbLooksKeepTheirErrorRatesPairedOrNot) {
  const int points = 400, suites = 4, total = points * suites;
  // shared drift, own offset: the drift dominating (a power-capped card), then none shared.
  for (auto [shared, own] : {std::pair{0.01, 0.002}, std::pair{0.0, 0.004}}) {
    Counts same[2], at[2], twice[2];
    for (int paired = 0; paired < 2; ++paired)
      for (int s = 0; s < suites; ++s) {
        const Counts a = run_suite(10 + s, 1.0, shared, own, paired), b = run_suite(20 + s, 1.01, shared, own, paired),
                     c = run_suite(30 + s, 1.02, shared, own, paired);
        for (auto [sum, one] : {std::pair{&same[paired], a}, {&at[paired], b}, {&twice[paired], c}}) {
          sum->slower += one.slower;
          sum->faster += one.faster;
          sum->unchanged += one.unchanged;
          sum->decided_first += one.decided_first;
        }
      }
    for (int paired = 0; paired < 2; ++paired) {
      std::printf("shared %.1f%%, own %.1f%%, %s: no change %d unchanged (%d at the first look), %d slower, %d faster; "
                  "1%% %d unchanged; 2%% %d slower; of %d\n",
                  100 * shared, 100 * own, paired ? "paired  " : "unpaired", same[paired].unchanged,
                  same[paired].decided_first, same[paired].slower, same[paired].faster, at[paired].unchanged,
                  twice[paired].slower, total);
      // Stated: at most 0.05% a side, 1.6 of 1,600 both sides together; 5 or more would happen
      // by chance 2% of the time at that rate.
      EXPECT_LE(same[paired].slower + same[paired].faster, 4) << "paired " << paired;
      EXPECT_LE(at[paired].unchanged, total * 0.05) << "paired " << paired;
      EXPECT_EQ(twice[paired].unchanged, 0) << "paired " << paired;
    }
    if (shared > 0) {
      EXPECT_GT(same[1].unchanged, same[0].unchanged * 2) << "the shared drift cancels in the pairs";
      EXPECT_GT(twice[1].slower, twice[0].slower);
    }
  }
}

}  // namespace

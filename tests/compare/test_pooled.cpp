// The process spread pooled over a benchmark's or a program's points
// (driver/compare/stats/pooled.cpp): the prior fitted to many points' variances recovers what they
// were drawn from, pitot ab's looks with the pooled spread keep the stated error rates on a suite
// whose points differ in noise (quiet and noisy mixed, as the H100/H200 suites are) while deciding
// more points at the first look, and a quiet benchmark beside a noisy one takes its own prior.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "driver/ab/schedule.hpp"
#include "driver/compare/comparison.hpp"
#include "driver/compare/sources.hpp"
#include "driver/compare/stats.hpp"
#include "noise.hpp"

namespace pc = pitot::driver::compare;
using pc::testing::Noise;

namespace {

// s² of `df` degrees of freedom around a true variance: sigma² · chi²(df) / df.
double sampled_variance(Noise& noise, double variance, int df) {
  double chi = 0;
  for (int i = 0; i < df; ++i) chi += std::pow(noise.normal(), 2);  // one draw, squared
  return variance * chi / df;
}

TEST(Pooled, ThePriorRecoversWhatTheVariancesWereDrawnFrom) {
  Noise noise(7);
  const double d0 = 8, s0 = 0.003;
  std::vector<pc::ProcessSpread> spreads;
  for (int i = 0; i < 2000; ++i) {
    const double variance = s0 * s0 * d0 / (sampled_variance(noise, 1.0, 8) * 8);  // scaled inverse chi², d0 = 8
    spreads.push_back({sampled_variance(noise, variance, 2), 2});
  }
  const pc::NoisePrior prior = pc::fit_noise_prior(spreads);
  std::printf("fitted d0 %.2f (drawn 8), s0 %.4f%% (drawn 0.3%%)\n", prior.df, 100 * std::sqrt(prior.variance));
  EXPECT_EQ(prior.points, 2000);
  EXPECT_GT(prior.df, 5);
  EXPECT_LT(prior.df, 13);
  EXPECT_NEAR(std::sqrt(prior.variance), s0, 0.15 * s0);
}

TEST(Pooled, OneVarianceForAllGivesTheLargestPriorAndTooFewPointsNone) {
  Noise noise(8);
  std::vector<pc::ProcessSpread> spreads;
  for (int i = 0; i < 500; ++i) spreads.push_back({sampled_variance(noise, 1e-5, 4), 4});
  const pc::NoisePrior prior = pc::fit_noise_prior(spreads);
  EXPECT_GE(prior.df, 30);
  EXPECT_LE(prior.df, pc::kMaxPriorDf);
  EXPECT_NEAR(prior.variance, 1e-5, 1e-6);
  spreads.resize(pc::kMinPooledPoints - 1);
  EXPECT_EQ(pc::fit_noise_prior(spreads).df, 0);
  // Points without a spread (one process a side, or all equal) are not counted.
  std::vector<pc::ProcessSpread> flat(50, pc::ProcessSpread{0, 2});
  EXPECT_EQ(pc::fit_noise_prior(flat).df, 0);
}

TEST(Pooled, ProcessSpreadIsThePooledVarianceOfTheLogMedians) {
  pc::SideData base{{}, {1.0, std::exp(0.02)}}, head{{}, {std::exp(0.1), std::exp(0.13)}};
  const pc::ProcessSpread s = pc::process_spread(base, head);
  EXPECT_EQ(s.df, 2);
  EXPECT_NEAR(s.variance, (0.01 * 0.01 * 2 + 0.015 * 0.015 * 2) / 2, 1e-12);
  EXPECT_EQ(pc::process_spread({{}, {1.0}}, {{}, {2.0}}).df, 0);  // one process a side
}

// A suite: each point's process offsets have their own spread, a quarter of the points four
// times noisier; all points go through pitot ab's looks together, the prior refitted at each.
struct SuiteCounts {
  int slower = 0, faster = 0, unchanged = 0, inconclusive = 0, decided_first = 0;
};

SuiteCounts run_suite(std::uint64_t seed, double change, bool pool, int points = 400) {
  Noise noise(seed);
  const double threshold = 0.01;
  const std::vector<int> looks = pitot::driver::ab::look_schedule(pitot::driver::ab::kFirstLook, 12);
  const std::vector<double> shares = pitot::driver::ab::look_shares(looks.size());
  pc::MethodOptions method;
  method.threshold = threshold;
  std::vector<double> sigma;
  for (int i = 0; i < points; ++i) sigma.push_back((i % 4 == 0 ? 0.008 : 0.002) * std::exp(0.4 * noise.normal()));
  std::vector<pc::SideData> base(points), head(points);
  std::vector<pc::Verdict> verdict(points, pc::Verdict::Inconclusive);
  std::vector<bool> open(points, true);
  SuiteCounts k;
  int done = 0;
  for (std::size_t look = 0; look < looks.size(); ++look) {
    for (; done < looks[look]; ++done)
      for (int i = 0; i < points; ++i)
        if (open[i]) {
          base[i].process_medians.push_back(1e-4 * std::exp(sigma[i] * noise.normal()));
          head[i].process_medians.push_back(1e-4 * change * std::exp(sigma[i] * noise.normal()));
          base[i].samples.assign(20, base[i].process_medians.back());
          head[i].samples.assign(20, head[i].process_medians.back());
        }
    std::vector<pc::ProcessSpread> spreads;
    for (int i = 0; i < points; ++i) spreads.push_back(pc::process_spread(base[i], head[i]));
    const pc::NoisePrior prior = pool ? pc::fit_noise_prior(spreads) : pc::NoisePrior{};
    method.look_share = shares[look];
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
    k.inconclusive += v == pc::Verdict::Inconclusive;
  }
  return k;
}

TEST(Pooled, AbLooksKeepTheirErrorRatesAndDecideSooner) {
  const int n = 400, suites = 5;
  SuiteCounts same[2], at[2], twice[2];
  for (int pool = 0; pool < 2; ++pool)
    for (int s = 0; s < suites; ++s) {
      const SuiteCounts a = run_suite(100 + s, 1.0, pool), b = run_suite(200 + s, 1.01, pool),
                        c = run_suite(300 + s, 1.02, pool);
      for (auto [sum, one] : {std::pair{&same[pool], a}, {&at[pool], b}, {&twice[pool], c}}) {
        sum->slower += one.slower;
        sum->faster += one.faster;
        sum->unchanged += one.unchanged;
        sum->inconclusive += one.inconclusive;
        sum->decided_first += one.decided_first;
      }
    }
  const int total = n * suites;
  for (int pool = 0; pool < 2; ++pool)
    std::printf("%s: no change %d unchanged (%d at the first look), %d slower, %d faster; 1%% (the threshold) %d "
                "unchanged, %d slower; 2%% %d slower; of %d\n",
                pool ? "pooled" : "alone ", same[pool].unchanged, same[pool].decided_first, same[pool].slower,
                same[pool].faster, at[pool].unchanged, at[pool].slower, twice[pool].slower, total);
  for (int pool = 0; pool < 2; ++pool) {
    EXPECT_LE(same[pool].slower + same[pool].faster, total * 0.0005 + 1) << "pool " << pool;
    EXPECT_LE(at[pool].unchanged, total * 0.05) << "a change at the threshold is rarely called unchanged, pool " << pool;
    EXPECT_EQ(twice[pool].unchanged, 0) << "pool " << pool;
  }
  EXPECT_GT(same[1].decided_first, same[0].decided_first * 1.2) << "pooling decides more points at the first look";
  EXPECT_GE(same[1].unchanged, same[0].unchanged);
  EXPECT_GE(twice[1].slower, twice[0].slower - total / 1000) << "pooling finds the 2% changes as often (within 0.1%)";
}

// pitot JSON rows of `points` points of one benchmark of bench_mix, 2 processes, each process
// `offset` apart (log-normal) and its 10 samples 0.05% apart.
std::vector<std::string> mixed_rows(Noise& noise, const std::string& benchmark, int points, double offset) {
  std::vector<std::string> rows;
  for (int k = 0; k < points; ++k) {
    std::vector<double> samples;
    std::vector<int> process;
    for (int p = 0; p < 2; ++p) {
      const double median = 1e-4 * (1 + k) * std::exp(offset * noise.normal());
      for (int i = 0; i < 10; ++i) {
        samples.push_back(median * std::exp(0.0005 * noise.normal()));
        process.push_back(p);
      }
    }
    rows.push_back(fmt::format(R"({{"program": "bench_mix", "benchmark": "{}", "name": "{}[n={}]", "status": "ok",
      "unit": "seconds", "samples": [{}], "sample_process": [{}]}})",
                               benchmark, benchmark, k, fmt::join(samples, ", "), fmt::join(process, ", ")));
  }
  return rows;
}

// A program's benchmarks can differ much in spread (the H100 suite's GEMMs against its MoE GEMMs);
// pooled over the program, the quiet benchmark's points took a prior that spread widely and pooled
// little. Each benchmark with enough points now has its own: at 2 + 2 processes most quiet points
// (0.3% apart) are called unchanged (over the program: none), the noisy ones (4% apart) nothing.
TEST(Pooled, EachBenchmarkWithEnoughPointsHasItsOwnPrior) {
  Noise noise(21);
  auto side = [&] {
    std::vector<std::string> rows = mixed_rows(noise, "quiet", 30, 0.003);
    for (auto& row : mixed_rows(noise, "noisy", 30, 0.04)) rows.push_back(row);
    return fmt::format(R"({{"program": "bench_mix", "points": [{}]}})", fmt::join(rows, ", "));
  };
  const std::string base = side(), head = side();
  pc::MethodOptions method;
  method.threshold = 0.01;
  method.look_share = 0.5;  // pitot ab's first look
  const pc::Report r =
      pc::build_report(pc::pitot_json_from_text(base, "base"), pc::pitot_json_from_text(head, "head"), method);
  int quiet_unchanged = 0, noisy_called = 0;
  for (const auto& row : r.rows) {
    if (row.base.benchmark == "bench_mix.quiet") quiet_unchanged += row.comparison.verdict == pc::Verdict::Unchanged;
    else noisy_called += row.comparison.verdict != pc::Verdict::Inconclusive;
  }
  std::printf("quiet unchanged %d of 30\n", quiet_unchanged);
  EXPECT_GE(quiet_unchanged, 18) << "pooled over the program: none";
  EXPECT_EQ(noisy_called, 0);
}

}  // namespace

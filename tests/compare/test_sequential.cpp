// pitot ab's sequential rule, checked by simulation: many synthetic points whose processes carry
// offsets, a drift and an advantage for whichever side goes second in a round, looked at as pitot
// ab looks (2, 4, 6, 10, 12 processes a side by default, alternated ABBA).
// The false-alarm rate must stay at or under its stated level (half of 1 - confidence) over all
// looks, and the power must be what docs/compare.md says. Seeded: the counts are reproducible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "driver/ab/schedule.hpp"
#include "driver/compare/comparison.hpp"
#include "driver/compare/sources.hpp"
#include "driver/compare/stats.hpp"
#include "noise.hpp"

namespace pc = pitot::driver::compare;
using pc::testing::Noise;

namespace {

struct Machine {
  double process_sd = 0.005;  // per-process offset of the median (log)
  double sample_sd = 0.01;    // samples around their process's median
  double drift = 0.0005;      // per round of processes, on both sides (log)
  double second = 0;          // the process that goes second in a round runs this much faster (log)
  bool heavy_tails = false;   // offsets from a t distribution with 3 degrees of freedom
};

double offset(Noise& noise, const Machine& m) {
  if (!m.heavy_tails) return m.process_sd * noise.normal();
  double chi = 0;
  for (int i = 0; i < 3; ++i) chi += std::pow(noise.normal(), 2);  // one draw, squared
  return m.process_sd * noise.normal() / std::sqrt(chi / 3) / std::sqrt(3.0);  // unit variance
}

// One process: its samples and median.
void add_process(pc::SideData& side, Noise& noise, const Machine& m, double log_level) {
  const double level = log_level + offset(noise, m);
  std::vector<double> samples;
  for (int s = 0; s < 20; ++s) samples.push_back(1e-5 * std::exp(level + m.sample_sd * noise.normal()));
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  side.process_medians.push_back((sorted[9] + sorted[10]) / 2);
  side.samples.insert(side.samples.end(), samples.begin(), samples.end());
}

// How the looks share the error rates: pitot ab's (front-loaded) or evenly.
enum class Shares { Ab, Even };

// One point through pitot ab's looks (its default first look unless given); its final verdict,
// and in `spent` the processes a side it took.
pc::Verdict sequential(Noise& noise, const Machine& m, double change, const pc::MethodOptions& base_method,
                       int first = pitot::driver::ab::kFirstLook, int* spent = nullptr, Shares how = Shares::Ab) {
  const std::vector<int> looks = pitot::driver::ab::look_schedule(first, 12);
  std::vector<double> shares = pitot::driver::ab::look_shares(looks.size());
  if (how == Shares::Even) shares.assign(looks.size(), 1.0 / static_cast<double>(looks.size()));
  pc::MethodOptions method = base_method;
  pc::SideData base, head;
  int done = 0, processes = 0;  // rounds, and the processes a side this point got
  pc::Comparison c;
  for (std::size_t look = 0; look < looks.size(); ++look) {
    method.look_share = shares[look];
    // As pitot ab (keep_verdicts): unchanged is kept; a change is run again for the next look and
    // kept when that look, with the new processes, calls it the same way.
    for (; done < looks[look]; ++done) {
      ++processes;
      const double drift = m.drift * done;
      if (done % 2 == 0) {  // ABBA, as pitot ab alternates
        add_process(base, noise, m, drift);
        add_process(head, noise, m, drift - m.second + std::log(change));
      } else {
        add_process(head, noise, m, drift + std::log(change));
        add_process(base, noise, m, drift - m.second);
      }
    }
    const pc::Verdict before = c.verdict;
    c = pc::compare_runs(base, head, false, method);
    if (c.verdict == pc::Verdict::Unchanged || (pc::is_change(c.verdict) && c.verdict == before)) break;
  }
  if (spent) *spent = processes;
  return c.verdict;
}

struct Counts {
  int slower = 0, faster = 0, unchanged = 0, inconclusive = 0;
  int decided_first = 0;  // at the first look
  double processes = 0;   // processes a side per point, on average
};

Counts trials(const Machine& m, double change, int n, std::uint64_t seed, double threshold = 0.01,
              int first = pitot::driver::ab::kFirstLook, Shares how = Shares::Ab) {
  Noise noise(seed);
  pc::MethodOptions method;
  method.threshold = threshold;
  Counts k;
  for (int i = 0; i < n; ++i) {
    int spent = 0;
    const pc::Verdict v = sequential(noise, m, change, method, first, &spent, how);
    k.processes += static_cast<double>(spent) / n;
    k.decided_first += v != pc::Verdict::Inconclusive && spent == first;
    switch (v) {
      case pc::Verdict::Slower: ++k.slower; break;
      case pc::Verdict::Faster: ++k.faster; break;
      case pc::Verdict::Unchanged: ++k.unchanged; break;
      case pc::Verdict::Inconclusive: ++k.inconclusive; break;
    }
  }
  return k;
}

}  // namespace

TEST(Sequential, SharesSumToOneAndFavourTheFirstLook) {
  for (std::size_t n : {1, 2, 5, 8}) {
    const std::vector<double> shares = pitot::driver::ab::look_shares(n);
    ASSERT_EQ(shares.size(), n);
    double sum = 0;
    for (double s : shares) sum += s;
    EXPECT_NEAR(sum, 1.0, 1e-12) << n << " looks";
    for (double s : shares) EXPECT_LE(s, shares.front());
  }
}

// The first look's larger share: about twice the points decided there, the error rates kept (both
// are over all looks), a change at the threshold still rarely called unchanged. The price: noisy
// points, which go on to later looks, get a smaller share there.
TEST(Sequential, FrontLoadedShares) {
  const int n = 1000;
  for (double sd : {0.002, 0.003, 0.005}) {
    Machine m;
    m.process_sd = sd;
    m.sample_sd = 0.002;
    Counts same[2], at[2], twice[2];
    for (Shares how : {Shares::Ab, Shares::Even}) {
      const int i = how == Shares::Ab ? 0 : 1;
      same[i] = trials(m, 1.0, n, 61, 0.01, pitot::driver::ab::kFirstLook, how);
      at[i] = trials(m, 1.01, n, 62, 0.01, pitot::driver::ab::kFirstLook, how);
      twice[i] = trials(m, 1.02, n, 63, 0.01, pitot::driver::ab::kFirstLook, how);
      std::printf("offsets %.1f%%, %s shares: no change %d decided at the first look, %.2f processes a side, %d "
                  "unchanged, %d slower; 2%% %d slower (%.2f processes); at the threshold %d unchanged\n",
                  100 * sd, i == 0 ? "ab's" : "even", same[i].decided_first, same[i].processes, same[i].unchanged,
                  same[i].slower, twice[i].slower, twice[i].processes, at[i].unchanged);
      EXPECT_EQ(same[i].slower, 0);
      EXPECT_LE(at[i].unchanged, n * 0.05);
      EXPECT_GE(twice[i].slower, n * 0.90);
    }
    EXPECT_GT(same[0].decided_first, 1.8 * same[1].decided_first) << "offsets " << sd;
    // Quiet points cost fewer processes; noisy ones, left less of the rates for the later looks,
    // up to about 6% more (8.16 against 7.71 a side at 0.5%) and a few more stay undecided.
    if (sd <= 0.003) {
      EXPECT_LT(same[0].processes, same[1].processes) << "offsets " << sd;
    }
    EXPECT_LT(same[0].processes, 1.1 * same[1].processes) << "offsets " << sd;
  }
}

TEST(Sequential, LooksGrowByHalf) {
  EXPECT_EQ(pitot::driver::ab::look_schedule(4, 12), (std::vector<int>{4, 6, 10, 12}));
  EXPECT_EQ(pitot::driver::ab::look_schedule(2, 2), (std::vector<int>{2}));
  EXPECT_EQ(pitot::driver::ab::look_schedule(2, 20), (std::vector<int>{2, 4, 6, 10, 16, 20}));
  EXPECT_EQ(pitot::driver::ab::look_schedule(3, 12), (std::vector<int>{3, 5, 9, 12}));  // odd stays odd
}

// No change, offsets as wide as the threshold's half, heavy-tailed, and drift: false slower
// verdicts at or under the stated 0.5% a point (1 - 0.99, halved) over every look.
TEST(Sequential, FalseAlarmsStayUnderTheStatedLevel) {
  for (bool heavy : {false, true}) {
    Machine m;
    m.process_sd = 0.005;
    m.heavy_tails = heavy;
    m.drift = 0.001;
    const int n = 4000;
    const Counts k = trials(m, 1.0, n, heavy ? 11 : 12);
    std::printf("no change, offsets 0.5%%%s: %d slower, %d faster, %d unchanged, %d inconclusive of %d\n",
                heavy ? " (heavy tails)" : "", k.slower, k.faster, k.unchanged, k.inconclusive, n);
    EXPECT_LE(k.slower, n * 0.005) << "heavy tails: " << heavy;
    EXPECT_LE(k.faster, n * 0.005) << "heavy tails: " << heavy;
  }
}

// What docs/compare.md promises at threshold 1% with 0.3% offsets between processes (the H200's
// kernel clock): no change mostly "unchanged", twice the threshold nearly always "slower", the
// threshold itself about half the time.
TEST(Sequential, DecidesWhereTheNoiseAllows) {
  Machine quiet;
  quiet.process_sd = 0.003;
  const int n = 1000;
  const Counts same = trials(quiet, 1.0, n, 21);
  EXPECT_GE(same.unchanged, n * 0.90) << "unchanged " << same.unchanged << ", inconclusive " << same.inconclusive;
  const Counts twice = trials(quiet, 1.02, n, 22);
  EXPECT_GE(twice.slower, n * 0.90) << "slower " << twice.slower << ", inconclusive " << twice.inconclusive;
  const Counts at = trials(quiet, 1.01, n, 23);
  for (const auto& [what, k] : {std::pair{"no change", same}, {"2%", twice}, {"1%", at}})
    std::printf("%s, offsets 0.3%%: %d slower, %d unchanged, %d inconclusive of %d\n", what, k.slower, k.unchanged,
                k.inconclusive, n);
  EXPECT_GE(at.slower, n * 0.35) << "slower " << at.slower;
  EXPECT_LE(at.unchanged, n * 0.10) << "a change at the threshold is rarely called unchanged";
}

// The default first look of 2 processes a side: quiet points decided there for about half of a
// first look of 4, with the same error rates; noisy ones cost what they did (issue 33).
TEST(Sequential, FirstLookOfTwo) {
  const int n = 1000;
  const double threshold = 0.02;
  for (double sd : {0.002, 0.01}) {
    Machine m;
    m.process_sd = sd;
    m.sample_sd = 0.002;
    Counts same[2], slower[2], at[2];
    for (int f = 0; f < 2; ++f) {
      const int first = f == 0 ? 2 : 4;
      same[f] = trials(m, 1.0, n, 51, threshold, first);
      slower[f] = trials(m, 1.05, n, 52, threshold, first);
      at[f] = trials(m, 1.0 + threshold, n, 53, threshold, first);
      std::printf("offsets %.1f%%, first look %d: no change %.2f processes a side (%d unchanged, %d slower); 5%% %.2f "
                  "(%d slower); at the threshold %d unchanged\n",
                  100 * sd, first, same[f].processes, same[f].unchanged, same[f].slower, slower[f].processes,
                  slower[f].slower, at[f].unchanged);
      EXPECT_EQ(same[f].slower, 0);
      EXPECT_GE(slower[f].slower, n * 0.99);
      EXPECT_LE(at[f].unchanged, n * 0.05);  // a change at the threshold is rarely called unchanged
    }
    if (sd < 0.005) {
      EXPECT_GE(same[0].unchanged, n * 0.99);
      EXPECT_LT(same[0].processes, 0.7 * same[1].processes) << "quiet points decide at the first look of 2";
    }
    // Noisy points cost a little more than with 4 first: the first look's larger share leaves the
    // later looks less (FrontLoadedShares).
    EXPECT_LT(same[0].processes, 1.15 * same[1].processes) << "noisy points cost at most 15% more than with 4 first";
  }
}

// The H200 under its power cap read head ~1% faster at every GEMM point after 3 ABBA rounds
// (docs/results/ab-h200.md): whichever side goes second may gain. An even number of rounds
// cancels it in the estimate; an odd one leaves a third of it (why pitot ab's looks are even).
double first_look_bias(int rounds) {
  Noise noise(41);
  Machine m;
  m.process_sd = 0.003;
  m.second = 0.01;
  double sum = 0;
  const int n = 400;
  for (int t = 0; t < n; ++t) {
    pc::SideData base, head;
    for (int done = 0; done < rounds; ++done) {
      if (done % 2 == 0) {
        add_process(base, noise, m, 0);
        add_process(head, noise, m, -m.second);
      } else {
        add_process(head, noise, m, 0);
        add_process(base, noise, m, -m.second);
      }
    }
    sum += std::log(pc::compare_runs(base, head, false, {}).ratio);
  }
  return sum / n;
}

TEST(Sequential, EvenLooksCancelAnAdvantageOfGoingSecond) {
  const int first = pitot::driver::ab::look_schedule(pitot::driver::ab::kFirstLook, 12).front();
  EXPECT_EQ(first % 2, 0);
  EXPECT_LT(std::abs(first_look_bias(first)), 0.001);
  EXPECT_GT(std::abs(first_look_bias(3)), 0.002);  // the odd first look of before: biased
}

// The CPU fault of issue 23: one process a side, no history, a loaded machine whose clock drifts
// 17% between the two processes. The prior never makes that a "slower" (it would exit 1).
TEST(Sequential, OneProcessASideNeverSlowerWithoutHistory) {
  Noise noise(31);
  Machine loaded;
  loaded.process_sd = 0;
  for (int i = 0; i < 200; ++i) {
    pc::SideData base, head;
    add_process(base, noise, loaded, 0);
    add_process(head, noise, loaded, std::log(1.17));  // the fake clock ran 17% slow for head
    const auto c = pc::compare_runs(base, head, false, {});
    ASSERT_NE(c.verdict, pc::Verdict::Slower) << c.note;
    ASSERT_NE(c.note.find("--processes 3"), std::string::npos) << c.note;
  }
}

namespace {

// pitot JSON of one point over processes whose medians are `medians` (six close samples each).
std::string one_point(const std::vector<double>& medians) {
  std::vector<double> samples;
  std::vector<int> process;
  for (std::size_t p = 0; p < medians.size(); ++p)
    for (int j = 0; j < 6; ++j) {
      samples.push_back(medians[p] * (1 + 1e-4 * (j - 2.5)));
      process.push_back(static_cast<int>(p));
    }
  return fmt::format(R"({{"program": "p", "points": [{{"program": "p", "benchmark": "b", "name": "b[n=1]",
    "status": "ok", "unit": "seconds", "samples": [{}], "sample_process": [{}]}}]}})",
                     fmt::join(samples, ", "), fmt::join(process, ", "));
}

// A point called unchanged at the first look keeps that verdict: the second look's smaller share,
// on the same processes, would reopen it (as pitot ab did before it kept it). A point called
// slower is run again and kept when the next look, with the new processes, calls it slower too;
// where the step before that look is interrupted, the first call stands (the sixth whole-suite
// run lost a real 1.35% slowdown when it was judged again on the same processes).
TEST(Sequential, UnchangedIsKeptAndAChangeConfirmedOnNewProcesses) {
  const std::vector<double> shares = pitot::driver::ab::look_shares(5);
  pc::MethodOptions method;
  method.threshold = 0.01;
  auto look = [&](double share, const std::vector<double>& base, const std::vector<double>& head) {
    method.look_share = share;
    return pc::build_report(pc::pitot_json_from_text(one_point(base), "base"),
                            pc::pitot_json_from_text(one_point(head), "head"), method);
  };
  using pitot::driver::ab::keep_verdicts;
  pitot::driver::ab::Kept kept;
  pc::Report first = look(shares[0], {1e-3, 1.002e-3}, {1.001e-3, 1.003e-3});
  ASSERT_EQ(first.rows.at(0).comparison.verdict, pc::Verdict::Unchanged) << first.rows.at(0).comparison.note;
  keep_verdicts(first, kept, true);
  EXPECT_EQ(kept.decided.size(), 1u);
  pc::Report second = look(shares[1], {1e-3, 1.002e-3}, {1.001e-3, 1.003e-3});
  ASSERT_EQ(second.rows.at(0).comparison.verdict, pc::Verdict::Inconclusive)  // what the look alone says
      << second.rows.at(0).comparison.note;
  keep_verdicts(second, kept, true);
  EXPECT_EQ(second.rows.at(0).comparison.verdict, pc::Verdict::Unchanged);
  EXPECT_EQ(second.count(pc::Verdict::Inconclusive), 0);
  EXPECT_EQ(second.rows.at(0).comparison.note, first.rows.at(0).comparison.note);

  // Slower at the first look: to be confirmed, not yet decided.
  const std::vector<double> base2{1e-3, 1.001e-3}, head2{1.035e-3, 1.036e-3};
  pitot::driver::ab::Kept changes;
  pc::Report called = look(shares[0], base2, head2);
  ASSERT_EQ(called.rows.at(0).comparison.verdict, pc::Verdict::Slower) << called.rows.at(0).comparison.note;
  keep_verdicts(called, changes, true);
  EXPECT_TRUE(changes.decided.empty());
  EXPECT_EQ(changes.to_confirm.size(), 1u);
  // The same two processes at the second look's share no longer call it (the old rule's loss)...
  pc::Report same = look(shares[1], base2, head2);
  EXPECT_EQ(same.rows.at(0).comparison.verdict, pc::Verdict::Inconclusive) << same.rows.at(0).comparison.note;
  // ...but an interrupted step keeps the first look's call,
  pitot::driver::ab::Kept interrupted = changes;
  keep_verdicts(same, interrupted, false);
  EXPECT_EQ(same.rows.at(0).comparison.verdict, pc::Verdict::Slower);
  EXPECT_EQ(interrupted.to_confirm.size(), 1u);
  // and two new processes a side that read slower again confirm it.
  pc::Report confirmed = look(shares[1], {1e-3, 1.001e-3, 1.0005e-3, 1.0015e-3},
                              {1.035e-3, 1.036e-3, 1.0345e-3, 1.0355e-3});
  ASSERT_EQ(confirmed.rows.at(0).comparison.verdict, pc::Verdict::Slower) << confirmed.rows.at(0).comparison.note;
  pitot::driver::ab::Kept both = changes;
  keep_verdicts(confirmed, both, true);
  EXPECT_EQ(both.decided.size(), 1u);
  EXPECT_TRUE(both.to_confirm.empty());
  // New processes that no longer read slower take the call back: the point goes on.
  pc::Report taken_back = look(shares[1], {1e-3, 1.001e-3, 1.012e-3, 1.02e-3}, {1.035e-3, 1.036e-3, 1.0e-3, 1.005e-3});
  ASSERT_EQ(taken_back.rows.at(0).comparison.verdict, pc::Verdict::Inconclusive)
      << taken_back.rows.at(0).comparison.note;
  keep_verdicts(taken_back, changes, true);
  EXPECT_EQ(taken_back.rows.at(0).comparison.verdict, pc::Verdict::Inconclusive);
  EXPECT_TRUE(changes.decided.empty());
  EXPECT_TRUE(changes.to_confirm.empty());
}

}  // namespace

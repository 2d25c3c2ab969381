// pitot compare --per-clock (docs/compare.md, "Per clock"): GPU points compared by the time each
// sample would have taken at the card's nominal clock. On runs whose processes got different
// clocks from a power cap (the H100's GEMMs: time x clock spreads a tenth as much as time), the
// same kernel is called unchanged per clock where by time it is undecided; a build whose clock
// sits surely apart is compared by time and says why; the clock's shift is reported.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "driver/ab/plan.hpp"
#include "driver/compare/comparison.hpp"
#include "driver/compare/sources.hpp"
#include "driver/compare/stats.hpp"
#include "noise.hpp"

namespace pc = pitot::driver::compare;
using pc::testing::Noise;

namespace {

// pitot JSON of one GEMM-like point over `clocks.size()` processes: each process runs at its clock
// (a fraction of the nominal), and its samples last cycles / clock with a little noise of their own.
// `nvml_mhz`: the point's NVML reading of the SM clock (backend_info.card), none when 0.
std::string side_json(Noise& noise, double cycles_seconds, const std::vector<double>& clocks, double nvml_mhz = 0) {
  std::vector<double> samples, ratios;
  std::vector<int> process;
  for (std::size_t p = 0; p < clocks.size(); ++p)
    for (int i = 0; i < 12; ++i) {
      const double r = clocks[p] * std::exp(0.001 * noise.normal());  // the clock read over one sample
      samples.push_back(cycles_seconds / r * std::exp(0.0005 * noise.normal()));
      ratios.push_back(r);
      process.push_back(static_cast<int>(p));
    }
  const std::string card =
      nvml_mhz > 0 ? fmt::format(R"(, "backend_info": {{"card": {{"sm_clock_mhz": {{"median": {}}}}}}})", nvml_mhz) : "";
  return fmt::format(R"({{"program": "bench_gemm", "points": [{{"program": "bench_gemm", "benchmark": "gemm",
    "name": "gemm[n=8192]", "status": "ok", "unit": "seconds", "samples": [{}], "clock_ratios": [{}],
    "sample_process": [{}]{}}}]}})",
                     fmt::join(samples, ", "), fmt::join(ratios, ", "), fmt::join(process, ", "), card);
}

pc::Report report(const std::string& base, const std::string& head, bool per_clock) {
  pc::MethodOptions method;
  method.threshold = 0.01;
  method.per_clock = per_clock;
  return pc::build_report(pc::pitot_json_from_text(base, "base"), pc::pitot_json_from_text(head, "head"), method);
}

TEST(PerClock, ThePitotInputKeepsEachProcesssTimeAtTheNominalClock) {
  Noise noise(3);
  const auto set = pc::pitot_json_from_text(side_json(noise, 1e-3, {0.95, 0.90, 0.93}), "side");
  const pc::PointData& p = set.points.at(0);
  ASSERT_EQ(p.process_per_clock.size(), 3u);
  ASSERT_EQ(p.process_clocks.size(), 3u);
  ASSERT_EQ(p.samples_per_clock.size(), p.samples.size());
  for (double t : p.process_per_clock) EXPECT_NEAR(t, 1e-3, 1e-5);  // the clock taken out
  EXPECT_NEAR(p.process_clocks[1], 0.90, 0.002);
  EXPECT_NEAR(p.process_medians[1], 1e-3 / 0.90, 1e-5);  // the time keeps it
}

TEST(PerClock, ProcessesOnDifferentClocksAreUnchangedPerClockAndUndecidedByTime) {
  Noise noise(4);
  // The same kernel; each process got its own clock under the cap (0.91-0.95 of nominal).
  const std::string base = side_json(noise, 1e-3, {0.95, 0.91, 0.94, 0.92});
  const std::string head = side_json(noise, 1e-3, {0.92, 0.95, 0.91, 0.94});
  const pc::Report by_time = report(base, head, false), per_clock = report(base, head, true);
  ASSERT_EQ(by_time.rows.size(), 1u);
  ASSERT_EQ(per_clock.rows.size(), 1u);
  EXPECT_EQ(by_time.rows[0].comparison.verdict, pc::Verdict::Inconclusive);
  EXPECT_FALSE(by_time.rows[0].comparison.per_clock);
  const pc::Comparison& c = per_clock.rows[0].comparison;
  EXPECT_EQ(c.verdict, pc::Verdict::Unchanged);
  EXPECT_TRUE(c.per_clock);
  EXPECT_NEAR(c.clock_shift_percent, 0.0, 1.0);
  EXPECT_LT(c.noise_percent, 0.5);
  // The row still shows the times people read.
  EXPECT_NEAR(per_clock.rows[0].base.value, 1e-3 / 0.93, 3e-5);
}

TEST(PerClock, AbByTimeSaysWherePerClockWouldHelp) {
  Noise noise(7);
  const std::string base = side_json(noise, 1e-3, {0.95, 0.91, 0.94, 0.92});
  const std::string head = side_json(noise, 1e-3, {0.92, 0.95, 0.91, 0.94});
  const std::string said = pitot::driver::ab::undecided_summary(report(base, head, false), "the budget ran out");
  EXPECT_NE(said.find("1 of them had the card's clock measured over every sample: without --by-time"), std::string::npos)
      << said;
  // Per clock the point is decided: nothing left to say.
  EXPECT_EQ(pitot::driver::ab::undecided_summary(report(base, head, true), "the budget ran out"), "");
}

TEST(PerClock, AKernelThatTakesMoreCyclesIsSlowerPerClock) {
  Noise noise(5);
  const std::string base = side_json(noise, 1e-3, {0.95, 0.91, 0.94, 0.92});
  const std::string head = side_json(noise, 1.03e-3, {0.92, 0.95, 0.91, 0.94});
  const pc::Report r = report(base, head, true);
  const pc::Comparison& c = r.rows.at(0).comparison;
  EXPECT_EQ(c.verdict, pc::Verdict::Slower);
  EXPECT_NEAR(c.ratio, 1.03, 0.003);
}

TEST(PerClock, ClocksSurelyApartAreComparedByTime) {
  Noise noise(6);
  // Head is clocked 5% lower in every process (say it draws more power): per clock it would look
  // unchanged, but the time is what users get.
  const std::string base = side_json(noise, 1e-3, {0.950, 0.951, 0.949, 0.950});
  const std::string head = side_json(noise, 1e-3, {0.903, 0.902, 0.904, 0.903});
  const pc::Report r = report(base, head, true);
  const pc::Comparison& c = r.rows.at(0).comparison;
  EXPECT_FALSE(c.per_clock);
  EXPECT_EQ(c.verdict, pc::Verdict::Slower);
  EXPECT_NEAR(c.clock_shift_percent, -5.0, 0.3);
  EXPECT_NE(c.note.find("compared by time, not per clock"), std::string::npos) << c.note;
}

// Two processes a side whose clocks sat 10% apart, too noisy to be sure of it: time x clock holds
// only for the SM-bound part of a kernel, so so wide a gap is compared by time.
TEST(PerClock, ClocksFarApartAreComparedByTimeEvenWhenNotSure) {
  pc::MethodOptions method;
  method.threshold = 0.01;
  const pc::ClockShift wide = pc::clock_shift({0.80, 0.95}, {0.72, 0.86}, method);
  EXPECT_FALSE(wide.sure);
  EXPECT_TRUE(wide.far);
  EXPECT_FALSE(pc::clock_shift({0.93, 0.95}, {0.92, 0.94}, method).far);  // 1% apart: per clock
  Noise noise(7);
  const pc::Report r = report(side_json(noise, 1e-3, {0.80, 0.95}), side_json(noise, 1e-3, {0.72, 0.86}), true);
  const pc::Comparison& c = r.rows.at(0).comparison;
  EXPECT_FALSE(c.per_clock);
  EXPECT_NE(c.note.find("compared by time, not per clock"), std::string::npos) << c.note;
}

TEST(PerClock, ClockShiftNeedsTwoProcessesAndSeesOnlyASureGap) {
  pc::MethodOptions method;
  EXPECT_TRUE(std::isnan(pc::clock_shift({0.9}, {0.95}, method).percent));
  EXPECT_FALSE(pc::clock_shift({0.95, 0.90, 0.93}, {0.92, 0.94, 0.91}, method).sure);
  const pc::ClockShift apart = pc::clock_shift({0.950, 0.951, 0.949}, {0.900, 0.901, 0.899}, method);
  EXPECT_TRUE(apart.sure);
  EXPECT_NEAR(apart.percent, -5.26, 0.05);
}

TEST(PerClock, PointsWithoutClocksAreComparedByTime) {
  const std::string doc = R"({"program": "p", "points": [{"program": "p", "benchmark": "b", "name": "b[n=1]",
    "status": "ok", "unit": "seconds", "samples": [1.0, 1.1, 1.0, 1.1], "sample_process": [0, 0, 1, 1]}]})";
  const pc::Report r = report(doc, doc, true);
  EXPECT_FALSE(r.rows.at(0).comparison.per_clock);
  EXPECT_TRUE(std::isnan(r.rows.at(0).comparison.clock_shift_percent));
}

// The machine-state warning's SM clock: with processes enough on a side, by the clocks measured
// over the samples, not by NVML's few readings a point.
TEST(PerClock, TheStateWarningJudgesTheClockByTheMeasuredClocks) {
  Noise noise(9);
  using V = std::vector<std::string>;
  // NVML's medians 6% apart, the processes' measured clocks alike: no difference (both ways).
  const std::string base = side_json(noise, 1e-3, {0.95, 0.91, 0.94, 0.92}, 1860);
  const std::string head = side_json(noise, 1e-3, {0.92, 0.95, 0.91, 0.94}, 1744);
  for (bool per_clock : {false, true}) EXPECT_EQ(report(base, head, per_clock).rows.at(0).state_differs, V{});
  // NVML's medians alike, the measured clocks surely apart: the clock differs.
  const std::string low = side_json(noise, 1e-3, {0.86, 0.85, 0.86, 0.85}, 1860);
  const std::string high = side_json(noise, 1e-3, {0.95, 0.94, 0.95, 0.94}, 1860);
  for (bool per_clock : {false, true})
    EXPECT_EQ(report(high, low, per_clock).rows.at(0).state_differs, V{"sm_clock"}) << per_clock;
  // One process a side measures no spread: NVML's medians judge, as before.
  const std::string one_base = side_json(noise, 1e-3, {0.93}, 1860), one_head = side_json(noise, 1e-3, {0.93}, 1744);
  EXPECT_EQ(report(one_base, one_head, false).rows.at(0).state_differs, V{"sm_clock"});
}

}  // namespace

namespace {

// pitot JSON of `points` GEMM-like points whose time follows the clock with elasticity
// `elasticity` (0.7: a part of the kernel the SM clock does not drive), one process per entry of
// `clocks`, each point `scale` times its base cycles, `per_process` samples a process. `jitter`:
// how much the clock read over one sample moves within its process (on an H100 the suite's GEMMs
// read 2.7-4.7% within a process against 0.75-2.1% between processes).
struct Elastic {
  int points = 24;
  double scale = 1, elasticity = 0.7, jitter = 0.03;
  int per_process = 8;
  int first = 0;  // the first point's n
};
std::string elastic_side(Noise& noise, const std::vector<double>& clocks, const Elastic& e) {
  std::vector<std::string> rows;
  for (int k = 0; k < e.points; ++k) {
    std::vector<double> samples, ratios;
    std::vector<int> process;
    for (std::size_t p = 0; p < clocks.size(); ++p)
      for (int i = 0; i < e.per_process; ++i) {
        const double r = clocks[p] * std::exp(e.jitter * noise.normal());
        samples.push_back(e.scale * 1e-4 * (1 + k) * std::pow(r, -e.elasticity) * std::exp(0.0005 * noise.normal()));
        ratios.push_back(r);
        process.push_back(static_cast<int>(p));
      }
    rows.push_back(fmt::format(R"({{"program": "bench_gemm", "benchmark": "gemm", "name": "gemm[n={}]",
      "status": "ok", "unit": "seconds", "samples": [{}], "clock_ratios": [{}], "sample_process": [{}]}})",
                               e.first + k, fmt::join(samples, ", "), fmt::join(ratios, ", "), fmt::join(process, ", ")));
  }
  return fmt::format(R"({{"program": "bench_gemm", "points": [{}]}})", fmt::join(rows, ", "));
}

// The points of two sides of one program in one file.
std::string joined(const std::string& a, const std::string& b) {
  const std::string points = "\"points\": [";
  return a.substr(0, a.rfind(']')) + ", " + b.substr(b.find(points) + points.size());
}

}  // namespace

// Per clock, each benchmark's time is taken to follow the clock with the elasticity fitted on its
// points' processes: at 1 (time x clock) these points keep 0.3 of their processes' 11% clock range
// and stay undecided; at the fitted 0.7 they are unchanged.
TEST(PerClock, TheClocksShareOfTheTimeIsFittedPerBenchmark) {
  Noise noise(11);
  const std::vector<double> base_clocks{0.86, 0.96, 0.91}, head_clocks{0.96, 0.86, 0.92};
  const pc::Report r = report(elastic_side(noise, base_clocks, {}), elastic_side(noise, head_clocks, {}), true);
  ASSERT_EQ(r.rows.size(), 24u);
  for (const auto& row : r.rows) {
    EXPECT_TRUE(row.comparison.per_clock) << row.comparison.note;
    EXPECT_NEAR(row.comparison.clock_elasticity, 0.7, 0.05);
  }
  EXPECT_GE(r.count(pc::Verdict::Unchanged), 22) << r.rows.front().comparison.note;

  // Too few processes to fit (one point), and one sample a process (nothing within processes
  // either): time x clock, as before, and undecided.
  Noise again(11);
  const Elastic one{.points = 1, .per_process = 1};
  const pc::Report lone = report(elastic_side(again, base_clocks, one), elastic_side(again, head_clocks, one), true);
  EXPECT_EQ(lone.rows.at(0).comparison.clock_elasticity, 1.0);
  EXPECT_EQ(lone.rows.at(0).comparison.verdict, pc::Verdict::Inconclusive) << lone.rows.at(0).comparison.note;
}

// The fit takes each side's deviations from its own means: a head 3% slower whose processes ran
// 2% lower clocked leaves the elasticity where it was, and every point is slower.
TEST(PerClock, AChangeBetweenTheSidesStaysOutOfTheFit) {
  Noise noise(12);
  const std::vector<double> base_clocks{0.86, 0.96, 0.91}, head_clocks{0.843, 0.941, 0.892};
  const Elastic base{.jitter = 0.01}, head{.scale = 1.03, .jitter = 0.01};  // no clocks surely apart by chance
  const pc::Report r = report(elastic_side(noise, base_clocks, base), elastic_side(noise, head_clocks, head), true);
  for (const auto& row : r.rows) EXPECT_NEAR(row.comparison.clock_elasticity, 0.7, 0.05);
  EXPECT_EQ(r.count(pc::Verdict::Slower), 24) << r.rows.back().comparison.note;
}

// A point of the benchmark whose time does not follow the clock (on an H100, small MoE GEMMs whose
// clock readings swung 0.73-0.93 at an even time) takes its own elasticity from its samples within
// their processes: about 0, so it is unchanged, where at the benchmark's 0.7 its processes read up
// to 8% apart (the clocks' 11% range) and it stayed undecided. The benchmark's other points keep 0.7.
TEST(PerClock, APointWhoseTimeDoesNotFollowTheClockTakesItsOwnElasticity) {
  Noise noise(13);
  const std::vector<double> base_clocks{0.86, 0.96, 0.91}, head_clocks{0.96, 0.86, 0.92};
  const Elastic flat{.points = 6, .elasticity = 0, .per_process = 16, .first = 24};
  const pc::Report mixed = report(joined(elastic_side(noise, base_clocks, {}), elastic_side(noise, base_clocks, flat)),
                                  joined(elastic_side(noise, head_clocks, {}), elastic_side(noise, head_clocks, flat)),
                                  true);
  ASSERT_EQ(mixed.rows.size(), 30u);
  int flat_unchanged = 0;
  for (const auto& row : mixed.rows) {
    if (std::stoi(row.base.params.at(0).second) < 24) {
      EXPECT_NEAR(row.comparison.clock_elasticity, 0.7, 0.05) << row.base.display;
    } else {
      EXPECT_LT(row.comparison.clock_elasticity, 0.1) << row.base.display;
      flat_unchanged += row.comparison.verdict == pc::Verdict::Unchanged;
    }
  }
  EXPECT_EQ(flat_unchanged, 6) << mixed.rows.back().comparison.note;
}

// The untrusted mode's device-free checks (src/core/untrusted.hpp): the speed floor with made-up
// peaks, the driver's cross-check of samples against its clock, and the engine's refusals of a
// self-reported time and of an impossible speed, on CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include <pitot/pitot.hpp>

#include <pitot/detail/backend_info.hpp>

#include "core/engine.hpp"
#include "core/untrusted.hpp"

namespace {

using namespace pitot;
using untrusted::Peaks;

// A made-up card: 100 TFLOP/s, 1 TB/s.
const Peaks kCard{100e12, 1e12};

TEST(Untrusted, AProcessWithoutADetourReadsTheCLibrarysClocks) {
  // This test binary defines no clock function of its own: nothing to refuse (a detour, defined
  // by a program, is refused end to end in tests/untrusted/cross_check.py).
  EXPECT_EQ(untrusted::clock_detour_reason(), "");
}

TEST(UntrustedFloor, TheLargestOfTheBounds) {
  EXPECT_DOUBLE_EQ(untrusted::floor_seconds(0, 0, kCard, true, true), untrusted::kLaunchFloorSeconds);
  EXPECT_DOUBLE_EQ(untrusted::floor_seconds(0, 0, kCard, true, false), 0);
  EXPECT_DOUBLE_EQ(untrusted::floor_seconds(1e12, 0, kCard, true, true), 0.01);   // 1 TFLOP at 100 TFLOP/s
  EXPECT_DOUBLE_EQ(untrusted::floor_seconds(1e12, 1e11, kCard, true, true), 0.1);  // 100 GB at 1 TB/s wins
  EXPECT_DOUBLE_EQ(untrusted::floor_seconds(1e12, 1e11, kCard, false, true), 0.01);  // the cache may serve them
  EXPECT_DOUBLE_EQ(untrusted::floor_seconds(1e12, 1e11, Peaks{}, true, true), untrusted::kLaunchFloorSeconds);
}

TEST(UntrustedFloor, OnlyWhatIsFasterThanTheMarginIsRefused) {
  const double floor = 0.01;  // 1 TFLOP
  EXPECT_EQ(untrusted::impossible_speed(floor, 1e12, 0, kCard, true, true), "");
  EXPECT_EQ(untrusted::impossible_speed(floor * (1 - untrusted::kSpeedMargin), 1e12, 0, kCard, true, true), "");
  const std::string refused = untrusted::impossible_speed(1e-5, 1e12, 0, kCard, true, true);
  EXPECT_EQ(refused, "untrusted: faster than the card can do: 100000 TFLOP/s claimed, peak 100");
  EXPECT_EQ(untrusted::impossible_speed(1e-4, 0, 1e11, kCard, true, true),
            "untrusted: faster than the card can do: 1000000 GB/s claimed, peak 1000");
  EXPECT_NE(untrusted::impossible_speed(1e-7, 0, 0, kCard, true, true).find("below the launch floor"), std::string::npos);
  EXPECT_EQ(untrusted::impossible_speed(1e-7, 0, 0, kCard, true, false), "");  // host work: no launch floor
}

TEST(UntrustedWall, SamplesMustFitInTheDriversClock) {
  const std::vector<double> honest(100, 1e-3);  // 0.1 s of work
  EXPECT_EQ(untrusted::check_against_wall(honest, 1, 0.15), "");
  EXPECT_EQ(untrusted::check_against_wall(honest, 10, 1.2), "");  // 10 calls a sample: 1 s
  EXPECT_NE(untrusted::check_against_wall(honest, 10, 0.3), "");
  // Forged: a thousand samples of 10 ms claimed in half a second.
  const std::string refused = untrusted::check_against_wall(std::vector<double>(1000, 1e-2), 1, 0.5);
  EXPECT_EQ(refused.rfind("untrusted: the program's samples claim 10 s of timed work", 0), 0u) << refused;
  EXPECT_EQ(untrusted::check_against_wall({}, 1, 0), "");
}

TEST(UntrustedWall, SamplesMustAccountForTheTurnsTheDriverTimed) {
  const std::vector<double> honest(100, 1e-3);  // 0.1 s of work, 100 samples
  EXPECT_EQ(untrusted::check_unaccounted(honest, 1, 0, 0.12), "");
  // The harness's own work: 100 samples x (20 ms + 1 ms a call) + 0.25 s, beside twice the claim.
  EXPECT_EQ(untrusted::check_unaccounted(honest, 1, 0, 2.5), "");
  const std::string refused = untrusted::check_unaccounted(honest, 1, 0, 3.0);
  EXPECT_EQ(refused.rfind("untrusted: the program's samples account for 0.1 s of timed work (100 samples x 1 call, "
                          "median 0.001 s a call), but its sampling lasted 3 s on the driver's clock",
                          0),
            0u)
      << refused;
  EXPECT_EQ(untrusted::check_unaccounted(honest, 10, 0, 3.0), "");  // 10 calls a sample: 1 s of work
  EXPECT_EQ(untrusted::check_unaccounted(honest, 1, 100, 3.0), "");  // as many thrown away as throttled
  EXPECT_EQ(untrusted::check_unaccounted({}, 1, 0, 100), "");      // nothing claimed: nothing to check
}

TEST(UntrustedWall, OneHugeSampleCannotCoverAForgedMedian) {
  std::vector<double> forged(99, 1e-6);
  forged.push_back(5.0);  // sum 5 s for 5 s of turns; the median says 1 us
  EXPECT_NE(untrusted::check_unaccounted(forged, 1, 0, 5.0), "");
  std::vector<double> noisy(90, 1e-3);
  noisy.insert(noisy.end(), 10, 9e-3);  // an honest tail, within ten medians, counts whole: 18 s
  EXPECT_EQ(untrusted::check_unaccounted(noisy, 100, 0, 1.9 * 18.0), "");
}

// A problem's checks between calls grow with its outputs: the seconds the harness timed them are
// allowed beside the samples, and nothing else is.
TEST(UntrustedWall, TheHarnessChecksItTimedAreAllowed) {
  const std::vector<double> honest(100, 1e-3);  // allowed without checks: 0.2 + 2.1 + 0.25 = 2.55 s
  EXPECT_NE(untrusted::check_unaccounted(honest, 1, 0, 4.0), "");
  EXPECT_EQ(untrusted::check_unaccounted(honest, 1, 0, 4.0, 1.5), "");
  const std::string refused = untrusted::check_unaccounted(honest, 1, 0, 4.0, 1.4);
  EXPECT_NE(refused.find("(at most 3.95 s, 1.4 s of it the checks it timed)"), std::string::npos) << refused;
  for (double nonsense : {-10.0, std::nan(""), std::numeric_limits<double>::infinity()})
    EXPECT_NE(untrusted::check_unaccounted(honest, 1, 0, 4.0, nonsense), "") << nonsense;
}

TEST(UntrustedWall, TheDriverClockCountsTheHarnessAtMostItsTurn) {
  untrusted::DriverClock clock;
  clock.sampling(0, 10.0);
  clock.sampled(0, 12.0, 1.5);  // 2 s of turn, 1.5 s of it checks
  clock.sampling(0, 12.0);
  clock.sampled(0, 13.0, 50.0);  // more than the turn lasted: the turn's 1 s
  clock.sampling(0, 13.0);
  clock.sampled(0, 14.0, std::nan(""));
  PointResult p;
  p.samples.assign(100, 1e-3);  // 0.1 s claimed in 4 s of turns, 2.5 s of them checks
  p.backend_info["untrusted"] = true;
  clock.check(p, 14.1);
  EXPECT_EQ(p.status, PointStatus::Ok) << p.reason;
  EXPECT_DOUBLE_EQ(p.backend_info["untrusted_checks"]["driver_seconds"]["harness"].get<double>(), 2.5);
  untrusted::DriverClock unchecked;  // the same turns with no checks said
  unchecked.sampling(0, 10.0);
  unchecked.sampled(0, 14.0);
  PointResult q;
  q.samples.assign(100, 1e-3);
  q.backend_info["untrusted"] = true;
  unchecked.check(q, 14.1);
  EXPECT_EQ(q.status, PointStatus::Failed);
}

// The clock's bookkeeping: turns summed per point, the window from the first turn, messages out
// of order named (the runner's side is tests/run/test_untrusted_runner.cpp).
TEST(UntrustedWall, TheDriverClockSumsEachPointsTurns) {
  untrusted::DriverClock clock;
  clock.sampling(0, 10.0);
  clock.sampled(0, 10.5);
  clock.sampling(1, 10.5);
  clock.sampled(1, 11.0);
  clock.sampling(0, 11.0);
  clock.sampled(0, 11.5);
  PointResult p;
  p.id = 0;
  p.samples.assign(10, 0.1);  // 1 s claimed, 1 s of turns
  p.backend_info["untrusted"] = true;
  clock.check(p, 11.6);
  EXPECT_EQ(p.status, PointStatus::Ok) << p.reason;
  const nlohmann::json& seconds = p.backend_info["untrusted_checks"]["driver_seconds"];
  EXPECT_DOUBLE_EQ(seconds["sampling"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(seconds["window"].get<double>(), 1.6);
  EXPECT_EQ(seconds["turns"], 2);
  p.backend_info["untrusted_checks"] = "forged";  // what the child wrote there is replaced
  p.id = 2;
  clock.check(p, 12.0);
  EXPECT_EQ(p.reason, "untrusted: the program did not say when this point's sampling began");
}

BenchmarkDef make_def(std::string name, BenchmarkFn fn) {
  BenchmarkDef d;
  d.name = std::move(name);
  d.fn = std::move(fn);
  return d;
}

std::map<std::string, PointResult> run_untrusted(const std::deque<BenchmarkDef>& defs, bool untrusted) {
  RunConfig c;
  c.warmup_seconds = 0;
  c.min_samples = 5;
  c.min_seconds = 0;
  c.max_seconds = 0.2;
  DeviceOptions d;
  d.untrusted = untrusted;
  std::map<std::string, PointResult> out;
  run_points("test", plan_points(defs), c, [&](const PointResult& r) { out[r.name] = r; }, {}, d);
  return out;
}

TEST(UntrustedEngine, SelfReportedTimesAreRefusedOnlyInUntrustedMode) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("manual", [](State& s) { s.exec_manual([] { return 1e-6; }); }));
  defs.push_back(make_def("host", [](State& s) {
    s.exec([] {
      volatile int x = 0;
      for (int i = 0; i < 100; ++i) x = x + i;
    });
  }));
  auto trusted = run_untrusted(defs, false);
  EXPECT_EQ(trusted["manual"].status, PointStatus::Ok);
  EXPECT_FALSE(trusted["manual"].backend_info.contains("untrusted"));
  auto out = run_untrusted(defs, true);
  EXPECT_EQ(out["manual"].status, PointStatus::Failed);
  EXPECT_EQ(out["manual"].reason.rfind("untrusted: self-reported time refused", 0), 0u) << out["manual"].reason;
  EXPECT_EQ(out["manual"].backend_info.value("untrusted", false), true);
  EXPECT_EQ(out["host"].status, PointStatus::Ok) << out["host"].reason;
  EXPECT_EQ(out["host"].backend_info.value("untrusted", false), true);
  EXPECT_EQ(out["host"].backend_info["untrusted_checks"].value("impossible_speed", ""), "ok");
}

// A device point records its peaks (here by hand, as a backend does); one that claims a
// petaflop a microsecond is refused with the rate it claimed.
TEST(UntrustedEngine, AnImpossibleSpeedFailsThePoint) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("fast", [](State& s) {
    s.add_flops(1e12);
    detail::set_backend_info(s, "peak_tflops", "100");
    detail::set_backend_info(s, "timing", "\"cold\"");
    s.exec([] {});
  }));
  auto out = run_untrusted(defs, true);
  EXPECT_EQ(out["fast"].status, PointStatus::Failed);
  EXPECT_EQ(out["fast"].reason.rfind("untrusted: faster than the card can do: ", 0), 0u) << out["fast"].reason;
  EXPECT_NE(out["fast"].reason.find("TFLOP/s claimed, peak 100"), std::string::npos) << out["fast"].reason;
  EXPECT_EQ(run_untrusted(defs, false)["fast"].status, PointStatus::Ok);
}

}  // namespace

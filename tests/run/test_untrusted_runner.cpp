// pitot run --untrusted: the driver's cross-check of a child's samples against its own clock
// (src/core/untrusted.hpp, DriverClock), with scripted children that forge their reported times
// (fake_child.hpp: a fake clock, no process). Each forgery must fail its point with a reason
// that starts "untrusted: "; an honest child's points must pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/protocol.hpp"
#include "fake_child.hpp"

namespace {

using namespace pitot::test_run;

class UntrustedRunnerTest : public RunnerTest {
 protected:
  UntrustedRunnerTest() {
    settings.untrusted = true;
    program = fake_program(2);
  }
  static std::string sampling(int id) { return to_json(SamplingMessage{id}).dump(); }
  static std::string sampled(int id) { return to_json(SampledMessage{id}).dump(); }
  // The point's result as an untrusted pitot program reports it: `count` samples of `seconds`
  // each (seconds per call, `number` calls a sample).
  std::string point(int id, int count, double seconds, std::int64_t number = 1) const {
    PointResult p = skeleton(program, *planned(id));
    p.status = PointStatus::Ok;
    p.number = number;
    p.samples.assign(static_cast<std::size_t>(count), seconds);
    p.backend_info["untrusted"] = true;
    return to_json(PointMessage{p}).dump();
  }
  // One point after another, each announced, sampled in one turn of `turn` seconds, and reported
  // with `count` samples of `seconds`.
  void run_points(double turn, int count, double seconds) {
    run([=, this](const Request& r) {
      Script s;
      for (int id : r.points)
        s.after(0.01).line(to_json(StartMessage{id}).dump()).line(sampling(id)).after(turn).line(sampled(id)).line(
            point(id, count, seconds));
      return s.line(to_json(DoneMessage{}).dump()).exit(0);
    });
  }
  const nlohmann::json& checks(int id) const { return out.points.at(id).backend_info.at("untrusted_checks"); }
  bool refused_for(int id, const std::string& words) const {
    const std::string& why = reason(id);
    return out.points.at(id).status == PointStatus::Failed && why.rfind("untrusted: ", 0) == 0 &&
           why.find(words) != std::string::npos;
  }
};

TEST_F(UntrustedRunnerTest, AnHonestChildPasses) {
  run_points(0.5, 20, 0.025);  // 20 x 25 ms in half a second
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 1}));
  EXPECT_EQ(checks(0).at("driver_wall_clock"), "ok");
  EXPECT_NEAR(checks(0).at("driver_seconds").at("sampling").get<double>(), 0.5, 0.11);
  EXPECT_EQ(checks(0).at("driver_seconds").at("turns"), 1);
}

TEST_F(UntrustedRunnerTest, SamplesClaimingMoreThanPassedAreRefused) {
  run_points(0.5, 20, 0.1);  // 2 s claimed in half a second
  EXPECT_TRUE(refused_for(0, "samples claim 2 s of timed work")) << reason(0);
  EXPECT_TRUE(refused_for(1, "samples claim")) << reason(1);
  EXPECT_FALSE(out.points.at(0).stats);
}

TEST_F(UntrustedRunnerTest, SamplesClaimingFarLessThanPassedAreRefused) {
  run_points(3.0, 20, 1e-6);  // 20 us claimed for 3 s of sampling: a timer slowed down, or made-up samples
  EXPECT_TRUE(refused_for(0, "account for 2e-05 s of timed work")) << reason(0);
  EXPECT_NE(reason(0).find("its sampling lasted 3 s on the driver's clock"), std::string::npos) << reason(0);
}

TEST_F(UntrustedRunnerTest, ManySmallSamplesFitTheHarnessAllowance) {
  run_points(1.0, 40, 1e-4);  // 4 ms claimed in 1 s: 40 samples of harness work (sync, flushes) explain it
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 1}));
}

TEST_F(UntrustedRunnerTest, OneHugeSampleDoesNotCoverAForgedMedian) {
  run([this](const Request& r) {
    PointResult p = skeleton(program, *planned(r.points.front()));
    p.status = PointStatus::Ok;
    p.samples.assign(20, 1e-6);
    p.samples.back() = 3.0;  // the sum fits the 3 s the driver saw; the median is a forgery
    p.backend_info["untrusted"] = true;
    return Script().line(sampling(0)).after(3.0).line(sampled(0)).line(to_json(PointMessage{p}).dump()).exit(1);
  });
  EXPECT_TRUE(refused_for(0, "account for")) << reason(0);
}

// The work in a turn of its own, then a second "sampling" sent late so that the last turn looks
// short: the driver sums every turn.
TEST_F(UntrustedRunnerTest, ALateSamplingMessageDoesNotHideTheTurnBeforeIt) {
  run([this](const Request&) {
    return Script()
        .line(sampling(0))
        .after(3.0)
        .line(sampled(0))
        .line(sampling(0))
        .after(0.01)
        .line(sampled(0))
        .line(point(0, 20, 1e-6))
        .exit(1);
  });
  EXPECT_TRUE(refused_for(0, "its sampling lasted")) << reason(0);
}

TEST_F(UntrustedRunnerTest, MessagesOutOfOrderAreRefused) {
  run([this](const Request&) {
    return Script()
        .line(sampling(0))
        .after(3.0)
        .line(sampling(0))  // restarts the clock late, without ending the turn
        .line(sampled(0))
        .line(point(0, 20, 1e-6))
        .line(sampled(1))  // ends a turn it never began
        .line(point(1, 20, 1e-6))
        .exit(1);
  });
  EXPECT_TRUE(refused_for(0, "began a turn of this point's sampling twice")) << reason(0);
  EXPECT_TRUE(refused_for(1, "ended a turn of this point's sampling it had not begun")) << reason(1);
}

TEST_F(UntrustedRunnerTest, APointWithoutItsTurnsIsRefused) {
  run([this](const Request&) {
    return Script().line(point(0, 20, 1e-3)).line(sampling(1)).after(0.5).line(point(1, 20, 1e-3)).exit(1);
  });
  EXPECT_TRUE(refused_for(0, "did not say when this point's sampling began")) << reason(0);
  EXPECT_TRUE(refused_for(1, "did not say when this point's sampling ended")) << reason(1);
}

// Interleaved, each point's turns alternate with the other's: its samples are checked against
// its own turns from below, and against the window from its first turn to its result from above.
TEST_F(UntrustedRunnerTest, InterleavedTurnsAreSummedPerPoint) {
  run([this](const Request&) {
    Script s;
    for (int turn = 0; turn < 4; ++turn)
      for (int id : {0, 1}) s.line(sampling(id)).after(0.3).line(sampled(id)).after(0.05);
    return s.line(point(0, 20, 0.06)).line(point(1, 20, 1e-6)).line(to_json(DoneMessage{}).dump()).exit(1);
  });
  EXPECT_EQ(ok_points(), (std::vector<int>{0}));  // 1.2 s claimed, 1.2 s in its turns
  EXPECT_EQ(checks(0).at("driver_seconds").at("turns"), 4);
  EXPECT_NEAR(checks(0).at("driver_seconds").at("sampling").get<double>(), 1.2, 0.41);  // 100 ms waits
  EXPECT_TRUE(refused_for(1, "account for")) << reason(1);  // 20 us claimed, 1.2 s in its turns
}

TEST_F(UntrustedRunnerTest, APointTheChildFailedIsLeftAlone) {
  run([this](const Request& r) {
    PointResult p = skeleton(program, *planned(r.points.front()));
    p.status = PointStatus::Failed;
    p.reason = "CUDA error: out of memory";
    return Script().line(to_json(PointMessage{p}).dump()).exit(1);
  });
  EXPECT_EQ(reason(0), "CUDA error: out of memory");
}

}  // namespace

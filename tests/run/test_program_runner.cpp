// ProgramRunner against a scripted fake child and a fake clock: which point a crash, a timeout or
// an exit code is charged to, and which points run again, one at a time (docs/driver.md,
// "Isolation"). No process is started and no second passes: time moves only in the fake wait()
// (the fakes: fake_child.hpp).
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/protocol.hpp"
#include "core/stats.hpp"
#include "driver/common/manifest.hpp"
#include "driver/common/progress.hpp"
#include "driver/run/program_runner.hpp"
#include "output/console.hpp"

#include "fake_child.hpp"

namespace {

using namespace pitot::test_run;

TEST_F(RunnerTest, ReportsEveryPointFromOneInterleavedChild) {
  run();
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].serial);
  EXPECT_EQ(requests[0].points, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(out.points.at(2).program, "fake");
  EXPECT_TRUE(out.notes.empty());
}

TEST_F(RunnerTest, AsksForPointsAsRangesWithTheSettingsOfTheRun) {
  settings.program_args = {"--timing", "hot"};
  settings.device = 1;
  run();
  ASSERT_EQ(requests.size(), 1u);
  const std::vector<std::string> expected = {"/fake/fake", "--quiet", "--points", "0-3", "--timing", "hot",
                                             "--interleave", "8", "--device", "1"};
  EXPECT_EQ(requests[0].argv, expected);
}

TEST_F(RunnerTest, CrashMidInterleaveRerunsTheUnfinishedPointsOneAtATime) {
  faults[2] = Fault::Segv;  // points 0-3 started, 0 and 1 reported, then the crash
  run();
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(failed_points(), (std::vector<int>{2}));
  EXPECT_EQ(reason(2).rfind("killed by signal 11 (SIGSEGV)", 0), 0u) << reason(2);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_FALSE(requests[0].serial);
  EXPECT_EQ(requests[1].points, (std::vector<int>{2, 3}));  // the suspects: started, not reported
  EXPECT_TRUE(requests[1].serial);
  EXPECT_EQ(requests[2].points, (std::vector<int>{3}));
  EXPECT_TRUE(requests[2].serial);
  EXPECT_EQ(out.records_of_the_same_point, 0);
}

TEST_F(RunnerTest, WithoutStartMessagesEveryUnfinishedPointIsSuspect) {
  faults[1] = Fault::Segv;
  run([this](const Request& r) {
    Script s = pitot_like(r);
    std::erase_if(s.lines, [](const auto& l) { return l.second.find("\"start\"") != std::string::npos; });
    return s;
  });
  EXPECT_EQ(failed_points(), (std::vector<int>{1}));
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 2, 3}));
  ASSERT_GE(requests.size(), 2u);
  EXPECT_EQ(requests[1].points, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(requests[1].serial);
}

TEST_F(RunnerTest, TimeoutOneAtATimeChargesTheRunningPoint) {
  settings.interleave = 1;
  settings.timeout = 1;
  faults[1] = Fault::Hang;
  run();
  EXPECT_EQ(failed_points(), (std::vector<int>{1}));
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(reason(1).rfind("timed out after 1 s (--timeout 1; 2 s of grace)", 0), 0u) << reason(1);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(requests[0].serial);
  EXPECT_EQ(requests[1].points, (std::vector<int>{2, 3}));
  // Charged after its limit and grace, not before, nor much later.
  EXPECT_GE(time.now.time_since_epoch(), std::chrono::seconds(3));
  EXPECT_LT(time.now.time_since_epoch(), std::chrono::seconds(4));
}

TEST_F(RunnerTest, TimeoutInterleavedChargesThePointThatHeldTheTurn) {
  program = fake_program(4, /*timeout=*/1);
  faults[2] = Fault::HangInSetup;  // 0, 1 started; 2 starts and never hands the turn on
  run();
  EXPECT_EQ(failed_points(), (std::vector<int>{2}));
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(reason(2).rfind("timed out after 1 s (the benchmark's .timeout(), 1 s; 2 s of grace)", 0), 0u) << reason(2);
  ASSERT_GE(requests.size(), 2u);
  EXPECT_TRUE(requests[1].serial);
  ASSERT_FALSE(out.notes.empty());
  EXPECT_NE(out.notes[0].find("timed out: b[n=2] started and held the turn for more than 1 s"), std::string::npos)
      << out.notes[0];
}

TEST_F(RunnerTest, StartedPointThatNeverFinishesIsChargedAfterItsShare) {
  program = fake_program(2, /*timeout=*/1);
  faults[0] = Fault::Hang;  // both started (the window is full), 0 never finishes
  run();
  EXPECT_EQ(failed_points(), (std::vector<int>{0}));
  EXPECT_EQ(ok_points(), (std::vector<int>{1}));
  ASSERT_FALSE(out.notes.empty());
  EXPECT_NE(out.notes[0].find("did not finish within 2 s of its start (2 interleaved points x"), std::string::npos)
      << out.notes[0];
}

TEST_F(RunnerTest, ExitTwoBeforeAnyMessageFailsTheAskedPointsWithoutRestart) {
  run([](const Request&) {
    Script s;
    s.stderr_text = "fake: --axis: no benchmark has an axis named 'm'\n";
    return s.exit(2);
  });
  EXPECT_EQ(failed_points(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(reason(0),
            "the program refused its command line: exited with code 2\nstderr (end):\n"
            "fake: --axis: no benchmark has an axis named 'm'");
  EXPECT_EQ(requests.size(), 1u);
}

TEST_F(RunnerTest, ExitTwoAfterAMessageIsACrashOfTheRunningPoint) {
  faults[1] = Fault::Exit2;
  run();
  EXPECT_EQ(failed_points(), (std::vector<int>{1}));
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(reason(1), "exited with code 2");
  ASSERT_GE(requests.size(), 2u);
  EXPECT_TRUE(requests[1].serial);
  EXPECT_EQ(requests[1].points.front(), 1);
}

TEST_F(RunnerTest, CrashAtStartupTwiceGivesUpTheProgram) {
  run([](const Request&) { return Script().after(0.05).signal(SIGABRT); });
  EXPECT_EQ(failed_points(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(reason(3).rfind("the program killed by signal 6 (SIGABRT) before reporting any point, twice in a row", 0),
            0u)
      << reason(3);
  EXPECT_EQ(requests.size(), 2u);
}

TEST_F(RunnerTest, StickyDeviceErrorRestartsAfterTheReportedPointChargingNothing) {
  settings.interleave = 1;
  int children = 0;
  run([&](const Request& r) {
    if (children++ > 0) return pitot_like(r);
    PointResult p = skeleton(program, *planned(0));
    p.status = PointStatus::Failed;
    p.reason = "CUDA error: an illegal memory access was encountered";
    return Script().line(to_json(StartMessage{0}).dump()).line(to_json(PointMessage{p}).dump()).exit(3);
  });
  EXPECT_EQ(failed_points(), (std::vector<int>{0}));
  EXPECT_EQ(reason(0), "CUDA error: an illegal memory access was encountered");
  EXPECT_EQ(ok_points(), (std::vector<int>{1, 2, 3}));
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].points, (std::vector<int>{1, 2, 3}));
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("sticky device error"), std::string::npos);
}

TEST_F(RunnerTest, CleanExitWithoutAPointFailsThatPointOnly) {
  run([this](const Request& r) {
    Script s = pitot_like(r);
    std::erase_if(s.lines, [](const auto& l) { return l.second.find("\"b[n=3]\"") != std::string::npos; });
    return s;
  });
  EXPECT_EQ(failed_points(), (std::vector<int>{3}));
  EXPECT_EQ(reason(3), "the program finished without reporting this point");
  EXPECT_EQ(requests.size(), 1u);
}

TEST_F(RunnerTest, APointReportedTwiceBreaksTheProtocolChargingTheRunningPoint) {
  settings.interleave = 1;
  int children = 0;
  run([&](const Request& r) {
    if (children++ > 0) return pitot_like(r);
    PointResult again = skeleton(program, *planned(0));
    again.status = PointStatus::Ok;
    Request only_one = r;
    only_one.points = {0};
    Script s = pitot_like(only_one);
    s.lines.pop_back();  // no "done"
    return s.line(to_json(StartMessage{1}).dump()).line(to_json(PointMessage{again}).dump()).exit(0);
  });
  EXPECT_EQ(failed_points(), (std::vector<int>{1}));
  EXPECT_EQ(reason(1).rfind("broke the result protocol: it reported point id 0 (b[n=0]), which was not asked for or came "
                            "twice",
                            0),
            0u)
      << reason(1);
  EXPECT_EQ(ok_points(), (std::vector<int>{0, 2, 3}));
}

TEST_F(RunnerTest, InterruptStopsWithoutChargingAnything) {
  faults[1] = Fault::Hang;
  run([this](const Request& r) {
    interrupted = true;  // Ctrl-C while the first child runs
    return pitot_like(r);
  });
  EXPECT_TRUE(failed_points().empty());
  EXPECT_EQ(requests.size(), 1u);
}

// Plain progress (not a terminal) fed as `pitot run` feeds it: every finished point, the point
// believed running and the notes go to Progress, and the points to the recorder too.
struct ProgressOutput final : RunnerOutput {
  ProgressOutput(Progress& progress, Recorder& recorder, std::string where)
      : progress(progress), recorder(recorder), where(std::move(where)) {}
  void record(std::vector<PointResult> ps) override {
    for (const auto& p : ps) progress.done(where, p);
    recorder.record(std::move(ps));
  }
  void note(const std::string& line) override { progress.note(line); }
  void running(const std::string& point) override { progress.running(where, point); }
  void tick() override { progress.tick(); }
  Progress& progress;
  Recorder& recorder;
  std::string where;
};

// What Progress wrote, in memory.
struct Captured {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* file = open_memstream(&buffer, &size);
  ~Captured() {
    std::fclose(file);
    std::free(buffer);
  }
  std::vector<std::string> lines() {
    std::fflush(file);
    std::vector<std::string> out;
    std::string text(buffer, size);
    for (std::size_t pos = 0, nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1)
      out.push_back(text.substr(pos, nl - pos));
    return out;
  }
};

const std::string kNoGpu = "no AMD GPU usable here (hipGetDeviceCount says no device)";

class SkipProgressTest : public RunnerTest {
 protected:
  // A program that reports the points in `skipped` as skipped for kNoGpu and measures the others.
  // Skipped points are announced ("start") when `announce` (a body that skips), else reported at
  // once (a program without its GPU).
  Script skipping(const Request& r) {
    Script s;
    for (int id : r.points) {
      PointResult p = skeleton(program, *planned(id));
      if (skipped.count(id)) {
        p.status = PointStatus::Skipped;
        p.reason = kNoGpu;
      } else {
        p.status = PointStatus::Ok;
        p.samples = {1e-6, 1e-6, 1e-6};
        p.stats = compute_stats(p.samples);
      }
      // A point per wait of the runner (100 ms), so that each start reaches Progress on its own.
      if (announce || !skipped.count(id)) s.after(0.15).line(to_json(StartMessage{id}).dump());
      s.line(to_json(PointMessage{p}).dump());
    }
    return s.line(to_json(DoneMessage{}).dump()).exit(0);
  }
  // Runs the program with plain progress, then starts another program as `pitot run` would.
  void run_with_progress() {
    std::vector<const PlannedPoint*> points;
    for (const auto& p : program.points) points.push_back(&p);
    StartChild start = [&](const std::vector<std::string>& argv) -> std::unique_ptr<ChildProcess> {
      requests.push_back(read_request(argv));
      return std::make_unique<FakeChild>(skipping(requests.back()), time);
    };
    ProgressOutput output(progress, out, where_of(program, std::nullopt));
    ProgramRunner(settings, program, points, output, interrupted, start, [this] { return time.now; }).run();
    progress.running("next_program", "");
  }

  std::set<int> skipped;
  bool announce = false;
  Captured captured;
  Progress progress{captured.file, false, 8};
};

// Issue 21: a HIP program on a machine without an AMD GPU printed one line per point (206 for
// two programs). Its points are one line now, and each is still recorded as skipped.
TEST_F(SkipProgressTest, ProgramThatSkipsEveryPointIsOneLine) {
  program = fake_program(6);
  skipped = {0, 1, 2, 3, 4, 5};
  run_with_progress();
  const auto lines = captured.lines();
  ASSERT_EQ(lines.size(), 1u) << testing::PrintToString(lines);
  EXPECT_EQ(lines[0], "[6/8] fake: 6 points skipped: " + kNoGpu);
  ASSERT_EQ(out.points.size(), 6u);
  for (const auto& [id, p] : out.points) {
    EXPECT_EQ(p.status, PointStatus::Skipped) << id;
    EXPECT_EQ(p.reason, kNoGpu) << id;
  }
}

// A measured point ends a run of skipped ones, the start messages of skipped points do not; a
// lone skipped point keeps its own line, and a reason already given is not repeated.
TEST_F(SkipProgressTest, MeasuredPointsSplitTheSkippedRuns) {
  program = fake_program(4);
  skipped = {0, 1, 3};
  announce = true;
  run_with_progress();
  const auto lines = captured.lines();
  ASSERT_EQ(lines.size(), 3u) << testing::PrintToString(lines);
  EXPECT_EQ(lines[0], "[2/8] fake: 2 points skipped: " + kNoGpu);
  EXPECT_EQ(lines[1], "[3/8] fake b[n=2] " + format_seconds(1e-6));  // its median
  EXPECT_EQ(lines[2], "[4/8] fake b[n=3] skipped (same reason as above)");
  EXPECT_EQ(ok_points(), (std::vector<int>{2}));
  EXPECT_EQ(out.points.size(), 4u);
}

// Held skipped points are written before a note and at the end of the run, never lost.
TEST(Progress, HeldSkipsAreWrittenBeforeANoteAndAtTheEnd) {
  Captured captured;
  Progress progress(captured.file, false, 4);
  PointResult p;
  p.name = "b[n=0]";
  p.status = PointStatus::Skipped;
  p.reason = "no GPU";
  progress.done("x", p);
  progress.done("x", p);
  EXPECT_TRUE(captured.lines().empty());
  progress.note("restarting");
  progress.done("y", p);
  progress.finish();
  const std::vector<std::string> expected = {"[2/4] x: 2 points skipped: no GPU", "restarting",
                                             "[3/4] y b[n=0] skipped: no GPU"};
  EXPECT_EQ(captured.lines(), expected);
}

}  // namespace

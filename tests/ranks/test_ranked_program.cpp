// A multi-rank benchmark program (programs/ranked_program.cpp) in 2 and 4 real processes with
// torchrun's variables: every rank runs the work equally often, the sample is the slowest rank's,
// the straggler is named, only rank 0 writes; a rank that crashes, hangs or throws fails the point
// on the others within the timeout, naming it (docs/ranks.md, "The engine").
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/protocol.hpp"
#include "spawn.hpp"

using namespace pitot::ranks::testing;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kQuick = {"--warmup", "0.002", "--min-time", "0.01", "--max-time", "0.05", "--min-samples", "5"};

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct RankedRun {
  fs::path dir;
  std::vector<RankEnd> ends;
  std::string err(int rank) const { return read_file(dir / ("err." + std::to_string(rank))); }
  std::string out(int rank) const { return read_file(dir / ("out." + std::to_string(rank))); }
  nlohmann::json json() const { return nlohmann::json::parse(read_file(dir / "out.json")); }
  int count(const std::string& bench, int rank) const {
    const std::string text = read_file(dir / "counts" / (bench + "." + std::to_string(rank)));
    return text.empty() ? 0 : std::stoi(text);
  }
};

// The program in `world` ranks, each rank's stdout and stderr in files, --json out.json for all.
RankedRun run_program(int world, const std::string& filter, const std::vector<std::string>& env = {}, const std::set<int>& hangs = {}) {
  RankedRun run;
  run.dir = fs::temp_directory_path() / ("pitot-ranked-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  fs::create_directories(run.dir / "counts");
  run.ends = run_ranks(
      world,
      [&](int rank) -> std::string {
        ::setenv("PITOT_TEST_COUNTS", (run.dir / "counts").c_str(), 1);
        for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
        const int out = ::open((run.dir / ("out." + std::to_string(rank))).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = ::open((run.dir / ("err." + std::to_string(rank))).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(out, 1);
        ::dup2(err, 2);
        std::vector<std::string> args = {PITOT_RANKED_PROGRAM, "--filter", filter, "--json", (run.dir / "out.json").string(),
                                         "--no-interleave"};
        args.insert(args.end(), kQuick.begin(), kQuick.end());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        return "exec failed";
      },
      hangs, 20);
  return run;
}

const nlohmann::json& point(const nlohmann::json& j, const std::string& benchmark) {
  for (const auto& p : j.at("points"))
    if (p.at("benchmark") == benchmark) return p;
  throw std::runtime_error("no point of " + benchmark + " in " + j.dump().substr(0, 500));
}

double track(const nlohmann::json& p, const std::string& name) {
  for (const auto& t : p.at("tracks"))
    if (t.at("name") == name) return t.at("value").get<double>();
  return -1;
}

class RankedWorlds : public ::testing::TestWithParam<int> {};

TEST_P(RankedWorlds, SamplesAreTheSlowestRanksAndEveryRankRunsAlike) {
  const int world = GetParam();
  const int slow = world / 2;
  const RankedRun run = run_program(world, "^(by_rank|spin_by_rank|alone)$");
  for (int r = 0; r < world; ++r) {
    const RankEnd& e = run.ends[static_cast<std::size_t>(r)];
    EXPECT_TRUE(e.exited && e.code == 0) << "rank " << r << " code " << e.code << " signal " << e.signal << ": " << run.err(r);
    if (r > 0) {  // silent: no table, no error
      EXPECT_EQ(run.out(r), "") << "rank " << r;
      EXPECT_EQ(run.err(r), "") << "rank " << r;
    }
  }
  EXPECT_NE(run.out(0).find("by_rank"), std::string::npos) << "rank 0 prints the table";
  const nlohmann::json j = run.json();  // one file, rank 0's: the others write none
  // The manual sample: exactly the slowest rank's value, the fastest and the mean beside it.
  const auto& manual = point(j, "by_rank");
  ASSERT_EQ(manual.at("status"), "ok") << manual.dump();
  for (const auto& s : manual.at("samples")) EXPECT_DOUBLE_EQ(s.get<double>(), 3e-4);
  const auto& info = manual.at("backend_info").at("ranks");
  EXPECT_EQ(info.at("world_size"), world);
  EXPECT_EQ(info.at("straggler"), slow);
  EXPECT_DOUBLE_EQ(info.at("fastest_rank_median_seconds").get<double>(), 1e-4);
  double mean = 0;
  for (int r = 0; r < world; ++r) mean += r == slow ? 3e-4 : 1e-4 + 1e-5 * r;
  EXPECT_NEAR(info.at("rank_mean_median_seconds").get<double>(), mean / world, 1e-12);
  EXPECT_EQ(track(manual, "straggler_rank"), slow);
  // Every rank called the work as often as rank 0 (warm-up and samples), though their clocks differ.
  const int calls = run.count("by_rank", 0);
  EXPECT_GE(calls, static_cast<int>(manual.at("samples").size()));
  for (int r = 1; r < world; ++r) EXPECT_EQ(run.count("by_rank", r), calls) << "rank " << r;
  // Host-clock samples: the slowest rank's spin (0.3 ms), not the others' (0.1 ms).
  const auto& spin = point(j, "spin_by_rank");
  ASSERT_EQ(spin.at("status"), "ok") << spin.dump();
  EXPECT_GE(spin.at("stats").at("median").get<double>(), 3e-4);
  EXPECT_EQ(spin.at("backend_info").at("ranks").at("straggler"), slow);
  // A benchmark that is not multi-rank ran on rank 0 alone.
  EXPECT_EQ(point(j, "alone").at("status"), "ok");
  EXPECT_FALSE(point(j, "alone").at("backend_info").contains("ranks"));
  EXPECT_GT(run.count("alone", 0), 0);
  for (int r = 1; r < world; ++r) EXPECT_EQ(run.count("alone", r), 0) << "rank " << r;
}

INSTANTIATE_TEST_SUITE_P(Ranks, RankedWorlds, ::testing::Values(2, 4));

// Without a launcher the program is what it always was: one rank, no ranks' facts.
TEST(RankedProgram, OneRankIsAPlainProgram) {
  const RankedRun run = run_program(1, "^by_rank$");
  ASSERT_TRUE(run.ends[0].exited && run.ends[0].code == 0) << run.err(0);
  const nlohmann::json j = run.json();
  const auto& p = point(j, "by_rank");
  for (const auto& s : p.at("samples")) EXPECT_DOUBLE_EQ(s.get<double>(), 3e-4);  // rank 0 of 1 is world / 2
  EXPECT_FALSE(p.at("backend_info").contains("ranks"));
  EXPECT_EQ(track(p, "straggler_rank"), -1);
}

// --list under a launcher: rank 0 lists, the others print nothing.
TEST(RankedProgram, OnlyRankZeroLists) {
  const fs::path dir = fs::temp_directory_path() / ("pitot-ranked-list-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto ends = run_ranks(2, [&](int rank) -> std::string {
    const int out = ::open((dir / ("list." + std::to_string(rank))).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::execl(PITOT_RANKED_PROGRAM, PITOT_RANKED_PROGRAM, "--list", static_cast<char*>(nullptr));
    return "exec failed";
  });
  for (const RankEnd& e : ends) EXPECT_TRUE(e.exited && e.code == 0) << e.report;
  EXPECT_NE(read_file(dir / "list.0").find("by_rank"), std::string::npos);
  EXPECT_EQ(read_file(dir / "list.1"), "");
}

// A rank that crashes, hangs or throws at its third sample: rank 0 reports the point failed with
// the reason, every surviving rank stops (exit 3 as for a lost device, "restart after"), none hangs.
void expect_failed_point(int world, const std::string& how, int bad, const std::string& reason, double within) {
  const std::set<int> hangs = how == "hang" ? std::set<int>{bad} : std::set<int>{};
  const RankedRun run = run_program(world, "^failing_rank$", {"PITOT_TEST_FAIL=" + how, "PITOT_TEST_FAIL_RANK=" + std::to_string(bad)}, hangs);
  for (int r = 0; r < world; ++r) {
    const RankEnd& e = run.ends[static_cast<std::size_t>(r)];
    if (r == bad && how != "throw") continue;
    EXPECT_TRUE(e.exited && e.code == pitot::kExitDeviceLost) << how << ": rank " << r << " code " << e.code << " signal " << e.signal << ": " << run.err(r);
    EXPECT_LT(e.seconds, within) << how << ": rank " << r;
    EXPECT_NE(run.err(r).find("the ranks' group failed"), std::string::npos) << how << ": rank " << r << ": " << run.err(r);
  }
  if (bad == 0 && how != "throw") return;  // rank 0 gone: no JSON
  const nlohmann::json j = run.json();
  const auto& p = point(j, "failing_rank");
  EXPECT_EQ(p.at("status"), "failed");
  EXPECT_NE(p.at("reason").get<std::string>().find(reason), std::string::npos) << how << ": " << p.at("reason");
}

TEST(RankedProgram, CrashedRankFailsThePointAtOnce) {
  expect_failed_point(4, "crash", 2, "rank 2 closed its connection", 5);
}

TEST(RankedProgram, HungRankFailsThePointAfterTheTimeout) {
  expect_failed_point(4, "hang", 3, "waiting for rank 3", 8);
}

TEST(RankedProgram, ThrowingRankFailsThePointWithItsReason) {
  expect_failed_point(2, "throw", 1, "rank 1 ran out of memory", 5);
}

}  // namespace

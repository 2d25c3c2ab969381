// `pitot run --ranks N` on the multi-rank program (programs/ranked_program.cpp): the driver starts
// one process per rank with torchrun's variables, reads rank 0's results, and a rank that crashes
// or hangs fails its point with the reason, the other ranks ended (docs/ranks.md, "pitot run").
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"

namespace fs = std::filesystem;

namespace {

struct DriverRun {
  pitot::Captured captured;
  nlohmann::json json;
};

DriverRun run_driver(const std::vector<std::string>& args, const pitot::EnvList& env = {}) {
  const fs::path dir = fs::temp_directory_path() / ("pitot-ranked-driver-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> argv = {PITOT_DRIVER, "run", PITOT_RANKED_PROGRAM, "--no-asv", "--progress", "none",
                                   "--json", (dir / "run.json").string(), "--warmup", "0.002", "--min-time", "0.01",
                                   "--max-time", "0.05", "--min-samples", "5"};
  argv.insert(argv.end(), args.begin(), args.end());
  DriverRun run;
  fs::remove(dir / "run.json");
  run.captured = pitot::run_captured(argv, 60, env);
  std::ifstream in(dir / "run.json");
  std::stringstream text;
  text << in.rdbuf();
  if (!text.str().empty()) run.json = nlohmann::json::parse(text.str());
  return run;
}

nlohmann::json point_of(const DriverRun& run, const std::string& benchmark) {
  if (run.json.is_object())
    for (const auto& p : run.json.at("points"))
      if (p.at("benchmark") == benchmark) return p;
  return {};
}

TEST(RankedDriver, RunsTheRanksAndReadsRankZero) {
  const DriverRun run = run_driver({"--ranks", "2", "--filter", "^(by_rank|alone)$"});
  ASSERT_EQ(run.captured.end.code, 0) << run.captured.err;
  const nlohmann::json p = point_of(run, "by_rank");
  ASSERT_EQ(p.value("status", ""), "ok") << run.json.dump().substr(0, 2000);
  for (const auto& s : p.at("samples")) EXPECT_DOUBLE_EQ(s.get<double>(), 3e-4);  // rank 1's, the slowest
  EXPECT_EQ(p.at("backend_info").at("ranks").at("world_size"), 2);
  EXPECT_EQ(p.at("backend_info").at("ranks").at("straggler"), 1);
  EXPECT_EQ(point_of(run, "alone").value("status", ""), "ok");
}

TEST(RankedDriver, OneRankRunsAsAnyProgram) {
  const DriverRun run = run_driver({"--ranks", "1", "--filter", "^by_rank$"});
  ASSERT_EQ(run.captured.end.code, 0) << run.captured.err;
  const nlohmann::json p = point_of(run, "by_rank");
  ASSERT_EQ(p.value("status", ""), "ok");
  EXPECT_FALSE(p.at("backend_info").contains("ranks"));
}

// A crashed or hung rank fails the point with the reason; the driver returns well within the
// point's timeout (1 s) plus its grace, and leaves no rank behind.
TEST(RankedDriver, CrashedOrHungRankFailsItsPoint) {
  for (const std::string how : {"crash", "hang"}) {
    const DriverRun run = run_driver({"--ranks", "3", "--filter", "^failing_rank$"},
                                     {{"PITOT_TEST_FAIL", how}, {"PITOT_TEST_FAIL_RANK", "1"}});
    EXPECT_EQ(run.captured.end.code, 1) << how << ": " << run.captured.err;
    EXPECT_LT(run.captured.end.wall_seconds, 15) << how;
    const nlohmann::json p = point_of(run, "failing_rank");
    ASSERT_EQ(p.value("status", ""), "failed") << how << ": " << run.json.dump().substr(0, 2000);
    const std::string why = p.at("reason");
    EXPECT_NE(why.find(how == "crash" ? "rank 1 closed its connection" : "waiting for rank 1"), std::string::npos) << how << ": " << why;
  }
}

}  // namespace

namespace {

// A worker per GPU (--devices) runs a multi-rank program as one rank on its GPU; --ranks beside it
// is refused before anything runs.
TEST(RankedDriver, DevicesRunOneRankEach) {
  const DriverRun one = run_driver({"--devices", "0", "--filter", "^by_rank$"});
  ASSERT_EQ(one.captured.end.code, 0) << one.captured.err;
  const nlohmann::json p = point_of(one, "by_rank");
  ASSERT_EQ(p.value("status", ""), "ok") << one.json.dump().substr(0, 2000);
  EXPECT_FALSE(p.at("backend_info").contains("ranks"));
  const DriverRun both = run_driver({"--devices", "0", "--ranks", "2"});
  EXPECT_EQ(both.captured.end.code, 2);
  EXPECT_NE(both.captured.err.find("--devices and --ranks"), std::string::npos) << both.captured.err;
}

}  // namespace

// `pitot compare` and `pitot ab` on multi-rank rows (issue 36, item 3), with real ranks on the CPU:
// programs/ranked_ab.cpp built twice under one name (programs/base/ranked_ab and, 1.5x slower at
// `slowed`, programs/head/ranked_ab). Two commits of one asv database, each run by `pitot run
// --ranks 2 --processes 3`, land in the `-ranks2` env and compare: `slowed` slower (exit 1),
// `steady` unchanged; base against itself exits 0; runs in 2 and 3 ranks are not compared.
// `pitot ab --ranks 2` runs both sides in 2 ranks and gives the same verdicts (docs/ranks.md,
// docs/compare.md).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kQuick = {"--warmup", "0.002", "--min-time", "0.01", "--max-time", "0.05",
                                         "--min-samples", "10", "--progress", "none"};
const std::string kBaseCommit(40, 'a'), kHeadCommit(40, 'b'), kSameCommit(40, 'c');

fs::path temp_dir(const std::string& what) {
  const fs::path d = fs::temp_directory_path() / ("pitot-ranked-" + what + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

pitot::Captured pitot_cli(std::vector<std::string> args) {
  args.insert(args.begin(), PITOT_DRIVER);
  return pitot::run_captured(args, 240);
}

// Verdict by benchmark name (compare's --json points), e.g. {"ranked_ab.slowed": "slower"}.
std::map<std::string, std::string> verdicts(const nlohmann::json& report) {
  std::map<std::string, std::string> out;
  for (const auto& p : report.at("points")) out[p.at("name").get<std::string>()] = p.at("verdict").get<std::string>();
  return out;
}

// The env names of the results files under `results` (asv's env_name of each run).
std::vector<std::string> env_names(const fs::path& results) {
  std::vector<std::string> out;
  for (const auto& machine : fs::directory_iterator(results)) {
    if (!machine.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(machine.path())) {
      if (f.path().filename() == "machine.json" || f.path().extension() != ".json") continue;
      const auto doc = nlohmann::json::parse(read_file(f.path()), nullptr, false, true);
      if (doc.is_object() && doc.contains("env_name")) out.push_back(doc.at("env_name").get<std::string>());
    }
  }
  return out;
}

// Two commits of one asv database, each measured by `pitot run --ranks 2 --processes 3`: the rows
// go to the -ranks2 env, and compare pairs them and judges each point.
TEST(RankedCompare, CompareJudgesMultiRankRows) {
  const fs::path dir = temp_dir("compare");
  const fs::path results = dir / "results";
  auto run = [&](const char* program, const std::string& commit) {
    std::vector<std::string> args = {"run", program, "--ranks", "2", "--processes", "3", "--machine", "testbox",
                                     "--asv-dir", results.string(), "--commit", commit};
    args.insert(args.end(), kQuick.begin(), kQuick.end());
    const pitot::Captured c = pitot_cli(args);
    ASSERT_EQ(c.end.code, 0) << program << ": " << c.err;
  };
  run(PITOT_RANKED_AB_BASE, kBaseCommit);
  run(PITOT_RANKED_AB_HEAD, kHeadCommit);
  run(PITOT_RANKED_AB_BASE, kSameCommit);
  if (HasFatalFailure()) return;
  const std::vector<std::string> envs = env_names(results);
  ASSERT_EQ(envs.size(), 3u);
  for (const auto& e : envs) EXPECT_NE(e.find("-ranks2"), std::string::npos) << e;

  // base -> head: `slowed` is slower (exit 1), `steady` unchanged.
  pitot::Captured c = pitot_cli({"compare", kBaseCommit, kHeadCommit, "--results-dir", results.string(), "--machine",
                                 "testbox", "--json"});
  ASSERT_EQ(c.end.code, 1) << c.out.substr(0, 3000) << c.err;
  nlohmann::json report = nlohmann::json::parse(c.out);
  std::map<std::string, std::string> v = verdicts(report);
  EXPECT_EQ(v["ranked_ab.slowed"], "slower") << c.out.substr(0, 3000);
  EXPECT_EQ(v["ranked_ab.steady"], "unchanged") << c.out.substr(0, 3000);
  EXPECT_EQ(report.at("summary").at("exit_code"), 1);
  for (const auto& p : report.at("points")) {
    EXPECT_EQ(p.at("base").at("processes"), 3) << p.dump();
    EXPECT_EQ(p.at("head").at("processes"), 3) << p.dump();
    if (p.at("name") == "ranked_ab.slowed") {
      EXPECT_GT(p.at("ratio").get<double>(), 1.4) << p.dump();
      EXPECT_LT(p.at("ratio").get<double>(), 1.6) << p.dump();
    }
  }
  EXPECT_NE(report.at("environments").dump().find("-ranks2"), std::string::npos) << report.at("environments").dump();

  // base -> base again (another commit): nothing slower, exit 0; both points unchanged.
  c = pitot_cli({"compare", kBaseCommit, kSameCommit, "--results-dir", results.string(), "--machine", "testbox", "--json"});
  ASSERT_EQ(c.end.code, 0) << c.out.substr(0, 3000) << c.err;
  v = verdicts(nlohmann::json::parse(c.out));
  EXPECT_EQ(v["ranked_ab.slowed"], "unchanged") << c.out.substr(0, 3000);
  EXPECT_EQ(v["ranked_ab.steady"], "unchanged") << c.out.substr(0, 3000);
  fs::remove_all(dir);
}

// A point on 2 ranks is not the same point on 3: their envs (-ranks2, -ranks3) are not paired as
// one renamed build, and with nothing else to compare it is bad input (exit 2) naming the ranks.
TEST(RankedCompare, CompareRefusesOtherWorldSizes) {
  const fs::path dir = temp_dir("worlds");
  const fs::path results = dir / "results";
  for (const auto& [ranks, commit] : {std::pair{"2", kBaseCommit}, std::pair{"3", kHeadCommit}}) {
    std::vector<std::string> args = {"run", PITOT_RANKED_AB_BASE, "--ranks", ranks, "--machine", "testbox",
                                     "--asv-dir", results.string(), "--commit", commit};
    args.insert(args.end(), kQuick.begin(), kQuick.end());
    const pitot::Captured c = pitot_cli(args);
    ASSERT_EQ(c.end.code, 0) << ranks << " ranks: " << c.err;
  }
  const pitot::Captured c =
      pitot_cli({"compare", kBaseCommit, kHeadCommit, "--results-dir", results.string(), "--machine", "testbox"});
  EXPECT_EQ(c.end.code, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("ran in 2 ranks and head's"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("-ranks3 in 3"), std::string::npos) << c.err;
  fs::remove_all(dir);
}

// `pitot ab --ranks 2`: both sides run in 2 ranks (the JSON says world size 2), and the verdicts
// are those of compare; base against itself exits 0.
TEST(RankedCompare, AbRunsBothSidesInRanks) {
  const fs::path dir = temp_dir("ab");
  auto ab = [&](const char* head, const std::string& name) {
    std::vector<std::string> args = {"ab", PITOT_RANKED_AB_BASE, head, "--ranks", "2", "--processes", "2",
                                     "--max-processes", "4", "--json", "--json-dir", (dir / name).string()};
    args.insert(args.end(), kQuick.begin(), kQuick.end());
    return pitot_cli(args);
  };
  pitot::Captured c = ab(PITOT_RANKED_AB_HEAD, "slowed");
  ASSERT_EQ(c.end.code, 1) << c.out.substr(0, 3000) << c.err;
  std::map<std::string, std::string> v = verdicts(nlohmann::json::parse(c.out));
  EXPECT_EQ(v["ranked_ab.slowed"], "slower") << c.out.substr(0, 3000);
  EXPECT_EQ(v["ranked_ab.steady"], "unchanged") << c.out.substr(0, 3000);
  for (const char* side : {"base.json", "head.json"}) {
    const nlohmann::json doc = nlohmann::json::parse(read_file(dir / "slowed" / side));
    ASSERT_EQ(doc.at("points").size(), 2u) << side;
    for (const auto& p : doc.at("points")) {
      ASSERT_EQ(p.value("status", ""), "ok") << side << ": " << p.dump().substr(0, 1000);
      EXPECT_EQ(p.at("backend_info").at("ranks").at("world_size"), 2) << side << ": " << p.dump().substr(0, 1000);
    }
  }

  c = ab(PITOT_RANKED_AB_BASE, "same");
  ASSERT_EQ(c.end.code, 0) << c.out.substr(0, 3000) << c.err;
  v = verdicts(nlohmann::json::parse(c.out));
  EXPECT_EQ(v["ranked_ab.slowed"], "unchanged") << c.out.substr(0, 3000);
  EXPECT_EQ(v["ranked_ab.steady"], "unchanged") << c.out.substr(0, 3000);
  fs::remove_all(dir);
}

}  // namespace

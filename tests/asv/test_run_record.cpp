// The asv run record both executables build with one function (asv/run_record.hpp): the commit's
// one rule, the device facts flattened one way, the env checked. tests/e2e/same_record.py holds
// the two executables' databases equal.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "asv/error.hpp"
#include "asv/run_record.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pitot;

namespace {

// A throwaway git repository with one commit.
struct Repo {
  fs::path dir = fs::temp_directory_path() / ("pitot-run-record-" + std::to_string(::getpid()));
  Repo() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string git = "git -C '" + dir.string() + "' ";
    const int rc = std::system((git + "init -q && GIT_AUTHOR_DATE='2024-01-02T03:04:05Z' GIT_COMMITTER_DATE='2024-01-02T03:04:05Z' " +
                                git + "-c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false commit -q " +
                                "--allow-empty -m one")
                                   .c_str());
    EXPECT_EQ(rc, 0);
  }
  ~Repo() { fs::remove_all(dir); }
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST(RunRecord, ARevisionGitKnowsGivesItsHashAndCommitDate) {
  Repo repo;
  std::string note;
  const CommitInfo head = asv_commit("", repo.dir, note);
  EXPECT_EQ(head.hash.size(), 40u);
  EXPECT_EQ(head.date_ms, 1704164645000);  // the author date, as asv dates a commit
  EXPECT_EQ(asv_commit("HEAD", repo.dir, note).hash, head.hash);
  EXPECT_EQ(note, "");
}

// One rule for both executables: a full hash made elsewhere is taken and dated now, with a note;
// anything else git cannot resolve is refused.
TEST(RunRecord, AFullHashGitDoesNotKnowIsTakenAndDatedNow) {
  Repo repo;
  std::string note;
  const std::int64_t before = now_ms();
  const CommitInfo c = asv_commit(std::string(40, 'A'), repo.dir, note);
  EXPECT_EQ(c.hash, std::string(40, 'a'));
  EXPECT_GE(c.date_ms, before);
  EXPECT_NE(note.find("not in the git repository"), std::string::npos) << note;
  EXPECT_THROW(asv_commit("abcdef12", repo.dir, note), AsvError);
  EXPECT_THROW(asv_commit(std::string(40, 'g'), repo.dir, note), AsvError);
  EXPECT_THROW(asv_commit("", repo.dir / "nowhere", note), AsvError);
}

TEST(RunRecord, DeviceFactsAreFlattenedOneWay) {
  const json device = {{"gpu", "NVIDIA H200"}, {"gpu_sm_count", 132}, {"gpu_ecc", true},
                       {"gpu_l2_mib", 60.0}, {"nvidia_driver", nullptr}, {"clocks", json::array({1, 2})}};
  const AsvFacts facts = device_machine_facts(device);
  EXPECT_EQ(facts, (AsvFacts{{"gpu", "NVIDIA H200"}, {"gpu_sm_count", "132"}, {"gpu_ecc", "true"}, {"gpu_l2_mib", "60.0"}}));
  EXPECT_TRUE(device_machine_facts(nullptr).empty());
}

TEST(RunRecord, TheRecordOfBothExecutables) {
  RunRecordInputs in;
  in.machine = {"", nullptr, "host", {{"cpu", "AMD EPYC 7763"}, {"ram", "24GB"}}, json{{"gpu", "NVIDIA H100 80GB HBM3"}}, ""};
  in.commit = {std::string(40, 'c'), 1704164645000};
  in.env = "cpp-gcc-12.2-Release";
  in.requirements = {{"compiler", "gcc-12.2"}};
  std::set<std::string> notes;
  const AsvRun run = asv_run_record(in, notes);
  EXPECT_EQ(run.machine, "h100-80gb-hbm3");
  EXPECT_EQ(run.machine_facts.at("gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.machine_facts.at("ram"), "24GB");
  EXPECT_EQ(run.commit_hash, in.commit.hash);
  EXPECT_EQ(run.commit_date_ms, in.commit.date_ms);
  EXPECT_EQ(run.env_name, in.env);
  EXPECT_EQ(run.requirements, in.requirements);
  EXPECT_TRUE(notes.empty());
  // A Python program's rows take the params asv.conf.json's environments give them.
  AsvEnvironments envs;
  envs.type = "virtualenv";
  envs.requirements = AsvFacts{{"numpy", ""}};
  in.requirements = {{"python", "/usr/bin/python3"}, {"python_version", "3.11"}};
  in.environments = &envs;
  EXPECT_EQ(asv_run_record(in, notes).requirements,
            (AsvFacts{{"python", "3.11"}, {"python_version", "3.11"}, {"numpy", ""}}));
  envs.pythons = {"3.12"};
  EXPECT_EQ(asv_run_record(in, notes).requirements.at("python"), "/usr/bin/python3");
  EXPECT_EQ(notes.size(), 1u);  // why the rows start a graph line of their own
  in.env = "../up";
  EXPECT_THROW(asv_run_record(in, notes), AsvError);
}

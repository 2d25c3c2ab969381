// Host facts, names and git commits recorded in the asv database.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/settings.hpp"
#include "asv/env.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using namespace pitot;

TEST(HostFacts, HasTheKeysAsvMachineAsksFor) {
  auto facts = host_facts();
  for (const char* key : {"arch", "cpu", "num_cpu", "os", "ram"}) {
    ASSERT_TRUE(facts.count(key)) << key;
    EXPECT_FALSE(facts[key].empty()) << key;
  }
  EXPECT_GE(std::stoi(facts["num_cpu"]), 1);
  EXPECT_TRUE(facts["ram"].ends_with("GB")) << facts["ram"];
  EXPECT_TRUE(facts["os"].starts_with("Linux ")) << facts["os"];
  // Kernel major.minor only ("Linux 6.1"): a patch or build suffix would split asv's history.
  const std::string version = facts["os"].substr(6);
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 1) << facts["os"];
  EXPECT_EQ(version.find_first_not_of("0123456789."), std::string::npos) << facts["os"];
}

TEST(MachineName, FromCpuModels) {
  EXPECT_EQ(machine_name_from_cpu("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"), "xeon-gold-6338");
  EXPECT_EQ(machine_name_from_cpu("AMD EPYC 7763 64-Core Processor"), "epyc-7763");
  EXPECT_EQ(machine_name_from_cpu("Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz"), "i7-8700k");
  EXPECT_EQ(machine_name_from_cpu("Neoverse-V2"), "neoverse-v2");
  EXPECT_EQ(machine_name_from_cpu(""), "unknown-cpu");
  EXPECT_EQ(machine_name_from_cpu("@@@"), "unknown-cpu");
  for (const char* model : {"Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "weird / ../ name", ""})
    EXPECT_NO_THROW(checked_name("machine", machine_name_from_cpu(model))) << model;
}

TEST(MachineName, FromGpuProductsOneRuleForProgramsAndDriver) {
  // Programs (through their backend) and pitot run name a GPU machine with this one function, so a
  // card never gets two folders (an RTX 4090 was "geforce-rtx-4090" in one, "rtx-4090" in the other).
  EXPECT_EQ(pitot::machine_name_from_gpu("NVIDIA H200"), "h200");
  EXPECT_EQ(pitot::machine_name_from_gpu("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3");
  EXPECT_EQ(pitot::machine_name_from_gpu("NVIDIA GeForce RTX 4090"), "geforce-rtx-4090");
  EXPECT_EQ(pitot::machine_name_from_gpu("Tesla V100-SXM2-16GB"), "tesla-v100-sxm2-16gb");
  EXPECT_EQ(pitot::machine_name_from_gpu("AMD Instinct MI325X"), "mi325x");
  EXPECT_EQ(pitot::machine_name_from_gpu("AMD Radeon RX 7900 XTX"), "rx-7900-xtx");
  EXPECT_EQ(pitot::machine_name_from_gpu("NVIDIA"), "");
  // Product strings as the drivers report them (nvidia-smi, cudaGetDeviceProperties, rocm-smi).
  const std::pair<const char*, const char*> products[] = {
      {"NVIDIA GeForce RTX 3090", "geforce-rtx-3090"},
      {"Tesla T4", "tesla-t4"},
      {"NVIDIA RTX A6000", "rtx-a6000"},
      {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada-generation"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
      {"NVIDIA A100 80GB PCIe", "a100-80gb-pcie"},
      {"NVIDIA H100 PCIe", "h100-pcie"},
      {"NVIDIA H200 NVL", "h200-nvl"},
      {"NVIDIA B200", "b200"},
      {"AMD Instinct MI300X", "mi300x"},
      {"AMD Instinct MI325X VF", "mi325x-vf"},
  };
  for (const auto& [product, name] : products) EXPECT_EQ(pitot::machine_name_from_gpu(product), name) << product;
}

TEST(CheckedName, AcceptsSafeNamesOnly) {
  EXPECT_EQ(checked_name("machine", "sample-box_1.2"), "sample-box_1.2");
  for (const char* bad : {"", ".", "..", "../x", "a/b", "a\\b", ".hidden", "-x", "a b", "a\nb", "é"})
    EXPECT_THROW(checked_name("machine", bad), std::invalid_argument) << bad;
  EXPECT_THROW(checked_name("env", std::string(128, 'a')), std::invalid_argument);
  try {
    checked_name("machine", "a/b");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("machine"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'/'"), std::string::npos);
  }
}

TEST(BuildEnv, NameAndRequirements) {
  auto req = build_requirements();
  ASSERT_TRUE(req.count("compiler"));
  ASSERT_TRUE(req.count("build_type"));
  std::string env = build_env_name();
  EXPECT_TRUE(env.starts_with("cpp-" + req["compiler"] + "-")) << env;
  EXPECT_NO_THROW(checked_name("environment", env));
}

TEST(BuildEnv, TimingModesOtherThanColdGetTheirOwnEnv) {
  // Hot or graph results must not merge into the cold rows of the same benchmark.
  EXPECT_EQ(build_env_name() + pitot::timing_env_suffix(pitot::Timing::Cold), build_env_name());
  EXPECT_EQ(build_env_name() + pitot::timing_env_suffix(pitot::Timing::Hot), build_env_name() + "-hot");
  EXPECT_EQ(build_env_name() + pitot::timing_env_suffix(pitot::Timing::Graph), build_env_name() + "-graph");
}

TEST(EnvName, KernelClockRowsGetTheirOwnEnv) {
  auto point = [](const char* name, const char* clock) {
    PointResult p;
    p.name = name;
    if (*clock) p.backend_info["clock"] = clock;
    return p;
  };
  // Events keep the plain name (the history before the kernel clock); a point that failed before
  // timing goes with the clock most points used.
  auto groups = split_by_clock("env", {point("a", "kernel"), point("b", "events"), point("c", "kernel"), point("d", "")});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].first, "env");
  ASSERT_EQ(groups[0].second.size(), 1u);
  EXPECT_EQ(groups[0].second[0].name, "b");
  EXPECT_EQ(groups[1].first, std::string("env") + kKernelClockEnvSuffix);
  EXPECT_EQ(groups[1].second.size(), 3u);
  // CPU points name no clock: one group, the plain env.
  groups = split_by_clock("env", {point("x", ""), point("y", "")});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].first, "env");
  // A user's --env is kept as given.
  groups = split_by_clock("mine", {point("a", "kernel"), point("b", "events")}, false);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].first, "mine");
  EXPECT_EQ(groups[0].second.size(), 2u);
}

// A self-timed Python method moved to the device clock by --self-timed device (its backend_info
// says so) leaves its returned seconds' env: events rows to -devclock, kernel rows to -kclock.
// The same method timed by its returned seconds, and a class opted in with pitot_device (no
// "self_timed"), keep the plain env.
TEST(EnvName, SelfTimedRowsOnTheDeviceClockGetTheirOwnEnv) {
  auto point = [](const char* name, const char* clock, const char* convention, bool self_timed) {
    PointResult p;
    p.name = name;
    if (*clock) p.backend_info["clock"] = clock;
    p.backend_info["convention"] = convention;
    if (self_timed) p.backend_info["self_timed"] = "cuda-events";
    return p;
  };
  auto groups = split_by_clock("env", {point("switched", "events", "device", true),
                                       point("returned", "", "returned-seconds", true),
                                       point("opted_in", "events", "device", false),
                                       point("switched_kernel", "kernel", "device", true)});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].first, "env");
  ASSERT_EQ(groups[0].second.size(), 2u);
  EXPECT_EQ(groups[0].second[0].name, "returned");
  EXPECT_EQ(groups[0].second[1].name, "opted_in");
  EXPECT_EQ(groups[1].first, std::string("env") + kKernelClockEnvSuffix);
  EXPECT_EQ(groups[2].first, std::string("env") + kSelfTimedDeviceEnvSuffix);
  ASSERT_EQ(groups[2].second.size(), 1u);
  EXPECT_EQ(groups[2].second[0].name, "switched");
  // A user's --env is kept as given.
  EXPECT_EQ(split_by_clock("mine", {point("switched", "events", "device", true)}, false)[0].first, "mine");
}

TEST(GitCommit, HashAndAuthorDateOfAThrowawayRepo) {
  fs::path repo = fs::temp_directory_path() / ("pitot-git-test-" + std::to_string(::getpid()));
  fs::remove_all(repo);
  fs::create_directories(repo);
  std::ofstream(repo / "f.txt") << "x\n";
  std::string git = "cd '" + repo.string() +
                    "' && export GIT_CONFIG_NOSYSTEM=1 HOME='" + repo.string() +
                    "' GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t"
                    " GIT_COMMITTER_EMAIL=t@example.invalid GIT_AUTHOR_DATE=2024-01-01T00:00:00+0000"
                    " GIT_COMMITTER_DATE=2024-01-01T00:00:00+0000 && git init -q && git add f.txt"
                    " && git -c commit.gpgsign=false commit -q -m one";
  if (std::system(git.c_str()) != 0) GTEST_SKIP() << "git is not available";
  auto info = git_commit(repo);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->hash.size(), 40u);
  EXPECT_EQ(info->date_ms, 1704067200000);
  EXPECT_FALSE(git_commit(repo, "no-such-rev").has_value());
  fs::path plain = fs::temp_directory_path() / ("pitot-nogit-test-" + std::to_string(::getpid()));
  fs::create_directories(plain);
  EXPECT_FALSE(git_commit(plain).has_value());  // the temp folder is not in a repository
  EXPECT_FALSE(git_commit(repo / "does-not-exist").has_value());
  fs::remove_all(repo);
  fs::remove_all(plain);
}

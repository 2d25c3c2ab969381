// The ranks from a launcher's environment: torchrun's, Open MPI's and Slurm's variables, which one
// wins, and the errors that name the missing or bad variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <stdexcept>

#include "ranks/ranks.hpp"

using namespace pitot::ranks;

namespace {

using Variables = std::map<std::string, std::string>;

Lookup lookup(const Variables& variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

std::string error_of(const Variables& variables) {
  try {
    ranks_from(lookup(variables));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

const Variables master{{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}};

// a with b's variables set on top.
Variables with(Variables a, const Variables& b) {
  for (const auto& [name, value] : b) a[name] = value;
  return a;
}

TEST(RanksEnvironment, EachLaunchersVariables) {
  const struct {
    const char* launcher;
    Variables variables;
  } cases[] = {
      {"torchrun", {{"RANK", "5"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}}},
      {"mpirun", {{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "8"}}},
      {"srun", {{"SLURM_PROCID", "5"}, {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS", "8"}}},
  };
  for (const auto& c : cases) {
    const RankInfo info = ranks_from(lookup(with(c.variables, master)));
    EXPECT_EQ(info.launcher, c.launcher);
    EXPECT_EQ(info.rank, 5) << c.launcher;
    EXPECT_EQ(info.local_rank, 1) << c.launcher;
    EXPECT_EQ(info.world_size, 8) << c.launcher;
    EXPECT_EQ(info.master_addr, "10.0.0.1") << c.launcher;
    EXPECT_EQ(info.master_port, 29500) << c.launcher;
  }
}

// torchrun under srun: torchrun's per-process variables, not the allocation's.
TEST(RanksEnvironment, TorchrunWinsOverTheAllocationAroundIt) {
  const RankInfo info = ranks_from(lookup(with(master, {{"RANK", "3"}, {"LOCAL_RANK", "3"}, {"WORLD_SIZE", "4"},
                                                        {"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"}, {"SLURM_NTASKS", "1"}})));
  EXPECT_EQ(info.launcher, "torchrun");
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.world_size, 4);
}

TEST(RanksEnvironment, NoLauncherIsOneRank) {
  const RankInfo info = ranks_from(lookup({}));
  EXPECT_EQ(info.launcher, "");
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.world_size, 1);
  // One rank meets nobody: it needs no MASTER_ADDR.
  EXPECT_EQ(ranks_from(lookup({{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"WORLD_SIZE", "1"}})).world_size, 1);
}

TEST(RanksEnvironment, ErrorsNameTheMissingVariable) {
  EXPECT_NE(error_of(with(master, {{"RANK", "0"}, {"LOCAL_RANK", "0"}})).find("WORLD_SIZE is not set"), std::string::npos);
  EXPECT_NE(error_of(with(master, {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}})).find("OMPI_COMM_WORLD_LOCAL_RANK is not set"),
            std::string::npos);
  EXPECT_NE(error_of(with(master, {{"SLURM_LOCALID", "0"}, {"SLURM_NTASKS", "2"}})).find("SLURM_PROCID is not set"), std::string::npos);
  const Variables two{{"RANK", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"}};
  EXPECT_NE(error_of(two).find("MASTER_ADDR is not set"), std::string::npos) << error_of(two);
  EXPECT_NE(error_of(with(two, {{"MASTER_ADDR", "h"}})).find("MASTER_PORT is not set"), std::string::npos);
}

TEST(RanksEnvironment, ErrorsNameTheBadValue) {
  const Variables two = with(master, {{"LOCAL_RANK", "0"}, {"WORLD_SIZE", "2"}});
  EXPECT_NE(error_of(with(two, {{"RANK", "2"}})).find("RANK=2 is not a whole number from 0 to 1"), std::string::npos);
  EXPECT_NE(error_of(with(two, {{"RANK", "one"}})).find("RANK=one"), std::string::npos);
  EXPECT_NE(error_of(with(two, {{"RANK", "1x"}})).find("RANK=1x"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"WORLD_SIZE", "0"}}).find("WORLD_SIZE=0"), std::string::npos);
  EXPECT_NE(error_of(with(with(two, {{"RANK", "1"}}), {{"MASTER_PORT", "70000"}})).find("MASTER_PORT=70000"), std::string::npos);
}

// The process's own environment, as a launcher leaves it.
TEST(RanksEnvironment, ReadsTheProcessEnvironment) {
  for (const char* name : {"RANK", "LOCAL_RANK", "WORLD_SIZE"}) ::unsetenv(name);  // torchrun's would win (ctest runs each test alone)
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  ::setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  ::setenv("MASTER_ADDR", "node7", 1);
  ::setenv("MASTER_PORT", "1234", 1);
  const RankInfo info = ranks_from_environment();
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) ::unsetenv(name);
  EXPECT_EQ(info.launcher, "mpirun");
  EXPECT_EQ(info.rank, 1);
  EXPECT_EQ(info.world_size, 2);
  EXPECT_EQ(info.master_addr, "node7");
  EXPECT_EQ(info.master_port, 1234);
}

}  // namespace

// Env names that keep history (issue 32): a program's asv requirements and env name name only
// the toolkit of its own backend, so installing an unrelated toolkit (the HIP compiler beside
// CUDA) does not start a new graph line. The build's toolkits are faked by fake_toolkits_program.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "asv/env.hpp"
#include "host/machine.hpp"
#include "process/process.hpp"

using namespace pitot;
using Req = std::map<std::string, std::string>;

namespace {

// A program's requirements as `--list --json` reports them to pitot run.
Req listed_requirements(const std::string& program) {
  const Captured c = run_captured({program, "--list", "--json"}, 60);
  EXPECT_TRUE(c.end.ok()) << program << ": " << c.err;
  const auto doc = nlohmann::json::parse(c.out);
  return doc.at("requirements").get<Req>();
}

}  // namespace

TEST(EnvToolkits, OnlyTheProgramsOwnBackendsToolkit) {
  const Req both = {{"cuda", "13.0"}, {"hip", "5.2"}};
  EXPECT_EQ(toolkits_used("", both), Req{});
  EXPECT_EQ(toolkits_used("cuda", both), (Req{{"cuda", "13.0"}}));
  EXPECT_EQ(toolkits_used("hip", both), (Req{{"hip", "5.2"}}));
  // Before the HIP compiler was installed: the same for every program.
  const Req cuda_only = {{"cuda", "13.0"}};
  for (const char* backend : {"", "cuda"})
    EXPECT_EQ(toolkits_used(backend, cuda_only), toolkits_used(backend, both)) << backend;
  EXPECT_EQ(toolkits_used("hip", cuda_only), Req{});
}

TEST(EnvToolkits, ACpuProgramsEnvIsTheSameWhateverToolkitsTheBuildFound) {
  const Req real = listed_requirements(PLAIN_CPU_PROGRAM);
  const Req faked = listed_requirements(FAKE_CPU_PROGRAM);
  EXPECT_EQ(faked, real);
  EXPECT_FALSE(faked.count("cuda") || faked.count("hip"));
  EXPECT_EQ(env_name(faked), env_name(real));
}

TEST(EnvToolkits, ACudaProgramsEnvDoesNotNameHip) {
  const Req cuda = listed_requirements(FAKE_CUDA_PROGRAM);
  EXPECT_EQ(cuda.at("cuda"), "13.0");
  EXPECT_FALSE(cuda.count("hip"));
  Req expected = listed_requirements(PLAIN_CPU_PROGRAM);
  expected["cuda"] = "13.0";
  EXPECT_EQ(cuda, expected);
  EXPECT_EQ(env_name(cuda), env_name(listed_requirements(PLAIN_CPU_PROGRAM)) + "-cuda13.0");
}

// pitot compare of two commits whose runs wrote several environments (kernel-clock and events
// rows, C++ and Python programs): which env of base is compared with which env of head.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/compare/sources.hpp"

namespace pc = pitot::driver::compare;

namespace {

std::vector<pitot::AsvResultsFile> files(const std::string& hash8, const std::vector<std::string>& envs) {
  std::vector<pitot::AsvResultsFile> out;
  for (const auto& e : envs) out.push_back({hash8 + "-" + e + ".json", hash8, e});
  return out;
}

std::vector<std::string> described(const std::vector<pc::EnvPair>& pairs) {
  std::vector<std::string> out;
  for (const auto& p : pairs) out.push_back(p.base.env + " / " + p.head.env);
  return out;
}

}  // namespace

TEST(CompareEnvs, EachEnvWithItsNamesake) {
  const auto pairs = pc::pair_environments(files("aaaaaaaa", {"cpp-Release", "cpp-Release-kclock", "py3.12"}),
                                           files("bbbbbbbb", {"py3.12", "cpp-Release-kclock", "cpp-Release"}));
  EXPECT_EQ(described(pairs), (std::vector<std::string>{"cpp-Release / cpp-Release", "cpp-Release-kclock / cpp-Release-kclock",
                                                        "py3.12 / py3.12"}));
}

TEST(CompareEnvs, OneRenamedEnvPairsWithTheOtherLeftOver) {
  // A compiler update renames the C++ env; the kernel-clock env stays paired by name.
  const auto pairs = pc::pair_environments(files("aaaaaaaa", {"cpp-gcc-12-Release", "cpp-Release-kclock"}),
                                           files("bbbbbbbb", {"cpp-gcc-13-Release", "cpp-Release-kclock"}));
  EXPECT_EQ(described(pairs),
            (std::vector<std::string>{"cpp-Release-kclock / cpp-Release-kclock", "cpp-gcc-12-Release / cpp-gcc-13-Release"}));
}

TEST(CompareEnvs, AnEnvOnOneSideOnlyIsLeftOut) {
  const auto pairs = pc::pair_environments(files("aaaaaaaa", {"cpp"}), files("bbbbbbbb", {"cpp", "py3.12"}));
  EXPECT_EQ(described(pairs), (std::vector<std::string>{"cpp / cpp"}));
}

TEST(CompareEnvs, LeftoversThatCannotBePairedAskForEnv) {
  try {
    pc::pair_environments(files("aaaaaaaa", {"a", "b"}), files("bbbbbbbb", {"c", "d"}));
    FAIL() << "two unmatched envs a side were paired";
  } catch (const pitot::driver::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("base has a, b and head has c, d"), std::string::npos) << m;
    EXPECT_NE(m.find("--env"), std::string::npos) << m;
  }
}

// The suite's plan cache on disk (benchmarks/gpu/common/plan_cache.hpp): a stored plan comes back
// for its key only, under the same library, and the switch turns it off.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "plan_cache.hpp"

namespace fs = std::filesystem;

namespace {

class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("pitot-plan-cache-" + std::to_string(::getpid()));
    fs::remove_all(folder_);
    setenv("PITOT_SUITE_PLAN_CACHE", folder_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PITOT_SUITE_PLAN_CACHE");
    fs::remove_all(folder_);
  }
  fs::path folder_;
};

TEST_F(PlanCacheTest, StoredPlansComeBackForTheirKeyOnly) {
  const suite::PlanCache cache("cudnn", "cudnn 91400 sm90 132");
  EXPECT_FALSE(cache.load("fwd 1 2 3").has_value());
  cache.store("fwd 1 2 3", "{\"plan\": 1}\nsecond line");
  ASSERT_TRUE(cache.load("fwd 1 2 3").has_value());
  EXPECT_EQ(*cache.load("fwd 1 2 3"), "{\"plan\": 1}\nsecond line");
  EXPECT_FALSE(cache.load("fwd 1 2 4").has_value());
  // Another library version or device: its own plans.
  EXPECT_FALSE(suite::PlanCache("cudnn", "cudnn 91500 sm90 132").load("fwd 1 2 3").has_value());
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(folder_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(PlanCacheTest, AFileWhoseKeyDiffersIsAMiss) {
  const suite::PlanCache cache("cudnn", "lib");
  cache.store("k", "text");
  for (const auto& e : fs::recursive_directory_iterator(folder_))
    if (e.is_regular_file()) std::ofstream(e.path(), std::ios::trunc) << "lib other\ntext";
  EXPECT_FALSE(cache.load("k").has_value());
}

TEST_F(PlanCacheTest, OffMeansNothingIsReadOrWritten) {
  setenv("PITOT_SUITE_PLAN_CACHE", "off", 1);
  const suite::PlanCache cache("cudnn", "lib");
  EXPECT_FALSE(cache.enabled());
  cache.store("k", "text");
  EXPECT_FALSE(cache.load("k").has_value());
  EXPECT_FALSE(fs::exists(folder_));
}

TEST_F(PlanCacheTest, AnUnwritableFolderIsOnlyAMiss) {
  setenv("PITOT_SUITE_PLAN_CACHE", "/proc/pitot-no-such-folder", 1);
  const suite::PlanCache cache("cudnn", "lib");
  cache.store("k", "text");  // must not throw
  EXPECT_FALSE(cache.load("k").has_value());
}

}  // namespace

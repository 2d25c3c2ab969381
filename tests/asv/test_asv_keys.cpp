// asv's names for rows and points, built and taken apart by the asv module only (asv/keys.hpp).
#include <gtest/gtest.h>

#include "asv/keys.hpp"

using namespace pitot;

TEST(AsvKeys, RowsAndPointsAreNamedAsAsvNamesThem) {
  BenchmarkInfo b;
  b.program = "bench_examples";
  b.name = "saxpy";
  EXPECT_EQ(asv_time_name(b), "bench_examples.saxpy");
  EXPECT_EQ(asv_track_name(b, "items_per_second"), "bench_examples.saxpy.items_per_second");
  b.asv_key = "suite.Class.time_x";
  EXPECT_EQ(asv_time_name(b), "suite.Class.time_x");
  EXPECT_EQ(asv_row_name("bench_examples", "saxpy"), "bench_examples.saxpy");
  EXPECT_EQ(asv_row_name("", "saxpy"), "saxpy");
  EXPECT_EQ(asv_row_name("p", "saxpy", "own.key"), "own.key");
  EXPECT_EQ(asv_point_name("p.saxpy", {"0.5", "'f32'"}), "p.saxpy(0.5, 'f32')");
  EXPECT_EQ(asv_point_name("p.saxpy", {}), "p.saxpy");
}

TEST(AsvKeys, ATrackRowIsItsRowAndTheLastPart) {
  const auto split = split_track_key("suite.Class.time_x.gbytes_per_second");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->row, "suite.Class.time_x");
  EXPECT_EQ(split->track, "gbytes_per_second");
  EXPECT_FALSE(split_track_key("saxpy"));
  EXPECT_FALSE(split_track_key("saxpy."));
}

TEST(AsvKeys, PitotsPointNameTakenApart) {
  const PointNameParts p = split_point_name("saxpy[a=0.5, n=10,order=random]");
  EXPECT_EQ(p.benchmark, "saxpy");
  EXPECT_EQ(p.axes, (std::vector<std::string>{"a", "n", "order"}));
  EXPECT_EQ(p.values, (std::vector<std::string>{"0.5", "10", "random"}));
  const PointNameParts plain = split_point_name("divide_by_zero");
  EXPECT_EQ(plain.benchmark, "divide_by_zero");
  EXPECT_TRUE(plain.axes.empty());
}

// The program command line: lists, shards, axis overrides and their errors.
#include <gtest/gtest.h>

#include <pitot/benchmark.hpp>

#include "program/options.hpp"

using namespace pitot;
using namespace pitot::program;

TEST(Options, IdLists) {
  EXPECT_EQ(parse_id_list("0,3-5,9"), (std::vector<int>{0, 3, 4, 5, 9}));
  EXPECT_THROW(parse_id_list("1,x"), UsageError);
  EXPECT_THROW(parse_id_list("5-3"), UsageError);
  EXPECT_THROW(parse_id_list(""), UsageError);
}

TEST(Options, Shards) {
  EXPECT_EQ(parse_shard("2/4"), (std::pair<int, int>{1, 4}));
  EXPECT_THROW(parse_shard("0/4"), UsageError);
  EXPECT_THROW(parse_shard("5/4"), UsageError);
  EXPECT_THROW(parse_shard("3"), UsageError);
}

TEST(Options, AxisOverrides) {
  std::deque<BenchmarkDef> defs(2);
  defs[0].name = "a";
  defs[0].axes = {Axis{"n", AxisKind::Int, {std::int64_t{1}}}, Axis{"p", AxisKind::Pow2, {std::int64_t{2}}}};
  defs[1].name = "b";
  defs[1].axes = {Axis{"x", AxisKind::Float, {1.0}}, Axis{"s", AxisKind::String, {std::string("q")}}};
  apply_axis_overrides(defs, {parse_axis_override("n=5,6"), parse_axis_override("a:p=2^4,64"),
                              parse_axis_override("x=0.25"), parse_axis_override("b:s=u,v")});
  EXPECT_EQ(defs[0].axes[0].values, (std::vector<AxisValue>{std::int64_t{5}, std::int64_t{6}}));
  EXPECT_EQ(defs[0].axes[1].values, (std::vector<AxisValue>{std::int64_t{16}, std::int64_t{64}}));
  EXPECT_EQ(defs[1].axes[0].values, (std::vector<AxisValue>{0.25}));
  EXPECT_EQ(defs[1].axes[1].values, (std::vector<AxisValue>{std::string("u"), std::string("v")}));

  EXPECT_THROW(apply_axis_overrides(defs, {parse_axis_override("nope=1")}), UsageError);
  EXPECT_THROW(apply_axis_overrides(defs, {parse_axis_override("zz:n=1")}), UsageError);
  EXPECT_THROW(apply_axis_overrides(defs, {parse_axis_override("n=1.5")}), UsageError);
  EXPECT_THROW(apply_axis_overrides(defs, {parse_axis_override("p=3")}), UsageError);
  EXPECT_THROW(apply_axis_overrides(defs, {parse_axis_override("x=abc")}), UsageError);
  EXPECT_THROW(parse_axis_override("n"), UsageError);
  EXPECT_THROW(parse_axis_override("n=1,,2"), UsageError);
}

namespace {
std::optional<Options> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_options(static_cast<int>(argv.size()), argv.data(), "prog");
}
}  // namespace

TEST(Options, TimingAndClockAreParsedIntoTheirEnums) {
  EXPECT_EQ(parse({})->device.timing, Timing::Cold);
  EXPECT_EQ(parse({})->device.clock, std::nullopt);
  EXPECT_EQ(parse({"--timing", "graph"})->device.timing, Timing::Graph);
  EXPECT_EQ(parse({"--clock", "events"})->device.clock, GpuClock::Events);
  EXPECT_EQ(parse({"--clock", "kernel"})->device.clock, GpuClock::Kernel);
  EXPECT_EQ(parse({"--profile"})->device.clock, GpuClock::Events);  // a profiler holds CUPTI
  EXPECT_THROW(parse({"--timing", "warm"}), UsageError);
  EXPECT_THROW(parse({"--clock", "wall"}), UsageError);
  try {
    parse({"--timing", "hot", "--clock", "kernel"});
    ADD_FAILURE() << "--timing hot --clock kernel was accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--clock kernel times cold launches only; hot and graph mode time with events");
  }
}

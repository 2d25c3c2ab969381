// The asv writer, checked field by field against docs/asv-format.md (docs/asv-database.md).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "asv_test_util.hpp"
#include "asv/write.hpp"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace pitot;
using namespace pitot::testing;

namespace {

const std::string kHash = "90932e64897b2feb2fad0cd0d9171df584037faa";
const std::vector<std::string> kColumns = {
    "result", "params", "version", "started_at", "duration",
    "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number",
    "stats_repeat", "samples", "profile"};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

class AsvWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("pitot-asv-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    run.machine = "test-box";
    run.machine_facts = {{"arch", "x86_64"}, {"cpu", "Test CPU"}, {"num_cpu", "2"}, {"os", "Linux 6.1"}, {"ram", "8GB"}};
    run.commit_hash = kHash;
    run.commit_date_ms = 1704153600000;
    run.env_name = "cpp-gcc-12.2-Release";
    run.requirements = {{"compiler", "gcc-12.2"}, {"build_type", "Release"}};
    sort = make_benchmark("bench_sort", "sort_ints",
                          {Axis{"n", AxisKind::Int, {std::int64_t{1000}, std::int64_t{100000}}},
                           Axis{"algo", AxisKind::String, {std::string("std::sort"), std::string("std::stable_sort")}}});
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path results_path() const { return dir / "test-box" / "90932e64-cpp-gcc-12.2-Release.json"; }
  json results() const { return parse_python_json(read_text(results_path())); }
  json benchmarks_json() const { return json::parse(read_text(dir / "benchmarks.json")); }
  // The row of `name` as column -> value (trailing columns asv drops read as null).
  json row(const std::string& name) const {
    json r = results().at("results").at(name);
    json out = json::object();
    for (std::size_t i = 0; i < kColumns.size(); ++i) out[kColumns[i]] = i < r.size() ? r[i] : json(nullptr);
    return out;
  }

  fs::path dir;
  AsvRun run;
  BenchmarkInfo sort;
};

// The four kinds of point in one benchmark: many samples, few samples, skipped, failed.
std::vector<PointResult> mixed_points(const BenchmarkInfo& b) {
  return {ok_point(b, 0, 2e-5, 10, 1000), ok_point(b, 1, 3e-5, 3, 1000),
          other_point(b, 2, PointStatus::Skipped), other_point(b, 3, PointStatus::Failed)};
}

TEST_F(AsvWriter, BenchmarksJsonFieldByField) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  json b = benchmarks_json();  // strict JSON: json::parse rejects NaN/Infinity
  EXPECT_EQ(b.at("version"), 2);
  json t = b.at("bench_sort.sort_ints");
  EXPECT_EQ(t.at("name"), "bench_sort.sort_ints");
  EXPECT_EQ(t.at("type"), "time");
  EXPECT_EQ(t.at("unit"), "seconds");
  EXPECT_EQ(t.at("params"), json::parse(R"([["1000","100000"],["'std::sort'","'std::stable_sort'"]])"));
  EXPECT_EQ(t.at("param_names"), json::parse(R"(["n","algo"])"));
  EXPECT_EQ(t.at("version"), "1");
  EXPECT_TRUE(t.at("version").is_string());
  EXPECT_EQ(t.at("code"), "// sort_ints");
  EXPECT_EQ(t.at("timeout"), 30.0);
  for (const char* knob : {"number", "repeat", "min_run_count", "rounds", "sample_time", "warmup_time"})
    EXPECT_TRUE(t.contains(knob)) << knob;

  json track = b.at("bench_sort.sort_ints.items_per_second");
  EXPECT_EQ(track.at("name"), "bench_sort.sort_ints.items_per_second");
  EXPECT_EQ(track.at("type"), "track");
  EXPECT_EQ(track.at("unit"), "items/s");
  EXPECT_EQ(track.at("params"), t.at("params"));
  EXPECT_EQ(track.at("param_names"), t.at("param_names"));
  EXPECT_EQ(track.at("version"), "1");
  EXPECT_EQ(b.size(), 3u);  // time, one track, version
}

TEST_F(AsvWriter, MachineJsonIsVersionOneWithStringValues) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  json m = json::parse(read_text(dir / "test-box" / "machine.json"));
  EXPECT_EQ(m.at("version"), 1);
  EXPECT_EQ(m.at("machine"), "test-box");
  EXPECT_EQ(m.at("cpu"), "Test CPU");
  EXPECT_EQ(m.at("num_cpu"), "2");
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (it.key() != "version") {
      EXPECT_TRUE(it.value().is_string()) << it.key();
    }
  }
}

TEST_F(AsvWriter, ResultsFileTopLevel) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  ASSERT_TRUE(fs::exists(results_path()));
  json r = results();
  EXPECT_EQ(r.at("version"), 2);
  EXPECT_EQ(r.at("commit_hash"), kHash);
  EXPECT_EQ(r.at("env_name"), "cpp-gcc-12.2-Release");
  EXPECT_EQ(r.at("date"), 1704153600000);
  EXPECT_TRUE(r.at("date").is_number_integer());
  EXPECT_EQ(r.at("python"), "");
  EXPECT_EQ(r.at("requirements"), json::parse(R"({"compiler":"gcc-12.2","build_type":"Release"})"));
  EXPECT_EQ(r.at("env_vars"), json::object());
  EXPECT_EQ(r.at("result_columns"), json(kColumns));
  json params = r.at("params");
  EXPECT_EQ(params.at("machine"), "test-box");
  EXPECT_EQ(params.at("cpu"), "Test CPU");
  EXPECT_EQ(params.at("compiler"), "gcc-12.2");
  EXPECT_EQ(params.at("build_type"), "Release");
  for (auto it = params.begin(); it != params.end(); ++it) EXPECT_TRUE(it.value().is_string()) << it.key();
  // No stray JSON next to the results: asv would load it as a results file.
  int json_files = 0;
  for (const auto& e : fs::directory_iterator(dir / "test-box")) json_files += e.path().extension() == ".json";
  EXPECT_EQ(json_files, 2);
}

TEST_F(AsvWriter, TimeRowPerPointColumns) {
  auto points = mixed_points(sort);
  write_asv(dir, run, {sort}, points);
  json r = row("bench_sort.sort_ints");
  const double inf = std::numeric_limits<double>::infinity();
  // Cartesian order, last axis fastest: (1000,sort) (1000,stable) (100000,sort) (100000,stable).
  json result = r.at("result");
  ASSERT_EQ(result.size(), 4u);
  EXPECT_DOUBLE_EQ(result[0].get<double>(), points[0].stats->median);
  EXPECT_DOUBLE_EQ(result[1].get<double>(), points[1].stats->median);
  EXPECT_TRUE(std::isnan(result[2].get<double>()));  // skipped -> NaN
  EXPECT_TRUE(result[3].is_null());                  // failed -> null
  EXPECT_EQ(r.at("params"), json::parse(R"([["1000","100000"],["'std::sort'","'std::stable_sort'"]])"));
  EXPECT_EQ(r.at("version"), "1");
  EXPECT_EQ(r.at("started_at"), 1704157200000);
  EXPECT_DOUBLE_EQ(r.at("duration").get<double>(), 1.0);

  // n >= 8: finite CI; n < 8: the open end is ±Infinity.
  EXPECT_DOUBLE_EQ(r.at("stats_ci_99_a")[0].get<double>(), points[0].stats->ci99_lo);
  EXPECT_TRUE(std::isfinite(r.at("stats_ci_99_a")[0].get<double>()));
  EXPECT_EQ(r.at("stats_ci_99_a")[1].get<double>(), -inf);
  EXPECT_EQ(r.at("stats_ci_99_b")[1].get<double>(), inf);
  EXPECT_DOUBLE_EQ(r.at("stats_q_25")[0].get<double>(), points[0].stats->q25);
  EXPECT_DOUBLE_EQ(r.at("stats_q_75")[0].get<double>(), points[0].stats->q75);
  EXPECT_EQ(r.at("stats_number")[0], 100);
  EXPECT_EQ(r.at("stats_repeat")[0], 10);
  EXPECT_EQ(r.at("stats_repeat")[1], 3);
  EXPECT_EQ(r.at("samples")[0], json(points[0].samples));
  EXPECT_TRUE(r.at("profile").is_null());

  // All six stats or none, per point; failed and skipped points have none and no samples.
  const char* stats[] = {"stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number",
                         "stats_repeat"};
  for (std::size_t i = 0; i < 4; ++i) {
    int present = 0;
    for (const char* s : stats) present += !r.at(s)[i].is_null();
    EXPECT_EQ(present, i < 2 ? 6 : 0) << "point " << i;
    EXPECT_EQ(r.at("samples")[i].is_null(), i >= 2) << "point " << i;
  }
  // The row as stored drops trailing nulls, as asv does: no "profile" column.
  EXPECT_EQ(results().at("results").at("bench_sort.sort_ints").size(), 12u);
}

// Issue 21: asv compare's Mann-Whitney is pure Python and quadratic in the sample count, so a
// point keeps at most kAsvMaxSamples samples in the file: its percentiles, not its first samples.
TEST_F(AsvWriter, ManySamplesKeepTheirPercentilesOnly) {
  // 5001 samples of 1, 2, ..., 5001 microseconds, shuffled: percentile i is exactly 50 * i + 1.
  const int n = 5001;
  std::vector<double> samples;
  for (int k = 0; k < n; ++k) samples.push_back(((k * 7) % n + 1) * 1e-6);  // 7 and 5001 are coprime: a permutation
  PointResult many = ok_point(sort, 0, 1e-6, 1);
  many.samples = samples;
  many.stats = compute_stats(many.samples);
  // Few samples stay as they are, in measurement order.
  PointResult few = ok_point(sort, 1, 2e-5, static_cast<int>(kAsvMaxSamples));
  std::reverse(few.samples.begin(), few.samples.end());
  write_asv(dir, run, {sort}, {many, few});

  json r = row("bench_sort.sort_ints");
  const std::vector<double> kept = r.at("samples")[0].get<std::vector<double>>();
  ASSERT_LE(kept.size(), kAsvMaxSamples);
  ASSERT_EQ(kept.size(), 101u);
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_NEAR(kept[i], (50.0 * i + 1) * 1e-6, 1e-15) << "percentile " << i;
  EXPECT_EQ(kept.front(), many.stats->min);
  EXPECT_EQ(kept.back(), many.stats->max);
  EXPECT_EQ(kept[50], many.stats->median);
  EXPECT_EQ(kept[50], r.at("result")[0].get<double>());
  EXPECT_EQ(kept[25], r.at("stats_q_25")[0].get<double>());
  EXPECT_EQ(kept[75], r.at("stats_q_75")[0].get<double>());
  // The stats are of every sample: repeat counts what was measured.
  EXPECT_EQ(r.at("stats_repeat")[0], n);
  EXPECT_DOUBLE_EQ(r.at("stats_ci_99_a")[0].get<double>(), many.stats->ci99_lo);

  EXPECT_EQ(r.at("samples")[1], json(few.samples));
  EXPECT_EQ(r.at("stats_repeat")[1], static_cast<int>(kAsvMaxSamples));
  // One sample over the bound is already cut to the percentiles.
  few.samples.push_back(few.samples.front());
  EXPECT_EQ(asv_samples_column(few.samples).size(), kAsvMaxSamples);
}

TEST_F(AsvWriter, TrackRowOneValuePerPoint) {
  auto points = mixed_points(sort);
  write_asv(dir, run, {sort}, points);
  json stored = results().at("results").at("bench_sort.sort_ints.items_per_second");
  ASSERT_EQ(stored.size(), 5u);  // result, params, version, started_at, duration
  json result = stored[0];
  ASSERT_EQ(result.size(), 4u);
  EXPECT_DOUBLE_EQ(result[0].get<double>(), 1000 / points[0].stats->median);
  EXPECT_DOUBLE_EQ(result[1].get<double>(), 1000 / points[1].stats->median);
  EXPECT_TRUE(std::isnan(result[2].get<double>()));
  EXPECT_TRUE(result[3].is_null());
  EXPECT_EQ(stored[1], benchmarks_json().at("bench_sort.sort_ints.items_per_second").at("params"));
  EXPECT_EQ(stored[2], "1");
}

TEST_F(AsvWriter, PythonTokensInTheRawText) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  std::string text = read_text(results_path());
  EXPECT_NE(text.find("NaN"), std::string::npos);
  EXPECT_NE(text.find("-Infinity"), std::string::npos);
  EXPECT_NE(text.find(", Infinity"), std::string::npos);
  EXPECT_NE(text.find("null"), std::string::npos);
  // Strict JSON cannot read it, which is why benchmarks.json never holds these tokens.
  EXPECT_THROW(
      {
        json strict = json::parse(text);
        (void)strict;
      },
      json::parse_error);
  std::string bench = read_text(dir / "benchmarks.json");
  EXPECT_EQ(bench.find("NaN"), std::string::npos);
  EXPECT_EQ(bench.find("Infinity"), std::string::npos);
}

TEST(PythonJson, TokensRoundTripAndStringsStayStrings) {
  json j = parse_python_json(R"({"a": [NaN, Infinity, -Infinity, 1.5, null], "s": "NaN Infinity \" NaN"})");
  EXPECT_TRUE(std::isnan(j["a"][0].get<double>()));
  EXPECT_EQ(j["a"][1].get<double>(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(j["a"][2].get<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(j["s"], "NaN Infinity \" NaN");
  EXPECT_EQ(dump_python_json(j), R"({"a": [NaN, Infinity, -Infinity, 1.5, null], "s": "NaN Infinity \" NaN"})");
  EXPECT_THROW(parse_python_json("{\"a\": Nan}"), json::parse_error);
}

TEST_F(AsvWriter, ParamReprsOfEveryAxisKind) {
  auto kinds = make_benchmark(
      "bench_k", "kinds",
      {Axis{"x", AxisKind::Float, {0.5, 1.0, 1e-7}}, Axis{"size", AxisKind::Pow2, {std::int64_t{1024}}},
       Axis{"s", AxisKind::String, {std::string("it's")}}, Axis{"d", AxisKind::Int, {std::int64_t{3}, std::int64_t{3}}}});
  write_asv(dir, run, {kinds}, {ok_point(kinds, 0, 1e-3, 8)});
  json params = benchmarks_json().at("bench_k.kinds").at("params");
  std::vector<std::string> floats;
  for (const auto& v : kinds.axes[0].values) floats.push_back(python_repr(v));
  EXPECT_EQ(params[0], json(floats));
  EXPECT_EQ(params[0][0], "0.5");
  EXPECT_EQ(params[0][1], "1.0");
  EXPECT_EQ(params[1], json::parse(R"(["1024"])"));
  EXPECT_EQ(params[2][0], python_repr(AxisValue{std::string("it's")}));
  EXPECT_EQ(params[3], json::parse(R"j(["3 (0)", "3 (1)"])j"));  // asv numbers duplicate reprs
  EXPECT_EQ(row("bench_k.kinds").at("params"), params);
  EXPECT_EQ(row("bench_k.kinds").at("result").size(), 6u);
}

TEST_F(AsvWriter, NoAxesGivesEmptyParamsAndOneValueList) {
  auto plain = make_benchmark("bench_p", "plain", {});
  write_asv(dir, run, {plain}, {ok_point(plain, 0, 1e-3, 8)});
  EXPECT_EQ(benchmarks_json().at("bench_p.plain").at("params"), json::array());
  EXPECT_EQ(benchmarks_json().at("bench_p.plain").at("param_names"), json::array());
  json r = row("bench_p.plain");
  EXPECT_EQ(r.at("params"), json::array());
  ASSERT_TRUE(r.at("result").is_array());
  EXPECT_EQ(r.at("result").size(), 1u);
}

TEST_F(AsvWriter, AllFailedWritesNullColumns) {
  write_asv(dir, run, {sort},
            {other_point(sort, 0, PointStatus::Failed), other_point(sort, 1, PointStatus::Failed),
             other_point(sort, 2, PointStatus::Failed), other_point(sort, 3, PointStatus::Failed)});
  json r = row("bench_sort.sort_ints");
  EXPECT_TRUE(r.at("result").is_null());
  EXPECT_TRUE(r.at("stats_ci_99_a").is_null());
  EXPECT_TRUE(r.at("samples").is_null());
  EXPECT_EQ(r.at("version"), "1");
}

TEST_F(AsvWriter, MergeKeepsOtherBenchmarksAndPrograms) {
  auto other = make_benchmark("bench_other", "copy", {Axis{"n", AxisKind::Int, {std::int64_t{1}}}});
  write_asv(dir, run, {other}, {ok_point(other, 0, 1e-3, 8, 10)});
  // A foreign entry already in benchmarks.json stays too.
  json b = benchmarks_json();
  b["py.time_x"] = {{"name", "py.time_x"}, {"type", "time"}, {"unit", "seconds"}, {"params", json::array()}, {"param_names", json::array()}, {"version", "abc"}};
  write_text(dir / "benchmarks.json", b.dump());
  write_asv(dir, run, {sort}, mixed_points(sort));
  json r = results().at("results");
  EXPECT_TRUE(r.contains("bench_other.copy"));
  EXPECT_TRUE(r.contains("bench_other.copy.items_per_second"));
  EXPECT_TRUE(r.contains("bench_sort.sort_ints"));
  json bj = benchmarks_json();
  EXPECT_TRUE(bj.contains("bench_other.copy"));
  EXPECT_TRUE(bj.contains("py.time_x"));
  EXPECT_TRUE(bj.contains("bench_sort.sort_ints"));
  EXPECT_EQ(row("bench_other.copy").at("stats_repeat")[0], 8);
}

// asv's benchmark_name: the benchmark's own key, as it is, for its rows and benchmarks.json.
TEST_F(AsvWriter, OwnAsvKeyNamesTheRows) {
  auto named = make_benchmark("named", "custom.track_method", {Axis{"n", AxisKind::Int, {std::int64_t{1}}}});
  named.asv_key = "custom.track_method";
  write_asv(dir, run, {named, sort}, {ok_point(named, 0, 1e-3, 8, 10), ok_point(sort, 0, 2e-5, 10)});
  json r = results().at("results");
  EXPECT_TRUE(r.contains("custom.track_method"));
  EXPECT_TRUE(r.contains("custom.track_method.items_per_second"));
  EXPECT_FALSE(r.contains("named.custom.track_method"));
  EXPECT_TRUE(r.contains("bench_sort.sort_ints"));
  EXPECT_EQ(benchmarks_json().at("custom.track_method").at("name"), "custom.track_method");
  EXPECT_EQ(row("custom.track_method").at("stats_repeat")[0], 8);
}

// Two benchmarks that make one asv key (a '.' in a program's name, or two equal benchmark_names)
// are refused before anything is written: asv would keep one of the two histories.
TEST_F(AsvWriter, TwoBenchmarksOneAsvKeyAreRefused) {
  const std::vector<Axis> one{Axis{"n", AxisKind::Int, {std::int64_t{1}}}};
  auto dotted_program = make_benchmark("a.b", "c", one);
  auto dotted_name = make_benchmark("a", "b.c", one);
  try {
    write_asv(dir, run, {dotted_program, dotted_name}, {ok_point(dotted_program, 0, 1e-3, 8), ok_point(dotted_name, 0, 2e-3, 8)});
    ADD_FAILURE() << "a.b's c and a's b.c were both written as a.b.c";
  } catch (const AsvError& e) {
    EXPECT_NE(std::string(e.what()).find("the same asv key a.b.c"), std::string::npos) << e.what();
  }
  auto own_x = make_benchmark("one", "x.time_f", one);
  own_x.asv_key = "x.time_f";
  auto own_y = make_benchmark("two", "x.time_f", one);
  own_y.asv_key = "x.time_f";
  EXPECT_THROW(write_asv(dir, run, {own_x, own_y}, {ok_point(own_x, 0, 1e-3, 8)}), AsvError);
  EXPECT_FALSE(fs::exists(dir));
  // The same benchmark given twice is one benchmark, not a clash.
  write_asv(dir, run, {sort, sort}, mixed_points(sort));
  EXPECT_TRUE(results().at("results").contains("bench_sort.sort_ints"));
}

TEST_F(AsvWriter, PartialRunsMergePointByPoint) {
  auto points = mixed_points(sort);
  write_asv(dir, run, {sort}, {points[0], points[2]});  // e.g. shard 1/2
  write_asv(dir, run, {sort}, {points[1], points[3]});  // shard 2/2
  json r = row("bench_sort.sort_ints");
  EXPECT_DOUBLE_EQ(r.at("result")[0].get<double>(), points[0].stats->median);
  EXPECT_DOUBLE_EQ(r.at("result")[1].get<double>(), points[1].stats->median);
  EXPECT_TRUE(std::isnan(r.at("result")[2].get<double>()));
  EXPECT_TRUE(r.at("result")[3].is_null());
  EXPECT_EQ(r.at("stats_repeat")[0], 10);
  EXPECT_EQ(r.at("samples")[0], json(points[0].samples));
  json track = results().at("results").at("bench_sort.sort_ints.items_per_second")[0];
  EXPECT_DOUBLE_EQ(track[0].get<double>(), 1000 / points[0].stats->median);
  EXPECT_DOUBLE_EQ(track[1].get<double>(), 1000 / points[1].stats->median);

  // A rerun of one point (--filter) replaces only that point.
  write_asv(dir, run, {sort}, {ok_point(sort, 3, 5e-5, 9)});
  r = row("bench_sort.sort_ints");
  EXPECT_DOUBLE_EQ(r.at("result")[0].get<double>(), points[0].stats->median);
  EXPECT_NEAR(r.at("result")[3].get<double>(), 5e-5, 5e-6);
  EXPECT_EQ(r.at("stats_repeat")[3], 9);
  // The rerun point has no items counter: its track value is n/a (NaN), the others stay.
  track = results().at("results").at("bench_sort.sort_ints.items_per_second")[0];
  EXPECT_TRUE(std::isnan(track[3].get<double>()));
  EXPECT_DOUBLE_EQ(track[0].get<double>(), 1000 / points[0].stats->median);
}

// The driver writes points as they arrive: a point skipped before any point made the track is
// NaN in the track row (asv: n/a) as in the time row, never null (asv: failed).
TEST_F(AsvWriter, SkippedBeforeTheTrackExistedIsNaNInTrackRows) {
  write_asv(dir, run, {sort}, {other_point(sort, 2, PointStatus::Skipped)});
  write_asv(dir, run, {sort}, {ok_point(sort, 0, 2e-5, 10, 1000)});
  write_asv(dir, run, {sort}, {other_point(sort, 3, PointStatus::Failed)});
  json track = row("bench_sort.sort_ints.items_per_second").at("result");
  EXPECT_TRUE(std::isnan(row("bench_sort.sort_ints").at("result")[2].get<double>()));
  ASSERT_TRUE(track[2].is_number()) << track.dump();
  EXPECT_TRUE(std::isnan(track[2].get<double>()));
  EXPECT_TRUE(track[1].is_number() && std::isnan(track[1].get<double>()));  // never measured: NaN, not failed
  EXPECT_TRUE(track[3].is_null());                                          // failed
}

TEST_F(AsvWriter, NewVersionDropsOldPoints) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  BenchmarkInfo v2 = sort;
  v2.version = "2";
  write_asv(dir, run, {v2}, {ok_point(v2, 1, 1e-3, 8)});
  json r = row("bench_sort.sort_ints");
  EXPECT_EQ(r.at("version"), "2");
  EXPECT_TRUE(std::isnan(r.at("result")[0].get<double>()));  // not measured in version 2: NaN (issue 13)
  EXPECT_FALSE(r.at("result")[1].is_null());
  EXPECT_EQ(benchmarks_json().at("bench_sort.sort_ints").at("version"), "2");
}

TEST_F(AsvWriter, ChangedAxisValuesKeepMatchingPoints) {
  auto points = mixed_points(sort);
  write_asv(dir, run, {sort}, points);
  BenchmarkInfo narrower = sort;
  narrower.axes[0].values = {std::int64_t{100000}, std::int64_t{5}};
  write_asv(dir, run, {narrower}, {ok_point(narrower, 3, 1e-3, 8)});
  json r = row("bench_sort.sort_ints");
  EXPECT_EQ(r.at("params")[0], json::parse(R"(["100000","5"])"));
  EXPECT_TRUE(std::isnan(r.at("result")[0].get<double>()));  // (100000,sort): was skipped
  EXPECT_TRUE(r.at("result")[1].is_null());                  // (100000,stable): was failed
  EXPECT_TRUE(std::isnan(r.at("result")[2].get<double>()));  // (5,sort): never measured: NaN, not failed
  EXPECT_FALSE(r.at("result")[3].is_null());
}

// Every refusal leaves all three files byte-identical and no temporary files behind.
class AsvRefusal : public AsvWriter {
 protected:
  void expect_refused_unchanged(const std::vector<PointResult>& points) {
    std::map<fs::path, std::string> before;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) before[e.path()] = read_text(e.path());
    before.erase(dir / ".pitot.lock");  // the (empty) lock file may appear; it is not data
    EXPECT_THROW(write_asv(dir, run, {sort}, points), AsvError);
    std::map<fs::path, std::string> after;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) after[e.path()] = read_text(e.path());
    after.erase(dir / ".pitot.lock");
    EXPECT_EQ(before, after);
  }
};

TEST_F(AsvRefusal, CorruptResultsFile) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  write_text(results_path(), "{\"version\": 2, \"results\": {");
  expect_refused_unchanged(mixed_points(sort));
}

TEST_F(AsvRefusal, VersionOneResultsFile) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  std::string text = read_text(results_path());
  auto at = text.rfind("\"version\": 2");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 12, "\"version\": 1");
  write_text(results_path(), text);
  expect_refused_unchanged(mixed_points(sort));
  try {
    write_asv(dir, run, {sort}, mixed_points(sort));
  } catch (const AsvError& e) {
    EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(results_path().string()), std::string::npos) << e.what();
  }
}

TEST_F(AsvRefusal, ResultsFileWithoutVersion) {
  write_text(results_path(), "{\"results\": {}}");
  expect_refused_unchanged(mixed_points(sort));
}

TEST_F(AsvRefusal, CorruptBenchmarksJson) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  write_text(dir / "benchmarks.json", "not json");
  expect_refused_unchanged(mixed_points(sort));
}

TEST_F(AsvRefusal, BenchmarksJsonOfAnotherVersion) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  write_text(dir / "benchmarks.json", "{\"version\": 1}");
  expect_refused_unchanged(mixed_points(sort));
}

TEST_F(AsvRefusal, MachineJsonOfAnotherVersion) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  write_text(dir / "test-box" / "machine.json", "{\"machine\": \"test-box\", \"version\": 2}");
  expect_refused_unchanged(mixed_points(sort));
}

TEST_F(AsvRefusal, ResultsFileOfAnotherCommit) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  std::string text = read_text(results_path());
  text.replace(text.find(kHash), 40, "90932e64" + std::string(32, '0'));
  write_text(results_path(), text);
  expect_refused_unchanged(mixed_points(sort));
}

TEST_F(AsvRefusal, PointThatDoesNotFitItsBenchmark) {
  write_asv(dir, run, {sort}, mixed_points(sort));
  auto p = ok_point(sort, 0, 1e-3, 8);
  p.index = {5, 0};
  expect_refused_unchanged({p});
}

TEST_F(AsvWriter, NamesThatWouldEscapeTheFolderAreRefused) {
  for (std::string bad : {"../up", "a/b", "..", ".hidden", "", "x y"}) {
    AsvRun r = run;
    r.machine = bad;
    EXPECT_THROW(write_asv(dir, r, {sort}, mixed_points(sort)), AsvError) << bad;
    r = run;
    r.env_name = bad;
    EXPECT_THROW(write_asv(dir, r, {sort}, mixed_points(sort)), AsvError) << bad;
  }
  AsvRun r = run;
  r.env_name = std::string(130, 'e');  // asv would name the file env-<md5> instead
  EXPECT_THROW(write_asv(dir, r, {sort}, mixed_points(sort)), AsvError);
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_FALSE(fs::exists(dir.parent_path() / "up"));
}

TEST_F(AsvWriter, CommitHashMustBeFull) {
  for (std::string bad : std::vector<std::string>{"90932e64", "HEAD", std::string(40, 'g'), "90932E64897B2FEB2FAD0CD0D9171DF584037FAA"}) {
    AsvRun r = run;
    r.commit_hash = bad;
    EXPECT_THROW(write_asv(dir, r, {sort}, mixed_points(sort)), AsvError) << bad;
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST_F(AsvWriter, ConcurrentWritersLoseNothing) {
  // Each thread writes its own benchmarks and its own points of a shared one; every write must
  // survive. Without the lock, read-modify-write races drop rows.
  constexpr int kThreads = 6, kRounds = 4;
  Axis wide_axis{"i", AxisKind::Int, {}};
  for (int i = 0; i < kThreads * kRounds; ++i) wide_axis.values.emplace_back(std::int64_t{i});
  auto shared = make_benchmark("bench_shared", "wide", {wide_axis});
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kRounds; ++k) {
        auto own = make_benchmark("bench_t" + std::to_string(t), "r" + std::to_string(k), {});
        try {
          write_asv(dir, run, {own, shared},
                    {ok_point(own, 0, 1e-3, 8), ok_point(shared, static_cast<std::size_t>(t * kRounds + k), 1e-3, 8)});
        } catch (const std::exception&) {
          ++errors;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors, 0);
  json r = results().at("results");
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kRounds; ++k)
      EXPECT_TRUE(r.contains("bench_t" + std::to_string(t) + ".r" + std::to_string(k))) << t << " " << k;
  json wide = row("bench_shared.wide").at("result");
  ASSERT_EQ(wide.size(), static_cast<std::size_t>(kThreads * kRounds));
  for (const auto& v : wide) EXPECT_FALSE(v.is_null());
  EXPECT_EQ(benchmarks_json().size(), static_cast<std::size_t>(kThreads * kRounds + 2));
  for (const auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

}  // namespace

// Issue 13: a point never run (not selected by --filter, not reached before Ctrl-C) is NaN (asv:
// not run), never null (asv: failed), while a failed point stays null.
TEST_F(AsvWriter, PointsNeverRunAreNaNNotFailed) {
  write_asv(dir, run, {sort}, {ok_point(sort, 1, 1e-3, 8), other_point(sort, 2, PointStatus::Failed)});
  json r = row("bench_sort.sort_ints").at("result");
  EXPECT_TRUE(std::isnan(r[0].get<double>()));
  EXPECT_FALSE(r[1].is_null());
  EXPECT_TRUE(r[2].is_null());
  EXPECT_TRUE(std::isnan(r[3].get<double>()));
}

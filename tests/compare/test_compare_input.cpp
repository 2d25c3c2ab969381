// Reading what `pitot compare` is given: asv files as real asv writes them, databases, pitot JSON.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "asv/config.hpp"
#include "driver/compare/sources.hpp"
#include "asv/results.hpp"
#include "temp_dir.hpp"

namespace pc = pitot::driver::compare;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kData = PITOT_COMPARE_DATA;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// A copy, not a reference: GCC 13 (-Wdangling-reference) warns on `const auto& x = point(set,
// "literal")`, a returned reference kept while a temporary std::string was an argument.
pc::PointData point(const pc::ResultSet& set, const std::string& key) {
  for (const auto& p : set.points)
    if (p.key == key) return p;
  throw std::runtime_error("no point " + key);
}

const char* kColumns =
    R"(["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"])";

std::string results_file(const std::string& hash, const std::string& rows) {
  return std::string(R"({"commit_hash": ")") + hash +
         R"(", "env_name": "e", "date": 1, "params": {"machine": "m"}, "python": "", "requirements": {}, "result_columns": )" +
         kColumns + R"(, "results": {)" + rows + R"(}, "version": 2})";
}

}  // namespace

TEST(CompareInput, PythonJsonTokensOutsideStringsOnly) {
  // The dialect is asv/json's; compare reads it as its input, with its errors.
  json j = pc::parse_python_json(
      R"({"a": [NaN, Infinity, -Infinity, 1.5, null], "s": "NaN and Infinity stay text", "q": "a \"NaN\" b", "NaN": -Infinity})",
      "test");
  ASSERT_EQ(j["a"].size(), 5u);
  EXPECT_TRUE(std::isnan(pitot::asv_number(j["a"][0])));
  EXPECT_TRUE(j["a"][0].is_number_float());
  EXPECT_EQ(pitot::asv_number(j["a"][1]), INFINITY);
  EXPECT_EQ(pitot::asv_number(j["a"][2]), -INFINITY);
  EXPECT_EQ(pitot::asv_number(j["a"][3]), 1.5);
  EXPECT_TRUE(j["a"][4].is_null());  // null is a failure, not a skip
  EXPECT_TRUE(std::isnan(pitot::asv_number(j["a"][4])));
  EXPECT_EQ(j["s"], "NaN and Infinity stay text");
  EXPECT_EQ(j["q"], "a \"NaN\" b");
  EXPECT_EQ(pitot::asv_number(j["NaN"]), -INFINITY);                                      // a key named NaN is a string, its value a token
  EXPECT_THROW(pc::parse_python_json("[NaNa]", "word.json"), pitot::driver::InputError);  // a token is a whole word
  EXPECT_THROW(pc::parse_python_json("{\"a\": [1, 2}", "broken.json"), pitot::driver::InputError);
  try {
    pc::parse_python_json("{\"a\": nope}", "broken.json");
  } catch (const pitot::driver::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json"), std::string::npos) << e.what();
  }
}

TEST(CompareInput, SampleDatabaseFindsCommitsByPrefix) {
  pc::DatabaseQuery q{kData / "results", "", "", {}};
  EXPECT_EQ(pc::find_results_file(q, "0d9a5811").filename(), "0d9a5811-cpp-gcc-12.2-Release.json");
  EXPECT_EQ(pc::find_results_file(q, "0d9a").filename(), "0d9a5811-cpp-gcc-12.2-Release.json");
  EXPECT_EQ(pc::find_results_file(q, "90932E64897B2FEB2FAD0CD0D9171DF584037FAA").filename(),
            "90932e64-cpp-gcc-12.2-Release.json");
  try {
    pc::find_results_file(q, "deadbeef");
    FAIL() << "an unknown commit was accepted";
  } catch (const pitot::driver::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown commit 'deadbeef'"), std::string::npos) << m;
    EXPECT_NE(m.find("0d9a5811, 90932e64"), std::string::npos) << m;  // says what is there
  }
  // A longer prefix must match the full hash inside the file, not only the 8 in its name.
  EXPECT_THROW(pc::find_results_file(q, "0d9a5811ffff"), pitot::driver::InputError);
  EXPECT_THROW(pc::find_results_file({kData / "results", "other-box", "", {}}, "0d9a5811"), pitot::driver::InputError);
  EXPECT_THROW(pc::find_results_file({kData / "results", "", "no-such-env", {}}, "0d9a5811"), pitot::driver::InputError);
  EXPECT_THROW(pc::find_results_file({kData / "missing", "", "", {}}, "0d9a5811"), pitot::driver::InputError);
}

TEST(CompareInput, SeveralMachinesOrEnvsMustBeNamed) {
  TempDir tmp;
  const fs::path results = tmp.path() / "results";
  for (const char* m : {"a100", "h200"}) write(results / m / "machine.json", R"({"machine": "x", "version": 1})");
  const std::string body = results_file("1234567890123456789012345678901234567890", "");
  write(results / "h200" / "12345678-gcc.json", body);
  write(results / "h200" / "12345678-clang.json", body);
  try {
    pc::find_results_file({results, "", "", {}}, "12345678");
    FAIL();
  } catch (const pitot::driver::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("several machines (a100, h200)"), std::string::npos) << e.what();
  }
  try {
    pc::find_results_file({results, "h200", "", {}}, "12345678");
    FAIL();
  } catch (const pitot::driver::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("several environments (clang, gcc)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(pc::find_results_file({results, "h200", "gcc", {}}, "1234").filename(), "12345678-gcc.json");
}

TEST(CompareInput, SampleResultsUnrollParamsLastFastest) {
  auto benchmarks = pc::read_benchmarks_json(kData / "results");
  ASSERT_TRUE(benchmarks);
  auto head = pc::read_asv_results(kData / "results/sample-box/90932e64-cpp-gcc-12.2-Release.json", &*benchmarks);
  EXPECT_EQ(head.label, "90932e64 (sample-box, cpp-gcc-12.2-Release)");
  EXPECT_EQ(head.commit, "90932e64897b2feb2fad0cd0d9171df584037faa");
  ASSERT_EQ(head.points.size(), 5u);
  const auto slow = point(head, "sort.SortSuite.time_sort(100000, 'std::sort')");
  EXPECT_EQ(slow.display, "sort.SortSuite.time_sort[n=100000, algorithm='std::sort']");
  EXPECT_EQ(slow.state, pc::PointState::Ok);
  EXPECT_DOUBLE_EQ(slow.value, 0.005343);
  EXPECT_EQ(slow.samples.size(), 10u);
  EXPECT_TRUE(slow.has_interval);
  EXPECT_DOUBLE_EQ(slow.ci_lo, 0.005304);
  const auto failed = point(head, "sort.SortSuite.time_sort(100000, 'std::stable_sort')");
  EXPECT_EQ(failed.state, pc::PointState::Failed);
  const auto track = point(head, "throughput.track_items_per_second");
  EXPECT_EQ(track.unit, "items/s");
  EXPECT_TRUE(track.samples.empty());
  EXPECT_FALSE(track.has_interval);  // trailing columns dropped from the row
  EXPECT_DOUBLE_EQ(track.value, 1.1e6);
}

TEST(CompareInput, RealAsvQuirks) {
  // Bare NaN (skipped) and -Infinity/Infinity (open interval), a whole-column null result,
  // rows without samples, and rows with trailing columns dropped.
  const std::string rows = R"(
    "a.time_x": [[1.0, NaN, null], [["1", "2", "3"]], "1", 1, 1.0, [-Infinity, NaN, null], [Infinity, NaN, null]],
    "a.time_all_failed": [null, [["1", "2"]], "1", 1, 1.0],
    "a.time_short": [[2.0], [], "3"],
    "a.time_samples": [[1.0], [], "1", 1, 1.0, [0.9], [1.1], [1.0], [1.0], [1], [3], [[1.0, 0.9, 1.1]]])";
  json j = pc::parse_python_json(results_file("abcdef0123456789abcdef0123456789abcdef01", rows), "quirks");
  auto set = pc::asv_results_from_json(j, nullptr, "quirks");
  EXPECT_EQ(set.points.size(), 3u + 2u + 1u + 1u);
  const auto x1 = point(set, "a.time_x(1)");
  EXPECT_EQ(x1.state, pc::PointState::Ok);
  EXPECT_TRUE(x1.has_interval);
  EXPECT_EQ(x1.ci_lo, -INFINITY);
  EXPECT_EQ(x1.ci_hi, INFINITY);
  EXPECT_EQ(point(set, "a.time_x(2)").state, pc::PointState::Skipped);
  EXPECT_EQ(point(set, "a.time_x(3)").state, pc::PointState::Failed);
  EXPECT_EQ(point(set, "a.time_all_failed(1)").state, pc::PointState::Failed);
  EXPECT_EQ(point(set, "a.time_all_failed(2)").state, pc::PointState::Failed);
  const auto short_row = point(set, "a.time_short");
  EXPECT_EQ(short_row.version, "3");
  EXPECT_DOUBLE_EQ(short_row.value, 2.0);
  EXPECT_FALSE(short_row.has_interval);
  EXPECT_EQ(point(set, "a.time_samples").samples, (std::vector<double>{1.0, 0.9, 1.1}));
}

TEST(CompareInput, OldOrForeignFilesAreRefused) {
  TempDir tmp;
  write(tmp.path() / "v1.json", R"({"version": 1, "results": {}})");
  try {
    pc::read_asv_results(tmp.path() / "v1.json", nullptr);
    FAIL();
  } catch (const pitot::driver::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("asv update"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pc::read_asv_results(tmp.path() / "missing.json", nullptr), pitot::driver::InputError);
  write(tmp.path() / "other.json", R"({"hello": 1})");
  EXPECT_THROW(pc::load_side((tmp.path() / "other.json").string(), {}), pitot::driver::InputError);
  EXPECT_THROW(pc::load_side((tmp.path() / "nope.json").string(), {}), pitot::driver::InputError);
}

TEST(CompareInput, PitotTracksBesideTheirTimeRowAreDerived) {
  const std::string rows = R"(
    "bench_gemm.gemm": [[1e-3, 2e-3], [["1", "2"]], "1", 1, 1.0, null, null, null, null, null, null, [[1e-3], [2e-3]]],
    "bench_gemm.gemm.tflops": [[500.0, 250.0], [["1", "2"]], "1", 1, 1.0],
    "solo.track_rate": [[3.0], [], "1", 1, 1.0])";
  const pitot::AsvBenchmarks benchmarks(json{{"bench_gemm.gemm", {{"unit", "seconds"}, {"param_names", {"n"}}}},
                                              {"bench_gemm.gemm.tflops", {{"unit", "TFLOP/s"}, {"param_names", {"n"}}}},
                                              {"solo.track_rate", {{"unit", "items/s"}}}});
  json j = pc::parse_python_json(results_file("abcdef0123456789abcdef0123456789abcdef01", rows), "tracks");
  auto set = pc::asv_results_from_json(j, &benchmarks, "tracks");
  EXPECT_FALSE(point(set, "bench_gemm.gemm(1)").derived);
  EXPECT_EQ(point(set, "bench_gemm.gemm(1)").display, "bench_gemm.gemm[n=1]");
  EXPECT_TRUE(point(set, "bench_gemm.gemm.tflops(2)").derived);
  EXPECT_FALSE(point(set, "solo.track_rate").derived);  // no time row beside it: compared itself
}

TEST(CompareInput, PitotJsonOutputAndProtocolLines) {
  const std::string doc = R"({"program": "bench_x", "benchmarks": [{"program": "bench_x", "name": "copy", "version": "2", "axes": []}],
    "points": [
      {"program": "bench_x", "benchmark": "copy", "name": "copy[n=1]", "status": "ok", "unit": "seconds",
       "samples": [1.0, 2.0, 3.0], "stats": {"median": 2.0, "ci99_lo": null, "ci99_hi": null}},
      {"program": "bench_x", "benchmark": "copy", "name": "copy[n=2]", "status": "failed", "reason": "CUDA error", "samples": []},
      {"program": "bench_x", "benchmark": "copy", "name": "copy[n=3]", "status": "skipped", "reason": "too big"}]})";
  auto set = pc::pitot_json_from_text(doc, "run.json");
  ASSERT_EQ(set.points.size(), 3u);
  const auto ok = point(set, "bench_x.copy(1)");  // the key is asv's unrolled name
  EXPECT_EQ(ok.display, "bench_x.copy[n=1]");
  EXPECT_EQ(ok.benchmark, "bench_x.copy");
  EXPECT_EQ(ok.version, "2");
  EXPECT_DOUBLE_EQ(ok.value, 2.0);
  EXPECT_EQ(ok.ci_lo, -INFINITY);
  EXPECT_EQ(point(set, "bench_x.copy(2)").state, pc::PointState::Failed);
  EXPECT_EQ(point(set, "bench_x.copy(2)").reason, "CUDA error");
  EXPECT_EQ(point(set, "bench_x.copy(3)").state, pc::PointState::Skipped);
  // The driver protocol's stream, one object a line.
  const std::string lines =
      "{\"type\":\"point\",\"program\":\"p\",\"benchmark\":\"b\",\"name\":\"b[x=1]\",\"status\":\"ok\",\"samples\":[1,2]}\n"
      "{\"type\":\"done\"}\n";
  auto streamed = pc::pitot_json_from_text(lines, "stream");
  ASSERT_EQ(streamed.points.size(), 1u);
  EXPECT_EQ(streamed.points[0].key, "p.b(1)");
  EXPECT_EQ(streamed.points[0].display, "p.b[x=1]");
  EXPECT_THROW(pc::pitot_json_from_text("{\"points\": [{\"status\": \"ok\"}]}", "no-name"), pitot::driver::InputError);
  EXPECT_THROW(pc::pitot_json_from_text("not json\n", "garbage"), pitot::driver::InputError);
  const std::string twice =
      R"({"program": "p", "points": [{"name": "a", "samples": [1]}, {"name": "a", "samples": [1]}]})";
  EXPECT_THROW(pc::pitot_json_from_text(twice, "dup"), pitot::driver::InputError);
}

TEST(CompareInput, UnitDirection) {
  for (const char* higher : {"GB/s", "TFLOP/s", "items/s", "%", "gbytes_per_second", "tflops"})
    EXPECT_TRUE(pc::unit_higher_is_better(higher)) << higher;
  for (const char* lower : {"seconds", "bytes", "", "cycles"}) EXPECT_FALSE(pc::unit_higher_is_better(lower)) << lower;
}

TEST(CompareInput, ResultsDirFromAsvConfig) {
  // compare reads asv.conf.json through the one reader (asv/config.hpp).
  TempDir tmp;
  write(tmp.path() / "asv.conf.json",
        "{\n // comments are allowed (json5)\n \"version\": 1, \"results_dir\": \"db/results\", \"repo\": \"..\"\n}\n");
  auto config = pitot::find_asv_config((tmp.path() / "asv.conf.json").string());
  ASSERT_TRUE(config);
  EXPECT_EQ(config->results_dir, tmp.path() / "db/results");
  EXPECT_EQ(config->repo, tmp.path() / "..");
  EXPECT_THROW(pitot::find_asv_config((tmp.path() / "missing.json").string()), pitot::AsvError);
}

TEST(CompareInput, GitRevisionsResolveInTheConfigRepository) {
  TempDir tmp;
  const fs::path repo = tmp.path() / "repo";
  fs::create_directories(repo);
  const std::string git = "git -C '" + repo.string() + "' -c user.name=t -c user.email=t@example.invalid ";
  ASSERT_EQ(std::system((git + "init -q && " + git + "commit -q --allow-empty -m one && " + git +
                         "commit -q --allow-empty -m two")
                            .c_str()),
            0);
  auto rev = [&](const std::string& r) {
    std::string out;
    FILE* p = popen(("git -C '" + repo.string() + "' rev-parse " + r).c_str(), "r");
    char buf[64] = {};
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
    return out.substr(0, 40);
  };
  const fs::path results = tmp.path() / "results";
  write(results / "box" / "machine.json", R"({"machine": "box", "version": 1})");
  for (const char* r : {"HEAD", "HEAD~1"})
    write(results / "box" / (rev(r).substr(0, 8) + "-env.json"), results_file(rev(r), ""));
  pc::DatabaseQuery q{results, "", "", repo};
  EXPECT_EQ(pc::find_results_file(q, "HEAD~1").filename(), rev("HEAD~1").substr(0, 8) + "-env.json");
  EXPECT_EQ(pc::find_results_file(q, "HEAD").filename(), rev("HEAD").substr(0, 8) + "-env.json");
  EXPECT_THROW(pc::find_results_file(q, "no-such-branch"), pitot::driver::InputError);
  EXPECT_THROW(pc::find_results_file(q, "--output=/tmp/x"), pitot::driver::InputError);  // never passed to git as an option
}

// Issue 13: a side without results is refused (a CI gate must not pass on an empty head run),
// and JSON nested 50,000 levels deep is refused cleanly instead of overflowing the stack.
namespace {

TEST(CompareInputFaults, SideWithoutResultsIsRefused) {
  TempDir dir;
  for (const std::string text : {"", "  \n", "[]", "[[[]]]", R"({"points": []})", R"({"programs": [{"points": []}]})"}) {
    const fs::path file = dir.path() / "head.json";
    write(file, text);
    try {
      pc::load_side(file.string(), pc::DatabaseQuery{});
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const pitot::driver::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("holds no results"), std::string::npos) << e.what();
    }
  }
}

TEST(CompareInputFaults, DeepNestingIsRefused) {
  TempDir dir;
  const fs::path file = dir.path() / "deep.json";
  write(file, std::string(50000, '[') + std::string(50000, ']'));
  try {
    pc::load_side(file.string(), pc::DatabaseQuery{});
    ADD_FAILURE() << "accepted 50,000 levels";
  } catch (const pitot::driver::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("deeper than"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pc::parse_python_json(std::string(300, '{'), "x"), pitot::driver::InputError);
}

}  // namespace

// pitot ab finds the rows of the points it planned by point_key: it must be the key compare's
// rows carry, for string, int and float values alike.
TEST(CompareInput, PointKeyIsTheRowsKey) {
  pitot::BenchmarkInfo b;
  b.program = "bench_gemm";
  b.name = "gemm";
  b.axes = {{"dtype", pitot::AxisKind::String, {}}, {"M", pitot::AxisKind::Int, {}}, {"alpha", pitot::AxisKind::Float, {}}};
  const std::vector<pitot::AxisValue> values = {std::string("bf16"), std::int64_t{4096}, 0.5};
  pitot::PointResult p;
  p.program = b.program;
  p.benchmark = b.name;
  p.name = "gemm[dtype=bf16, M=4096, alpha=0.5]";
  p.values = values;
  p.samples = {1.0, 1.1, 1.2};
  const pc::ResultSet rows = pc::pitot_result_set({b}, {p}, "rows");
  ASSERT_EQ(rows.points.size(), 1u);
  EXPECT_EQ(pc::point_key(b, values), rows.points[0].key);
  EXPECT_EQ(pc::point_key(b, values), "bench_gemm.gemm('bf16', 4096, 0.5)");
  b.asv_key = "suite.gemm";  // a benchmark that names its own asv key
  EXPECT_EQ(pc::point_key(b, values), pc::pitot_result_set({b}, {p}, "rows").points[0].key);
}

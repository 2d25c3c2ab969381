// `pitot compare` as a whole: the sample database, generated pitot runs, outputs and exit codes.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "driver/compare_report.hpp"
#include "driver/compare_run.hpp"
#include "temp_dir.hpp"

namespace pc = pitot::compare;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kData = PITOT_COMPARE_DATA;

struct Outcome {
  int code;
  std::string out, err;
};

Outcome run(pc::CompareOptions options) {
  std::ostringstream out, err;
  int code = pc::run_compare(options, out, err, false);
  return {code, out.str(), err.str()};
}

pc::CompareOptions sample_options(const std::string& base, const std::string& head) {
  pc::CompareOptions o;
  o.base = base;
  o.head = head;
  o.results_dir = kData / "results";
  return o;
}

// A pitot --json document with `points` points of 30 samples; point `slow` (if any) scaled.
json pitot_run(std::uint64_t seed, int points, int slow, double factor) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01);
  json doc = {{"program", "bench_e2e"}, {"benchmarks", json::array()}, {"points", json::array()}};
  doc["benchmarks"].push_back({{"program", "bench_e2e"}, {"name", "work"}, {"version", "1"}, {"axes", json::array()}});
  for (int i = 0; i < points; ++i) {
    json samples = json::array();
    const double median = 1e-5 * (i + 1) * (i == slow ? factor : 1.0);
    for (int s = 0; s < 30; ++s) samples.push_back(median * (1 + jitter(rng)));
    doc["points"].push_back({{"type", "point"}, {"program", "bench_e2e"}, {"benchmark", "work"}, {"id", i},
                             {"name", "work[i=" + std::to_string(i) + "]"}, {"status", "ok"}, {"unit", "seconds"},
                             {"samples", samples}});
  }
  return doc;
}

void write_json(const fs::path& file, const json& j) { std::ofstream(file) << j.dump(); }

}  // namespace

TEST(CompareReport, SampleDatabaseFindsTheRegressionAndTheFailure) {
  auto o = sample_options("0d9a5811", "90932e64");
  o.format = pc::Format::Json;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["summary"]["unchanged"], 2);
  EXPECT_EQ(j["summary"]["inconclusive"], 1);  // the throughput track: one value, no interval
  EXPECT_EQ(j["summary"]["failed"], 1);
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  ASSERT_FALSE(j["points"].empty());
  const json& worst = j["points"][0];  // sorted by effect, worst first
  EXPECT_EQ(worst["name"], "sort.SortSuite.time_sort[n=100000, algorithm='std::sort']");
  EXPECT_EQ(worst["verdict"], "slower");
  EXPECT_EQ(worst["evidence"], "samples");
  EXPECT_NEAR(worst["ratio"].get<double>(), 1.30, 0.01);
  EXPECT_EQ(j["failed"][0]["name"], "sort.SortSuite.time_sort[n=100000, algorithm='std::stable_sort']");
  for (const auto& p : j["points"])
    if (p["name"] == "throughput.track_items_per_second") {
      EXPECT_EQ(p["better"], "higher");
      EXPECT_EQ(p["verdict"], "inconclusive");
    }
}

TEST(CompareReport, SampleFilesDirectlyAndTheTable) {
  auto o = sample_options((kData / "results/sample-box/0d9a5811-cpp-gcc-12.2-Release.json").string(),
                          (kData / "results/sample-box/90932e64-cpp-gcc-12.2-Release.json").string());
  o.results_dir.clear();
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("slower  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Failed in head (ok in base):\n  sort.SortSuite.time_sort[n=100000, algorithm='std::stable_sort']"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 slower, 0 faster, 2 unchanged, 1 inconclusive; 1 newly failed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "colour when not on a terminal";
  // Reversed, the regression is a speed-up, and the failure became a fix: exit 0.
  std::swap(o.base, o.head);
  Outcome back = run(o);
  EXPECT_EQ(back.code, 0) << back.out;
  EXPECT_NE(back.out.find("1 faster"), std::string::npos) << back.out;
  EXPECT_NE(back.out.find("Fixed in head"), std::string::npos) << back.out;
}

TEST(CompareReport, WithoutSamplesTheStoredIntervalsDecide) {
  // Drop the samples from both sample files: the stored 99% intervals still show the 30%.
  TempDir tmp;
  fs::copy(kData / "results", tmp.path() / "results", fs::copy_options::recursive);
  for (const auto& entry : fs::directory_iterator(tmp.path() / "results/sample-box")) {
    if (entry.path().filename() == "machine.json") continue;
    std::ifstream in(entry.path());
    json j = json::parse(in);
    in.close();
    j["results"]["sort.SortSuite.time_sort"][11] = nullptr;
    write_json(entry.path(), j);
  }
  auto o = sample_options("0d9a5811", "90932e64");
  o.results_dir = tmp.path() / "results";
  o.format = pc::Format::Json;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["points"][0]["verdict"], "slower");
  EXPECT_EQ(j["points"][0]["evidence"], "intervals");
  EXPECT_NE(j["points"][0]["note"].get<std::string>().find("stored 99% intervals"), std::string::npos);
}

TEST(CompareReport, InputErrorsExitTwoAndSayWhich) {
  Outcome unknown = run(sample_options("0d9a5811", "feedface"));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("head: unknown commit 'feedface'"), std::string::npos) << unknown.err;
  Outcome missing = run(sample_options("missing-base.json", "90932e64"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("base: file missing-base.json not found"), std::string::npos) << missing.err;
  auto bad_level = sample_options("0d9a5811", "90932e64");
  bad_level.method.confidence = 1.5;
  EXPECT_EQ(run(bad_level).code, 2);
  EXPECT_EQ(run(sample_options("0d9a5811", "90932e64")).err, "");
}

TEST(CompareReport, MismatchedUnitsExitTwo) {
  TempDir tmp;
  json base = pitot_run(1, 3, -1, 1), head = pitot_run(2, 3, -1, 1);
  head["points"][1]["unit"] = "GB/s";
  write_json(tmp.path() / "base.json", base);
  write_json(tmp.path() / "head.json", head);
  Outcome r = run(sample_options((tmp.path() / "base.json").string(), (tmp.path() / "head.json").string()));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("mismatched units for bench_e2e.work[i=1]: seconds in base"), std::string::npos) << r.err;
}

// Two runs of a 20-point suite, one point 10% slower: exactly that point is slower, exit 1.
TEST(CompareReport, EndToEndOnePlantedRegression) {
  TempDir tmp;
  write_json(tmp.path() / "base.json", pitot_run(21, 20, -1, 1.0));
  write_json(tmp.path() / "head.json", pitot_run(22, 20, 7, 1.10));
  auto o = sample_options((tmp.path() / "base.json").string(), (tmp.path() / "head.json").string());
  o.format = pc::Format::Json;
  o.output = tmp.path() / "report.json";
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("report written to"), std::string::npos);
  EXPECT_NE(r.out.find("verdict"), std::string::npos) << "the table still goes to stdout";
  std::ifstream in(tmp.path() / "report.json");
  json j = json::parse(in);
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["summary"]["unchanged"], 19);
  EXPECT_EQ(j["points"][0]["name"], "bench_e2e.work[i=7]");
  EXPECT_NEAR(j["points"][0]["ratio"].get<double>(), 1.10, 0.01);
  for (const auto& entry : fs::directory_iterator(tmp.path()))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << "left behind: " << entry.path();
  // --only-changed shows that point alone.
  o.output.clear();
  o.only_changed = true;
  json only = json::parse(run(o).out);
  ASSERT_EQ(only["points"].size(), 1u);
  EXPECT_EQ(only["points"][0]["name"], "bench_e2e.work[i=7]");
  // A threshold above the change turns it into "unchanged" (1.10 lies inside ±15%) and exit 0.
  o.method.threshold = 0.15;
  o.only_changed = false;
  Outcome relaxed = run(o);
  EXPECT_EQ(relaxed.code, 0);
  EXPECT_EQ(json::parse(relaxed.out)["summary"]["slower"], 0);
}

TEST(CompareReport, MarkdownForAPullRequest) {
  auto o = sample_options("0d9a5811", "90932e64");
  o.format = pc::Format::Markdown;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("### pitot compare: regression found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 🔴 **slower** | `sort.SortSuite.time_sort[n=100000, algorithm='std::sort']` | 1.300 |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("<details><summary>2 unchanged</summary>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("**Failed in head (ok in base)**"), std::string::npos) << r.out;
}

TEST(CompareReport, NewRemovedAndVersionChanges) {
  pc::ResultSet base, head;
  base.label = "b";
  head.label = "h";
  auto p = [](const std::string& key, const std::string& version) {
    pc::PointData d;
    d.key = d.display = key;
    d.version = version;
    d.samples = {1, 1, 1, 1, 1};
    d.value = 1;
    return d;
  };
  base.points = {p("gone", "1"), p("kept", "1"), p("bumped", "1")};
  head.points = {p("kept", "1"), p("bumped", "2"), p("fresh", "1")};
  auto report = pc::build_report(base, head, {});
  ASSERT_EQ(report.removed.size(), 1u);
  EXPECT_EQ(report.removed[0].name, "gone");
  ASSERT_EQ(report.added.size(), 1u);
  EXPECT_EQ(report.added[0].name, "fresh");
  ASSERT_EQ(report.not_comparable.size(), 1u);
  EXPECT_NE(report.not_comparable[0].detail.find("version changed (1 -> 2)"), std::string::npos);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(pc::report_exit_code(report), 0);
}

TEST(CompareReport, GeometricMeanTurnsThroughputAround) {
  pc::Report r;
  pc::Row slower_time, slower_throughput;
  slower_time.effect = std::log(1.21);         // 21% more seconds
  slower_throughput.effect = -std::log(1 / 1.21 * 1.0);  // throughput fell to 1/1.21
  r.rows = {slower_time, slower_throughput};
  EXPECT_NEAR(r.geometric_mean(), 1.21, 1e-12);
}

TEST(CompareReport, ThresholdParsing) {
  EXPECT_DOUBLE_EQ(pc::parse_threshold("2%"), 0.02);
  EXPECT_DOUBLE_EQ(pc::parse_threshold("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(pc::parse_threshold("0"), 0.0);
  EXPECT_THROW(pc::parse_threshold("5"), pc::InputError);  // 500%? say 5%
  EXPECT_THROW(pc::parse_threshold("-1%"), pc::InputError);
  EXPECT_THROW(pc::parse_threshold("two"), pc::InputError);
  EXPECT_THROW(pc::parse_threshold(""), pc::InputError);
}

TEST(CompareReport, ValuesForPeople) {
  EXPECT_EQ(pc::format_value(0.00411, "seconds"), "4.11 ms");
  EXPECT_EQ(pc::format_value(2.01e-5, "seconds"), "20.1 µs");
  EXPECT_EQ(pc::format_value(9.8e-8, "seconds"), "98 ns");
  EXPECT_EQ(pc::format_value(1.25e6, "items/s"), "1.25M items/s");
  EXPECT_EQ(pc::format_value(790, "TFLOP/s"), "790 TFLOP/s");
}

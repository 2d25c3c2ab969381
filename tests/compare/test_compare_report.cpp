// `pitot compare` as a whole: the sample database, generated pitot runs, outputs and exit codes.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "driver/compare/compare.hpp"
#include "driver/compare/sources.hpp"
#include "temp_dir.hpp"

namespace pc = pitot::driver::compare;
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
    doc["points"].push_back({{"type", "point"}, {"program", "bench_e2e"}, {"benchmark", "work"}, {"id", i}, {"name", "work[i=" + std::to_string(i) + "]"}, {"status", "ok"}, {"unit", "seconds"}, {"samples", samples}});
  }
  return doc;
}

void write_json(const fs::path& file, const json& j) { std::ofstream(file) << j.dump(); }

// One process a side and no history gives no slower or faster verdict by default (issue 23): the
// tests of the report's rendering take one process's samples as independent (--noise-prior 0).
pc::CompareOptions independent(pc::CompareOptions o) {
  o.method.noise_prior = 0;
  return o;
}

}  // namespace

TEST(CompareReport, SampleDatabaseFindsTheRegressionAndTheFailure) {
  auto o = sample_options("0d9a5811", "90932e64");
  o.format = pc::Format::Json;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err;  // the newly failing point
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 2);
  // One process a side and two commits (no history): the 2% prior noise floor (±9.8% at 99.9%)
  // keeps the two 1.000 points from being called unchanged within ±2%, and a prior never makes
  // a point slower: the 1.30 point says how to get the evidence.
  EXPECT_EQ(j["summary"]["slower"], 0);
  EXPECT_EQ(j["summary"]["unchanged"], 0);
  EXPECT_EQ(j["summary"]["inconclusive"], 4);  // those three, and the throughput track (one value)
  EXPECT_EQ(j["summary"]["failed"], 1);
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  ASSERT_FALSE(j["points"].empty());
  const json& worst = j["points"][0];  // sorted by severity, then effect
  EXPECT_EQ(worst["name"], "sort.SortSuite.time_sort[n=100000, algorithm='std::sort']");
  EXPECT_EQ(worst["benchmark"], "sort.SortSuite.time_sort");
  EXPECT_EQ(worst["params"], json({{"n", "100000"}, {"algorithm", "'std::sort'"}}));
  EXPECT_EQ(worst["verdict"], "inconclusive");
  EXPECT_NE(worst["note"].get<std::string>().find("--processes 3"), std::string::npos) << worst["note"];
  EXPECT_EQ(worst["evidence"], "samples");
  EXPECT_EQ(worst["noise"]["source"], "prior");
  EXPECT_NEAR(worst["noise"]["percent"].get<double>(), 9.75, 0.1);
  EXPECT_EQ(j["summary"]["dropped"], 0);
  EXPECT_NEAR(worst["ratio"].get<double>(), 1.30, 0.01);
  EXPECT_EQ(j["failed"][0]["name"], "sort.SortSuite.time_sort[n=100000, algorithm='std::stable_sort']");
  for (const auto& p : j["points"])
    if (p["name"] == "throughput.track_items_per_second") {
      EXPECT_EQ(p["better"], "higher");
      EXPECT_EQ(p["verdict"], "inconclusive");
    }
  // Without the prior, samples of one process are taken as independent: the old verdicts.
  json old = json::parse(run(independent(o)).out);
  EXPECT_EQ(old["summary"]["slower"], 1);
  EXPECT_EQ(old["points"][0]["verdict"], "slower");
  EXPECT_EQ(old["summary"]["unchanged"], 2);
  EXPECT_EQ(old["summary"]["inconclusive"], 1);
}

TEST(CompareReport, SampleFilesDirectlyAndTheTable) {
  auto o = independent(sample_options((kData / "results/sample-box/0d9a5811-cpp-gcc-12.2-Release.json").string(),
                                      (kData / "results/sample-box/90932e64-cpp-gcc-12.2-Release.json").string()));
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
  // By default one process a side decides nothing but "unchanged" (the prior may rule a change
  // out, never in): exit 0, and the 10% point is inconclusive.
  Outcome guarded = run(o);
  EXPECT_EQ(guarded.code, 0) << guarded.out;
  o = independent(o);
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("report written to"), std::string::npos);
  EXPECT_NE(r.out.find("verdict"), std::string::npos) << "the table still goes to stdout";
  std::ifstream in(tmp.path() / "report.json");
  json j = json::parse(in);
  EXPECT_EQ(j["summary"]["slower"], 1);
  // Samples taken as independent: the others are unchanged within ±2%.
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
  auto o = independent(sample_options("0d9a5811", "90932e64"));
  o.format = pc::Format::Markdown;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("### pitot compare: regression found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 🔴 **slower** | `sort.SortSuite.time_sort[n=100000, algorithm='std::sort']` | 1.300 |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("**Failed in head (ok in base)**"), std::string::npos) << r.out;
  // Severity order: newly failing, slower, inconclusive.
  EXPECT_LT(r.out.find("**Failed in head"), r.out.find("🔴 **slower**")) << r.out;
  EXPECT_LT(r.out.find("🔴 **slower**"), r.out.find("🟡 inconclusive")) << r.out;
  EXPECT_NE(r.out.find("<details><summary>2 unchanged</summary>"), std::string::npos) << r.out;
  o.method.noise_prior = 0.02;
  Outcome prior = run(o);
  EXPECT_NE(prior.out.find("±9.8% (prior)"), std::string::npos) << prior.out;
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

TEST(CompareReport, APointOnAnotherNumberOfRanksIsNotCompared) {
  // pitot JSON of a multi-rank point says its world size (backend_info.ranks.world_size): the
  // same point on 2 and on 4 GPUs is refused as bad input, as mismatched units are.
  auto side = [](int ranks) {
    const std::string doc = R"({"program": "p", "points": [{"program": "p", "benchmark": "all_reduce",
      "name": "all_reduce[bytes=1024]", "status": "ok", "unit": "seconds", "samples": [1.0, 1.0, 1.0],
      "backend_info": {"ranks": {"world_size": )" + std::to_string(ranks) + "}}}]}";
    return pc::pitot_json_from_text(doc, "ranks" + std::to_string(ranks));
  };
  EXPECT_EQ(side(2).points.at(0).world_size, 2);
  EXPECT_NO_THROW(pc::build_report(side(2), side(2), {}));
  try {
    pc::build_report(side(2), side(4), {});
    ADD_FAILURE() << "a 2-rank point compared with a 4-rank one";
  } catch (const pitot::driver::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ran in 2 ranks in base"), std::string::npos) << e.what();
  }
}

TEST(CompareReport, GeometricMeanTurnsThroughputAround) {
  pc::Report r;
  pc::Row slower_time, slower_throughput;
  slower_time.effect = std::log(1.21);                   // 21% more seconds
  slower_throughput.effect = -std::log(1 / 1.21 * 1.0);  // throughput fell to 1/1.21
  r.rows = {slower_time, slower_throughput};
  EXPECT_NEAR(r.geometric_mean(), 1.21, 1e-12);
}

TEST(CompareReport, ThresholdParsing) {
  EXPECT_DOUBLE_EQ(pc::parse_threshold("2%"), 0.02);
  EXPECT_DOUBLE_EQ(pc::parse_threshold("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(pc::parse_threshold("0"), 0.0);
  EXPECT_THROW(pc::parse_threshold("5"), pitot::driver::InputError);  // 500%? say 5%
  EXPECT_THROW(pc::parse_threshold("-1%"), pitot::driver::InputError);
  EXPECT_THROW(pc::parse_threshold("two"), pitot::driver::InputError);
  EXPECT_THROW(pc::parse_threshold(""), pitot::driver::InputError);
}

TEST(CompareReport, ValuesForPeople) {
  EXPECT_EQ(pc::format_value(0.00411, "seconds"), "4.11 ms");
  EXPECT_EQ(pc::format_value(2.01e-5, "seconds"), "20.1 µs");
  EXPECT_EQ(pc::format_value(9.8e-8, "seconds"), "98 ns");
  EXPECT_EQ(pc::format_value(1.25e6, "items/s"), "1.25M items/s");
  EXPECT_EQ(pc::format_value(790, "TFLOP/s"), "790 TFLOP/s");
}

// Two significant digits and never an exponent: {:.2g} alone printed 99.7 as 1e+02.
TEST(CompareReport, PercentagesForPeople) {
  EXPECT_EQ(pc::percent_text(3.7), "3.7");
  EXPECT_EQ(pc::percent_text(0.52), "0.52");
  EXPECT_EQ(pc::percent_text(99.7), "100");
  EXPECT_EQ(pc::percent_text(398.4), "398");
  EXPECT_EQ(pc::percent_text(1.5e-5), "0.000015");
  EXPECT_EQ(pc::percent_text(0), "0");
}

namespace {

// A pitot --json document as `pitot run --processes K` writes it: each point with its
// per-process medians; point `slow` scaled by `factor`; process offsets of `process_sd`.
json pitot_processes_run(std::uint64_t seed, int points, int processes, int slow, double factor, double process_sd) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  json doc = {{"program", "bench_e2e"}, {"benchmarks", json::array()}, {"points", json::array()}};
  doc["benchmarks"].push_back({{"program", "bench_e2e"}, {"name", "work"}, {"version", "1"}, {"axes", json::array({{{"name", "order"}, {"kind", "string"}, {"values", json::array({"random", "sorted"})}, {"reprs", json::array({"'random'", "'sorted'"})}}})}});
  for (int i = 0; i < points; ++i) {
    json samples = json::array(), medians = json::array(), which = json::array();
    for (int k = 0; k < processes; ++k) {
      const double median = 1e-5 * (i + 1) * (i == slow ? factor : 1.0) * std::exp(process_sd * normal(rng));
      medians.push_back(median);
      for (int s = 0; s < 20; ++s) {
        samples.push_back(median * std::exp(0.002 * normal(rng)));
        which.push_back(k);
      }
    }
    doc["points"].push_back({{"type", "point"}, {"program", "bench_e2e"}, {"benchmark", "work"}, {"id", i}, {"name", "work[order=" + std::string(i % 2 ? "sorted" : "random") + ", i=" + std::to_string(i) + "]"}, {"index", json::array({i % 2})}, {"values", json::array({i % 2 ? "sorted" : "random"})}, {"status", "ok"}, {"unit", "seconds"}, {"samples", samples}, {"process_medians", medians}, {"sample_process", which}});
    // Two points per axis value would collide: give each its own benchmark.
    doc["points"].back()["benchmark"] = "work" + std::to_string(i);
    json own = doc["benchmarks"][0];
    own["name"] = "work" + std::to_string(i);
    doc["benchmarks"].push_back(own);
  }
  return doc;
}

}  // namespace

// Issue 12's no-change pairs: processes with 2% offsets, compared process by process: no false
// alarm; a 10% change found.
TEST(CompareReport, ProcessMediansAreTheUnitOfReplication) {
  TempDir tmp;
  write_json(tmp.path() / "base.json", pitot_processes_run(31, 10, 8, -1, 1.0, 0.02));
  write_json(tmp.path() / "head.json", pitot_processes_run(32, 10, 8, 3, 1.10, 0.02));
  auto o = sample_options((tmp.path() / "base.json").string(), (tmp.path() / "head.json").string());
  o.format = pc::Format::Json;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 1) << r.err << r.out;
  json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["slower"], 1) << j.dump(1);
  EXPECT_EQ(j["points"][0]["benchmark"], "bench_e2e.work3");
  EXPECT_EQ(j["points"][0]["params"], json({{"order", "'sorted'"}}));
  EXPECT_EQ(j["points"][0]["evidence"], "processes");
  // Ten points of one program: each point's spread is moderated by the others' (stats/pooled.cpp).
  EXPECT_EQ(j["points"][0]["noise"]["source"], "pooled");
  EXPECT_EQ(j["points"][0]["noise"]["pooled_points"], 10);
  EXPECT_GT(j["points"][0]["noise"]["prior_df"].get<double>(), 0);
  EXPECT_EQ(j["points"][0]["base"]["processes"], 8);
  o.format = pc::Format::Table;
  EXPECT_NE(run(o).out.find("(8+8 processes, pooled with 10 points)"), std::string::npos);
  // --no-pooling: the point's own spread alone.
  o.method.pool_noise = false;
  EXPECT_NE(run(o).out.find("(8+8 processes)"), std::string::npos);
  o.format = pc::Format::Json;
  EXPECT_EQ(json::parse(run(o).out)["points"][0]["noise"]["source"], "processes");
}

// Issue 11: a program's JSON against an asv results file of the same points matches them
// (order=random against order='random'); inputs with no point in common exit 2.
TEST(CompareReport, PitotJsonMatchesAsvNamesAndDisjointInputsExitTwo) {
  TempDir tmp;
  json run_doc = pitot_processes_run(41, 2, 1, -1, 1.0, 0.0);
  write_json(tmp.path() / "run.json", run_doc);
  // The same points as an asv results file writes them.
  json results = {{"commit_hash", std::string(40, 'a')}, {"env_name", "e"}, {"date", 1}, {"params", {{"machine", "m"}}}, {"python", ""}, {"requirements", json::object()}, {"result_columns", json::array({"result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"})}, {"results", json::object()}, {"version", 2}};
  for (int i = 0; i < 2; ++i) {
    const json& p = run_doc["points"][i];
    json params = json::array({json::array({"'random'", "'sorted'"})});
    json result = json::array({nullptr, nullptr}), samples = json::array({nullptr, nullptr});
    result[i % 2] = p["process_medians"][0];
    samples[i % 2] = p["samples"];
    results["results"]["bench_e2e.work" + std::to_string(i)] =
        json::array({result, params, "1", 1, 1.0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, samples});
  }
  fs::create_directories(tmp.path() / "m");
  write_json(tmp.path() / "m" / "aaaaaaaa-e.json", results);
  auto o = sample_options((tmp.path() / "run.json").string(), (tmp.path() / "m" / "aaaaaaaa-e.json").string());
  o.format = pc::Format::Json;
  Outcome r = run(o);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["points"].size(), 2u) << j.dump(1);
  EXPECT_EQ(j["summary"]["new"], 2) << "each side's other axis value is failed (null) in asv, listed apart";
  // Nothing in common: exit 2, and say so.
  json other = run_doc;
  for (auto& p : other["points"]) p["program"] = "bench_other";
  for (auto& b : other["benchmarks"]) b["program"] = "bench_other";
  write_json(tmp.path() / "other.json", other);
  o.head = (tmp.path() / "other.json").string();
  Outcome disjoint = run(o);
  EXPECT_EQ(disjoint.code, 2);
  EXPECT_NE(disjoint.err.find("share no point"), std::string::npos) << disjoint.err;
}

// Issue 11: a corrupt results file in the database is reported as corrupt, with its path.
TEST(CompareReport, CorruptResultsFileIsNamed) {
  TempDir tmp;
  fs::copy(kData / "results", tmp.path() / "results", fs::copy_options::recursive);
  const fs::path head = tmp.path() / "results/sample-box/90932e64-cpp-gcc-12.2-Release.json";
  std::ofstream(head, std::ios::trunc) << "{\"commit_hash\": \"90932e64897b2feb2fad0cd0d9171df584037faa\", \"resu";
  auto o = sample_options("0d9a5811", "90932e64897b2feb2fad0cd0d9171df584037faa");
  o.results_dir = tmp.path() / "results";
  Outcome r = run(o);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("head: results file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("90932e64-cpp-gcc-12.2-Release.json is corrupt"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("unknown commit"), std::string::npos) << r.err;
}

// The PR comment stays under GitHub's limit: every slower row kept, the rest counted.
TEST(CompareReport, MarkdownStaysUnderTheCommentLimit) {
  pc::ResultSet base, head;
  base.label = "base";
  head.label = "head";
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0, 0.002);
  for (int i = 0; i < 3000; ++i) {
    pc::PointData p;
    p.benchmark = "bench_big.a_rather_long_benchmark_name_for_the_table";
    p.key = p.benchmark + "(" + std::to_string(i) + ")";
    p.display = p.benchmark + "[n=" + std::to_string(i) + "]";
    pc::PointData q = p;
    const double factor = i % 10 == 0 ? 1.5 : i % 10 == 1 ? 0.5
                                                          : 1.0;  // 300 slower, 300 faster
    for (int s = 0; s < 20; ++s) {
      p.samples.push_back(1e-5 * std::exp(normal(rng)));
      q.samples.push_back(1e-5 * factor * std::exp(normal(rng)));
    }
    base.points.push_back(p);
    head.points.push_back(q);
  }
  head.points[5].state = pc::PointState::Failed;
  head.points[5].reason = "crashed";
  pc::MethodOptions independent_samples;
  independent_samples.noise_prior = 0;
  const auto report = pc::build_report(base, head, independent_samples);
  EXPECT_EQ(report.count(pc::Verdict::Slower), 300);
  const std::string md = pc::render_markdown(report, false);
  EXPECT_LE(md.size(), pc::kMarkdownLimit);
  EXPECT_LT(md.size(), 65536u);
  std::size_t slower_rows = 0;
  for (std::size_t at = md.find("🔴 **slower**"); at != std::string::npos; at = md.find("🔴 **slower**", at + 1)) ++slower_rows;
  EXPECT_EQ(slower_rows, 300u);
  EXPECT_NE(md.find("rows left out to stay under GitHub's comment limit"), std::string::npos);
  EXPECT_NE(md.find("[n=5]"), std::string::npos) << "the newly failing point";
  EXPECT_LT(md.find("**Failed in head"), md.find("🔴 **slower**"));
  // A limit too small for the slower points themselves: as many as fit, and the count of the rest.
  const std::string tight = pc::render_markdown(report, false, 3000);
  EXPECT_LE(tight.size(), 3000u);
  EXPECT_NE(tight.find("slower (more than one comment can hold)"), std::string::npos) << tight;
}

// Issue 23: a slower point timed by the kernel clock says which of its kernels changed, new and
// vanished ones included; the kernel records come from pitot JSON's backend_info.
TEST(CompareReport, SlowerPointsListTheirKernels) {
  auto side = [](double scale, bool with_new) {
    json doc = pitot_run(with_new ? 32 : 31, 2, 0, scale);
    json kernels = json::array({{{"name", "gemm_main"}, {"count_per_launch", 1.0}, {"mean_seconds", 1e-5 * scale}},
                                {{"name", "epilogue"}, {"count_per_launch", 2.0}, {"mean_seconds", 1e-7}}});
    if (with_new) kernels.push_back({{"name", "split_k_reduce"}, {"count_per_launch", 1.0}, {"mean_seconds", 5e-7}});
    else kernels.push_back({{"name", "old_helper"}, {"count_per_launch", 1.0}, {"mean_seconds", 2e-7}});
    for (auto& p : doc["points"]) p["backend_info"] = {{"kernel_clock", {{"kernels", kernels}}}};
    return doc;
  };
  TempDir tmp;
  write_json(tmp.path() / "base.json", side(1.0, false));
  write_json(tmp.path() / "head.json", side(1.3, true));
  auto o = independent(sample_options((tmp.path() / "base.json").string(), (tmp.path() / "head.json").string()));
  Outcome table = run(o);
  ASSERT_EQ(table.code, 1) << table.out << table.err;
  EXPECT_NE(table.out.find("    kernel gemm_main 10 µs -> 13 µs (1.300)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("    kernel new: split_k_reduce 500 ns"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("    kernel vanished: old_helper 200 ns"), std::string::npos) << table.out;
  // The largest change first: gemm_main (+3 µs), then the new kernel (0.5 µs).
  EXPECT_LT(table.out.find("kernel gemm_main"), table.out.find("kernel new: split_k_reduce")) << table.out;
  o.format = pc::Format::Json;
  json j = json::parse(run(o).out);
  const json& slower = j["points"][0];
  ASSERT_EQ(slower["verdict"], "slower");
  ASSERT_EQ(slower["kernels"].size(), 4u);  // epilogue unchanged, still listed in the JSON
  EXPECT_EQ(slower["kernels"][0]["name"], "gemm_main");
  EXPECT_TRUE(slower["kernels"][1]["base_seconds"].is_null());  // new in head
  o.format = pc::Format::Markdown;
  EXPECT_NE(run(o).out.find("kernel gemm_main 10 µs -> 13 µs (1.300)"), std::string::npos);
}

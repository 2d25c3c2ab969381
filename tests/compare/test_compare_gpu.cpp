// pitot compare on GPU results: the card's state beside the verdict (issue 23, item 5), and the
// rows a CUDA run adds that are no points of their own (issue 21 (g)): the kernel clock's
// kernel_busy_seconds tracks, the state tracks, and the points a kernel-clock env leaves NaN in the
// events env and the other way round. The databases are written by pitot's own asv writer, split
// by clock as `pitot run` splits them (asv/env.hpp, split_by_clock).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/result.hpp"
#include "core/stats.hpp"
#include "driver/compare/compare.hpp"
#include "driver/compare/sources.hpp"
#include "asv/write.hpp"
#include "asv/env.hpp"
#include "host/machine.hpp"
#include "temp_dir.hpp"

namespace pc = pitot::driver::compare;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kEnv = "cpp-gcc-12.2-Release-cuda13.0";

// The card's readings of one point, as the GPU backend records them.
struct Card {
  double sm_clock = 1980, temperature = 50, power = 560;
  std::vector<std::string> throttle;  // backend_info.card's clock reasons
  // The key they go under: the GPU backend's `clock_reasons`, or `throttle_reasons`.
  std::string reasons_key = "clock_reasons";
  bool card_as_string = false;  // backend_info values may arrive as JSON strings
};

pitot::BenchmarkInfo rms_benchmark() {
  pitot::BenchmarkInfo b;
  b.program = "bench_norm";
  b.name = "rms";
  b.axes = {pitot::Axis{"n", pitot::AxisKind::Int, {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}}}};
  b.code = "// rms";
  return b;
}

// Point `pos` of bench_norm.rms as a CUDA program reports it: 20 samples around `seconds`, its
// clock (the kernel clock adds kernel_busy_seconds), a throughput, and the card's state.
pitot::PointResult gpu_point(const pitot::BenchmarkInfo& b, std::size_t pos, double seconds, bool kernel_clock,
                             const Card& card) {
  pitot::PointResult p;
  p.program = b.program;
  p.benchmark = b.name;
  p.id = static_cast<int>(pos);
  p.index = {pos};
  p.values = {b.axes[0].values[pos]};
  p.name = "rms[n=" + std::to_string(pos + 1) + "]";
  p.backend = "cuda";
  p.number = 10;
  for (int i = 0; i < 20; ++i) p.samples.push_back(seconds * (1.0 + 0.002 * ((i * 7) % 5)));
  p.stats = pitot::compute_stats(p.samples);
  p.flops = 1e9;
  p.tracks = pitot::throughput_tracks(0, 0, p.flops, p.stats->median);
  p.backend_info["clock"] = kernel_clock ? "kernel" : "events";
  if (kernel_clock) p.tracks.push_back({"kernel_busy_seconds", "seconds", seconds * 0.9});
  p.tracks.push_back({"card_sm_clock_mhz", "MHz", card.sm_clock});
  p.tracks.push_back({"card_temperature_c", "degC", card.temperature});
  p.tracks.push_back({"card_power_watts", "W", card.power});
  auto spread = [](double median) { return json{{"min", median * 0.98}, {"median", median}, {"max", median * 1.01}}; };
  json nvml = {{"source", "nvml"},
               {"readings", 12},
               {"sm_clock_mhz", spread(card.sm_clock)},
               {"mem_clock_mhz", spread(2619)},
               {"temperature_c", spread(card.temperature)},
               {"power_watts", spread(card.power)},
               {card.reasons_key, card.throttle}};
  p.backend_info["card"] = card.card_as_string ? json(nvml.dump()) : nvml;
  p.started_at_ms = 1704157200000 + static_cast<std::int64_t>(pos) * 1000;
  p.duration_seconds = 0.5;
  return p;
}

// One commit's points into the database the way `pitot run`'s sink writes them: split by clock.
void write_commit(const fs::path& results, const std::string& hash, const std::vector<pitot::PointResult>& points) {
  pitot::AsvRun run;
  run.machine = "h200";
  run.machine_facts = {{"arch", "x86_64"}, {"cpu", "Test CPU"}, {"num_cpu", "2"}, {"os", "Linux"}, {"ram", "8GB"}};
  run.commit_hash = hash;
  run.commit_date_ms = hash[0] == 'a' ? 1704153600000 : 1704240000000;
  run.env_name = kEnv;
  run.requirements = {{"compiler", "gcc-12.2"}, {"build_type", "Release"}, {"cuda", "13.0"}};
  for (const auto& [env, group] : pitot::split_by_clock(run.env_name, points)) {
    pitot::AsvRun clocked = run;
    clocked.env_name = env;
    pitot::write_asv(results, clocked, {rms_benchmark()}, group);
  }
}

const std::string kBase = "aaaaaaaa11111111111111111111111111111111";
const std::string kHead = "bbbbbbbb22222222222222222222222222222222";

// A two-commit database of bench_norm.rms: points n=1 and n=2 timed by the kernel clock, n=3
// and n=4 by events, each side at its own card state.
fs::path gpu_database(const fs::path& dir, const Card& base, const Card& head) {
  const auto b = rms_benchmark();
  std::vector<pitot::PointResult> base_points, head_points;
  for (std::size_t pos = 0; pos < 4; ++pos) {
    base_points.push_back(gpu_point(b, pos, 1e-5 * (pos + 1), pos < 2, base));
    head_points.push_back(gpu_point(b, pos, 1e-5 * (pos + 1), pos < 2, head));
  }
  write_commit(dir / "results", kBase, base_points);
  write_commit(dir / "results", kHead, head_points);
  return dir / "results";
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome compare(const std::string& base, const std::string& head, const fs::path& results, pc::Format format) {
  pc::CompareOptions o;
  o.base = base;
  o.head = head;
  o.results_dir = results;
  o.format = format;
  std::ostringstream out, err;
  const int code = pc::run_compare(o, out, err, false);
  return {code, out.str(), err.str()};
}

std::vector<std::string> point_names(const json& report) {
  std::vector<std::string> out;
  for (const auto& p : report["points"]) out.push_back(p["name"]);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<std::string> kRmsPoints = {"bench_norm.rms[n=1]", "bench_norm.rms[n=2]", "bench_norm.rms[n=3]",
                                             "bench_norm.rms[n=4]"};

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

void write_json(const fs::path& file, const json& j) { std::ofstream(file) << j.dump(); }

// A pitot --json document of bench_norm.rms's four points, all events-timed.
json pitot_json(const std::vector<Card>& cards) {
  const auto b = rms_benchmark();
  json doc = {{"program", "bench_norm"}, {"benchmarks", json::array({pitot::to_json(b)})}, {"points", json::array()}};
  for (std::size_t pos = 0; pos < cards.size(); ++pos)
    doc["points"].push_back(pitot::to_json(gpu_point(b, pos, 1e-5 * (pos + 1), false, cards[pos])));
  return doc;
}

}  // namespace

// Issue 21 (g) and issue 23 item 5 on a database as a CUDA run writes it: two envs per commit.
TEST(CompareGpu, TwoClockEnvsStateDiffersAndNoClutter) {
  TempDir tmp;
  Card base, head;
  head.sm_clock = 1755;
  head.power = 545;  // within 10%: only the clock differs
  const fs::path results = gpu_database(tmp.path(), base, head);
  // The split the test relies on: both envs hold rows of bench_norm.rms, NaN for the other's points.
  ASSERT_TRUE(fs::exists(results / "h200" / ("aaaaaaaa-" + kEnv + ".json")));
  ASSERT_TRUE(fs::exists(results / "h200" / ("aaaaaaaa-" + kEnv + "-kclock.json")));

  const Outcome j = compare("aaaaaaaa", "bbbbbbbb", results, pc::Format::Json);
  ASSERT_EQ(j.code, 0) << j.err;
  const json report = json::parse(j.out);
  // Each point once, under its own name: no tracks (tflops, kernel_busy_seconds, card_*) as rows,
  // no "[env]" suffix for the NaN twin in the other env.
  EXPECT_EQ(point_names(report), kRmsPoints) << report["points"].dump(1);
  for (const char* list : {"not_comparable", "new", "removed", "failed", "still_failing"})
    EXPECT_TRUE(report[list].empty()) << list << ": " << report[list].dump(1);
  EXPECT_EQ(report["summary"]["skipped_both"], 0);
  EXPECT_EQ(report["summary"]["derived_tracks"], 4 + 2);  // tflops for all four, busy time for the kclock two
  // The state: every point ran at 1755 MHz in head and 1980 MHz in base.
  const json& state = report["machine_state"];
  EXPECT_EQ(state["judged"], 4);
  EXPECT_EQ(state["differing"], 4);
  ASSERT_EQ(state["differences"].size(), 1u) << state.dump(1);
  EXPECT_EQ(state["differences"][0]["kind"], "sm_clock");
  EXPECT_EQ(state["differences"][0]["points"], 4);
  EXPECT_DOUBLE_EQ(state["differences"][0]["base"].get<double>(), 1980);
  EXPECT_DOUBLE_EQ(state["differences"][0]["head"].get<double>(), 1755);
  EXPECT_EQ(report["points"][0]["machine_state"]["differs"], json::array({"sm_clock"}));
  EXPECT_DOUBLE_EQ(report["points"][0]["machine_state"]["head"]["sm_clock_mhz"].get<double>(), 1755);
  EXPECT_EQ(report["summary"]["state_differs"], 4);

  const Outcome t = compare("aaaaaaaa", "bbbbbbbb", results, pc::Format::Table);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_TRUE(contains(t.out, "WARNING: base and head ran in different machine states at 4 of 4")) << t.out;
  EXPECT_TRUE(contains(t.out, "SM clock: head ran at 1755 MHz median, base at 1980 MHz: 4 points")) << t.out;
  EXPECT_FALSE(contains(t.out, "temperature:")) << t.out;
  EXPECT_FALSE(contains(t.out, "skipped")) << t.out;
  EXPECT_FALSE(contains(t.out, "kernel_busy")) << t.out;
  EXPECT_FALSE(contains(t.out, "card_")) << t.out;
  EXPECT_FALSE(contains(t.out, "[" + kEnv)) << t.out;
  // One warning, not a line per point: one line names the clocks.
  std::size_t lines = 0;
  std::istringstream in(t.out);
  for (std::string line; std::getline(in, line);) lines += contains(line, "1755 MHz");
  EXPECT_EQ(lines, 1u) << t.out;

  const Outcome md = compare("aaaaaaaa", "bbbbbbbb", results, pc::Format::Markdown);
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "> ⚠️ **base and head ran in different machine states at 4 of 4")) << md.out;
  EXPECT_TRUE(contains(md.out, "> - SM clock: head ran at 1755 MHz median")) << md.out;
}

TEST(CompareGpu, NoWarningWhenTheStatesAgree) {
  TempDir tmp;
  Card base, head;
  head.sm_clock = 1965;   // 0.8%, one clock step
  head.temperature = 59;  // 9 °C
  head.power = 600;       // 7%
  const fs::path results = gpu_database(tmp.path(), base, head);
  const Outcome j = compare("aaaaaaaa", "bbbbbbbb", results, pc::Format::Json);
  ASSERT_EQ(j.code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report["machine_state"]["judged"], 4);
  EXPECT_EQ(report["machine_state"]["differing"], 0);
  EXPECT_TRUE(report["machine_state"]["warning"].empty());
  EXPECT_EQ(point_names(report), kRmsPoints);
  const Outcome t = compare("aaaaaaaa", "bbbbbbbb", results, pc::Format::Table);
  EXPECT_FALSE(contains(t.out, "WARNING")) << t.out;
  EXPECT_FALSE(contains(t.out, "machine state")) << t.out;
  const Outcome md = compare("aaaaaaaa", "bbbbbbbb", results, pc::Format::Markdown);
  EXPECT_FALSE(contains(md.out, "⚠️")) << md.out;
}

TEST(CompareGpu, StateWarningFromPitotJson) {
  TempDir tmp;
  // Base: no throttling, 50 °C. Head: the power cap at two points (one side only), one point 15
  // °C hotter; its card readings arrive as a JSON string, as kernel_clock's may.
  std::vector<Card> base(4), head(4);
  for (auto& c : base) {
    c.throttle = {"gpu_idle"};
    c.reasons_key = "throttle_reasons";
  }
  for (auto& c : head) c.card_as_string = true;
  head[0].throttle = {"sw_power_cap"};
  head[1].throttle = {"sw_power_cap", "gpu_idle"};
  head[2].temperature = 65;
  write_json(tmp.path() / "base.json", pitot_json(base));
  write_json(tmp.path() / "head.json", pitot_json(head));
  const std::string b = (tmp.path() / "base.json").string(), h = (tmp.path() / "head.json").string();

  const Outcome j = compare(b, h, {}, pc::Format::Json);
  ASSERT_EQ(j.code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(point_names(report), kRmsPoints);  // the tracks of pitot JSON are never points
  EXPECT_EQ(report["summary"]["derived_tracks"], 0);
  const json& state = report["machine_state"];
  EXPECT_EQ(state["judged"], 4);
  EXPECT_EQ(state["differing"], 3);
  ASSERT_EQ(state["differences"].size(), 2u) << state.dump(1);
  EXPECT_EQ(state["differences"][0]["kind"], "temperature");
  EXPECT_EQ(state["differences"][0]["points"], 1);
  EXPECT_EQ(state["differences"][0]["worst"][0]["name"], "bench_norm.rms[n=3]");
  EXPECT_EQ(state["differences"][1]["kind"], "throttle");
  EXPECT_EQ(state["differences"][1]["points"], 2);
  EXPECT_EQ(state["differences"][1]["head_only"], json({{"sw_power_cap", 2}}));
  EXPECT_TRUE(state["differences"][1]["base_only"].empty());
  for (const auto& p : report["points"])
    if (p["name"] == "bench_norm.rms[n=1]") {
      EXPECT_EQ(p["machine_state"]["head"]["clock_reasons"], json::array({"sw_power_cap"}));
      EXPECT_DOUBLE_EQ(p["machine_state"]["base"]["mem_clock_mhz"].get<double>(), 2619);
    }

  const Outcome t = compare(b, h, {}, pc::Format::Table);
  EXPECT_TRUE(contains(t.out, "different machine states at 3 of 4 compared points")) << t.out;
  EXPECT_TRUE(contains(t.out, "temperature: head reached 65 °C, base 50 °C (highest per point): 1 point; worst: "
                              "bench_norm.rms[n=3] (50 °C -> 65 °C)"))
      << t.out;
  EXPECT_TRUE(contains(t.out, "throttled on one side only (head: sw_power_cap at 2 points): 2 points, such as "
                              "bench_norm.rms[n=1], bench_norm.rms[n=2]"))
      << t.out;
  EXPECT_FALSE(contains(t.out, "SM clock:")) << t.out;
}

TEST(CompareGpu, StateThresholds) {
  auto differs = [](pc::CardState b, pc::CardState h) { return pc::state_differences(b, h); };
  pc::CardState base;
  base.sm_clock_mhz = 1980;
  base.temperature_c = 50;
  base.power_watts = 300;
  using V = std::vector<std::string>;
  auto with = [&](auto change) {
    pc::CardState h = base;
    change(h);
    return h;
  };
  EXPECT_EQ(differs(base, base), V{});
  EXPECT_EQ(differs(base, with([](auto& h) { h.sm_clock_mhz = 1965; })), V{});  // 0.8%
  EXPECT_EQ(differs(base, with([](auto& h) { h.sm_clock_mhz = 1950; })), V{"sm_clock"});
  pc::CardState slow = base;  // 1.2% of a low clock, but under one 15 MHz step
  slow.sm_clock_mhz = 1000;
  EXPECT_EQ(differs(slow, with([](auto& h) { h.sm_clock_mhz = 1012; })), V{});
  EXPECT_EQ(differs(base, with([](auto& h) { h.temperature_c = 60; })), V{});
  EXPECT_EQ(differs(base, with([](auto& h) { h.temperature_c = 61; })), V{"temperature"});
  // Power is recorded, not judged: NVML averages it over longer than a point samples.
  EXPECT_EQ(differs(base, with([](auto& h) { h.power_watts = 600; })), V{});
  // Throttle reasons: only where both sides listed theirs, and idling is no throttling.
  pc::CardState listed = base;
  listed.has_throttle = true;
  EXPECT_EQ(differs(listed, with([](auto& h) { h.has_throttle = true, h.throttle_reasons = {"gpu_idle"}; })), V{});
  EXPECT_EQ(differs(listed, with([](auto& h) { h.has_throttle = true, h.throttle_reasons = {"hw_slowdown"}; })),
            V{"throttle"});
  EXPECT_EQ(differs(base, with([](auto& h) { h.has_throttle = true, h.throttle_reasons = {"hw_slowdown"}; })), V{});
  // A side without readings is not judged.
  EXPECT_EQ(differs(pc::CardState{}, with([](auto& h) { h.sm_clock_mhz = 1000; })), V{});
}

TEST(CompareGpu, NoStateNoWarning) {
  // CPU points (no card readings) on one or both sides: nothing judged, nothing said.
  TempDir tmp;
  json base = pitot_json({Card{}, Card{}}), head = base;
  for (auto& p : base["points"]) {
    p.erase("backend_info");
    p["tracks"] = json::array();
  }
  write_json(tmp.path() / "base.json", base);
  write_json(tmp.path() / "head.json", head);
  const Outcome j = compare((tmp.path() / "base.json").string(), (tmp.path() / "head.json").string(), {}, pc::Format::Json);
  ASSERT_EQ(j.code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report["machine_state"]["judged"], 0);
  EXPECT_EQ(report["machine_state"]["differing"], 0);
  EXPECT_TRUE(report["points"][0]["machine_state"]["base"].is_null());
}

// A base measured before the card was read (no state tracks) against a head with them: the
// tracks on one side only are neither "new" nor "removed", and nothing is judged.
TEST(CompareGpu, StateOnOneSideOnlyIsQuiet) {
  TempDir tmp;
  const auto b = rms_benchmark();
  std::vector<pitot::PointResult> base_points, head_points;
  for (std::size_t pos = 0; pos < 4; ++pos) {
    base_points.push_back(gpu_point(b, pos, 1e-5 * (pos + 1), pos < 2, Card{}));
    std::erase_if(base_points.back().tracks, [](const pitot::Track& t) { return t.name.starts_with("card_"); });
    base_points.back().backend_info.erase("card");
    head_points.push_back(gpu_point(b, pos, 1e-5 * (pos + 1), pos < 2, Card{1500, 80, 300, {"sw_power_cap"}}));
  }
  write_commit(tmp.path() / "results", kBase, base_points);
  write_commit(tmp.path() / "results", kHead, head_points);
  const Outcome j = compare("aaaaaaaa", "bbbbbbbb", tmp.path() / "results", pc::Format::Json);
  ASSERT_EQ(j.code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(point_names(report), kRmsPoints);
  EXPECT_TRUE(report["new"].empty()) << report["new"].dump(1);
  EXPECT_TRUE(report["removed"].empty()) << report["removed"].dump(1);
  EXPECT_EQ(report["machine_state"]["judged"], 0);
  EXPECT_TRUE(report["machine_state"]["warning"].empty());
}

// kernel_busy_seconds is a track in seconds beside its time row: derived, with or without
// benchmarks.json; the state tracks go into their point's CardState and are no points.
TEST(CompareGpu, BusyTimeIsDerivedAndStateTracksAreNoPoints) {
  const std::string columns =
      R"(["result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"])";
  const std::string rows = R"(
    "bench_spin.spin": [[1e-3, NaN], [["1", "2"]], "1", 1, 1.0, null, null, null, null, null, null, [[1e-3], null]],
    "bench_spin.spin.kernel_busy_seconds": [[0.9e-3, NaN], [["1", "2"]], "1", 1, 1.0],
    "bench_spin.spin.card_sm_clock_mhz": [[1755.0, NaN], [["1", "2"]], "1", 1, 1.0],
    "bench_spin.spin.card_temperature_c": [[61.0, NaN], [["1", "2"]], "1", 1, 1.0],
    "bench_spin.spin.card_power_watts": [[402.5, NaN], [["1", "2"]], "1", 1, 1.0],
    "bench_spin.spin.energy_joules_per_call": [[0.4, NaN], [["1", "2"]], "1", 1, 1.0],
    "bench_spin.spin.gflop_per_joule": [[25.0, NaN], [["1", "2"]], "1", 1, 1.0],
    "asv_suite.time_plain": [[2.0], [], "1", 1, 1.0])";
  const json results = pc::parse_python_json(
      R"({"commit_hash": "abcdef0123456789abcdef0123456789abcdef01", "env_name": "e", "date": 1, "params": {"machine": "m"}, "python": "", "requirements": {}, "result_columns": )" +
          columns + R"(, "results": {)" + rows + R"(}, "version": 2})",
      "gpu rows");
  const pitot::AsvBenchmarks benchmarks(json{
      {"bench_spin.spin", {{"unit", "seconds"}, {"type", "time"}, {"param_names", {"n"}}}},
      {"bench_spin.spin.kernel_busy_seconds", {{"unit", "seconds"}, {"type", "track"}, {"param_names", {"n"}}}},
      {"bench_spin.spin.card_sm_clock_mhz", {{"unit", "MHz"}, {"type", "track"}, {"param_names", {"n"}}}},
      {"bench_spin.spin.card_temperature_c", {{"unit", "degC"}, {"type", "track"}, {"param_names", {"n"}}}},
      {"bench_spin.spin.card_power_watts", {{"unit", "W"}, {"type", "track"}, {"param_names", {"n"}}}},
      {"bench_spin.spin.energy_joules_per_call", {{"unit", "J"}, {"type", "track"}, {"param_names", {"n"}}}},
      {"bench_spin.spin.gflop_per_joule", {{"unit", "GFLOP/J"}, {"type", "track"}, {"param_names", {"n"}}}},
      {"asv_suite.time_plain", {{"unit", "seconds"}, {"type", "time"}}}});
  for (const pitot::AsvBenchmarks* described : {&benchmarks, static_cast<const pitot::AsvBenchmarks*>(nullptr)}) {
    SCOPED_TRACE(described ? "with benchmarks.json" : "without benchmarks.json");
    const pc::ResultSet set = pc::asv_results_from_json(results, described, "gpu rows");
    std::map<std::string, const pc::PointData*> by_key;
    for (const auto& p : set.points) by_key[p.key] = &p;
    for (const auto& p : set.points) EXPECT_FALSE(contains(p.key, "card_")) << p.key;
    ASSERT_TRUE(by_key.count("bench_spin.spin(1)"));
    ASSERT_TRUE(by_key.count("bench_spin.spin.kernel_busy_seconds(1)"));
    ASSERT_TRUE(by_key.count("bench_spin.spin.energy_joules_per_call(1)"));
    EXPECT_FALSE(by_key["bench_spin.spin(1)"]->derived);
    EXPECT_TRUE(by_key["bench_spin.spin.kernel_busy_seconds(1)"]->derived);
    EXPECT_TRUE(by_key["bench_spin.spin.energy_joules_per_call(1)"]->derived);
    ASSERT_TRUE(by_key.count("bench_spin.spin.gflop_per_joule(1)"));
    EXPECT_TRUE(by_key["bench_spin.spin.gflop_per_joule(1)"]->derived);
    EXPECT_FALSE(by_key["asv_suite.time_plain"]->derived);  // a time row is never folded
    const pc::CardState& card = by_key["bench_spin.spin(1)"]->card;
    EXPECT_DOUBLE_EQ(card.sm_clock_mhz, 1755);
    EXPECT_DOUBLE_EQ(card.temperature_c, 61);
    EXPECT_DOUBLE_EQ(card.power_watts, 402.5);
    EXPECT_FALSE(by_key["bench_spin.spin(2)"]->card.any());  // NaN readings are none
  }
  // Compared against itself: the busy time is folded, not a row with a single value.
  const pc::ResultSet set = pc::asv_results_from_json(results, &benchmarks, "gpu rows");
  const pc::Report report = pc::build_report(set, set, {});
  for (const auto& row : report.rows) EXPECT_FALSE(contains(row.base.key, "kernel_busy")) << row.base.key;
  EXPECT_EQ(report.derived_tracks, 3);  // busy time, energy and GFLOP/J of the point that ran
  EXPECT_EQ(report.skipped_both, 1);    // bench_spin.spin(2), NaN on both sides
  EXPECT_TRUE(report.not_comparable.empty());
}

// A point skipped on both sides is no change: counted in one line, not listed.
TEST(CompareGpu, SkippedOnBothSidesIsNotListed) {
  TempDir tmp;
  json doc = pitot_json({Card{}, Card{}});
  doc["points"][1]["status"] = "skipped";
  doc["points"][1]["reason"] = "needs more memory";
  doc["points"][1]["samples"] = json::array();
  doc["points"][1].erase("stats");
  write_json(tmp.path() / "run.json", doc);
  const std::string file = (tmp.path() / "run.json").string();
  const Outcome t = compare(file, file, {}, pc::Format::Table);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_FALSE(contains(t.out, "skipped in both")) << t.out;
  EXPECT_FALSE(contains(t.out, "Not comparable")) << t.out;
  EXPECT_TRUE(contains(t.out, "(1 point skipped or not run on both sides: not listed)")) << t.out;
}

// A point whose clock changed between commits (events in base, the kernel clock in head) has a
// result in a different env on each side: listed apart, saying where it went.
TEST(CompareGpu, APointThatChangedClockSaysWhere) {
  TempDir tmp;
  const auto b = rms_benchmark();
  std::vector<pitot::PointResult> base_points, head_points;
  for (std::size_t pos = 0; pos < 4; ++pos) {
    base_points.push_back(gpu_point(b, pos, 1e-5 * (pos + 1), pos < 2, Card{}));
    head_points.push_back(gpu_point(b, pos, 1e-5 * (pos + 1), pos < 3, Card{}));  // n=3 now by the kernel clock
  }
  write_commit(tmp.path() / "results", kBase, base_points);
  write_commit(tmp.path() / "results", kHead, head_points);
  const Outcome j = compare("aaaaaaaa", "bbbbbbbb", tmp.path() / "results", pc::Format::Json);
  ASSERT_EQ(j.code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(point_names(report), (std::vector<std::string>{"bench_norm.rms[n=1]", "bench_norm.rms[n=2]", "bench_norm.rms[n=4]"}));
  ASSERT_EQ(report["not_comparable"].size(), 2u) << report["not_comparable"].dump(1);
  std::string details;
  for (const auto& n : report["not_comparable"]) details += n["name"].get<std::string>() + ": " + n["detail"].get<std::string>() + "\n";
  EXPECT_TRUE(contains(details, "skipped in head: measured in env " + kEnv + "-kclock instead")) << details;
  EXPECT_TRUE(contains(details, "skipped in base: measured in env " + kEnv + " instead")) << details;
}

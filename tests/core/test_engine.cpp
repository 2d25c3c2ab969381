// The engine: point planning, the stopping rule, interleaving, failures and skips.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <pitot/pitot.hpp>

#include <pitot/detail/backend_info.hpp>

#include "core/engine.hpp"
#include "core/tracks.hpp"
#include "ranks/ranks.hpp"

namespace {

using namespace pitot;

BenchmarkDef make_def(std::string name, BenchmarkFn fn, std::vector<Axis> axes = {}) {
  BenchmarkDef d;
  d.name = std::move(name);
  d.fn = std::move(fn);
  d.axes = std::move(axes);
  return d;
}

RunConfig fast_config() {
  RunConfig c;
  c.warmup_seconds = 0;
  c.min_samples = 10;
  c.min_seconds = 0;
  c.max_seconds = 1.0;
  c.batch_seconds = 0.0;  // one sample per turn: the finest interleaving
  return c;
}

std::map<std::string, PointResult> run_all(const std::deque<BenchmarkDef>& defs, const RunConfig& c) {
  std::map<std::string, PointResult> out;
  run_points("test", plan_points(defs), c, [&](const PointResult& r) { out[r.name] = r; });
  return out;
}

}  // namespace

TEST(Engine, CartesianOrderLastAxisFastest) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("b", [](State&) {},
                          {Axis{"a", AxisKind::Int, {std::int64_t{1}, std::int64_t{2}}},
                           Axis{"s", AxisKind::String, {std::string("x"), std::string("y")}}}));
  defs.push_back(make_def("plain", [](State&) {}));
  auto points = plan_points(defs);
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].name, "b[a=1,s=x]");
  EXPECT_EQ(points[1].name, "b[a=1,s=y]");
  EXPECT_EQ(points[2].name, "b[a=2,s=x]");
  EXPECT_EQ(points[3].name, "b[a=2,s=y]");
  EXPECT_EQ(points[4].name, "plain");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(points[static_cast<std::size_t>(i)].id, i);
}

TEST(Engine, StoppingRule) {
  RunConfig c = fast_config();
  c.min_samples = 10;
  c.min_seconds = 0.5;
  c.max_seconds = 2.0;
  c.ci_target = 0.01;
  std::vector<double> constant(20, 1.0);
  EXPECT_EQ(stop_reason(std::vector<double>(5, 1.0), 1.0, c), "");  // too few samples
  EXPECT_EQ(stop_reason(constant, 0.1, c), "");                     // too little time
  EXPECT_EQ(stop_reason(constant, 1.0, c), "ci");
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 1.0 : 2.0);
  EXPECT_EQ(stop_reason(noisy, 1.0, c), "");
  EXPECT_EQ(stop_reason(noisy, 2.0, c), "time_limit");
}

TEST(Engine, ManualTimingGivesTheReportedTimes) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("m", [](State& s) { s.exec_manual([] { return 0.25; }); }));
  auto r = run_all(defs, fast_config()).at("m");
  ASSERT_EQ(r.status, PointStatus::Ok) << r.reason;
  ASSERT_TRUE(r.stats);
  EXPECT_DOUBLE_EQ(r.stats->median, 0.25);
  EXPECT_EQ(r.stop_reason, "ci");
  EXPECT_GE(r.samples.size(), 10u);
  EXPECT_EQ(r.backend, "manual");
}

TEST(Engine, CountersBecomeTracks) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("w", [](State& s) {
    s.add_items(1000);
    s.add_bytes(2e9);
    s.add_flops(4e12);
    s.exec_manual([] { return 2.0; });
  }));
  auto r = run_all(defs, fast_config()).at("w");
  ASSERT_EQ(r.tracks.size(), 3u);
  EXPECT_EQ(r.tracks[0].unit, "items/s");
  EXPECT_DOUBLE_EQ(r.tracks[0].value, 500);
  EXPECT_EQ(r.tracks[1].unit, "GB/s");
  EXPECT_DOUBLE_EQ(r.tracks[1].value, 1);
  EXPECT_EQ(r.tracks[2].unit, "TFLOP/s");
  EXPECT_DOUBLE_EQ(r.tracks[2].value, 2);
}

TEST(Engine, FailuresAndSkipsStayWithTheirPoint) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("p", [](State& s) {
    const auto& mode = s.get_string("mode");
    if (mode == "throw") throw std::runtime_error("planted failure");
    if (mode == "skip") {
      s.skip("not supported here");
      return;
    }
    if (mode == "noexec") return;
    if (mode == "twice") {
      s.exec_manual([] { return 1.0; });
      s.exec_manual([] { return 1.0; });
    }
    s.exec_manual([] { return 1.0; });
  },
                          {Axis{"mode", AxisKind::String, {std::string("ok"), std::string("throw"), std::string("skip"), std::string("noexec"), std::string("twice")}}}));
  auto r = run_all(defs, fast_config());
  EXPECT_EQ(r.at("p[mode=ok]").status, PointStatus::Ok);
  EXPECT_EQ(r.at("p[mode=throw]").status, PointStatus::Failed);
  EXPECT_EQ(r.at("p[mode=throw]").reason, "planted failure");
  EXPECT_EQ(r.at("p[mode=skip]").status, PointStatus::Skipped);
  EXPECT_EQ(r.at("p[mode=skip]").reason, "not supported here");
  EXPECT_EQ(r.at("p[mode=noexec]").status, PointStatus::Failed);
  EXPECT_NE(r.at("p[mode=noexec]").reason.find("state.exec"), std::string::npos);
  EXPECT_EQ(r.at("p[mode=twice]").status, PointStatus::Failed);
  EXPECT_NE(r.at("p[mode=twice]").reason.find("exec twice"), std::string::npos);
}

TEST(Engine, UnknownAxisFailsThePointWithItsName) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("q", [](State& s) { (void)s.get_int("missing"); }));
  auto r = run_all(defs, fast_config()).at("q");
  EXPECT_EQ(r.status, PointStatus::Failed);
  EXPECT_NE(r.reason.find("no axis 'missing'"), std::string::npos);
}

namespace {
// Records which point took each sample, across all points.
std::vector<int> run_and_trace(int interleave) {
  std::vector<int> trace;
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("t", [&trace](State& s) {
    int id = static_cast<int>(s.get_int("i"));
    s.exec_manual([&trace, id] {
      trace.push_back(id);
      return 1.0;
    });
  },
                          {Axis{"i", AxisKind::Int, {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3}}}}));
  RunConfig c = fast_config();
  c.interleave = interleave;
  c.min_samples = 12;
  run_points("test", plan_points(defs), c, [](const PointResult&) {});
  return trace;
}

int switches(const std::vector<int>& trace) {
  int n = 0;
  for (std::size_t i = 1; i < trace.size(); ++i) n += trace[i] != trace[i - 1];
  return n;
}
}  // namespace

TEST(Engine, InterleavingSharesTimeAmongPoints) {
  // Warm-up samples count too; what matters is how often the running point changes.
  auto interleaved = run_and_trace(4);
  EXPECT_GT(switches(interleaved), 20);
  auto sequential = run_and_trace(1);
  EXPECT_EQ(switches(sequential), 3);
  // Without interleaving, points run in declared order.
  EXPECT_EQ(sequential.front(), 0);
  EXPECT_EQ(sequential.back(), 3);
}

TEST(Engine, ShuffledOrderDependsOnTheSeed) {
  auto first_point = [](std::uint64_t seed) {
    std::deque<BenchmarkDef> defs;
    std::vector<AxisValue> values;
    for (int i = 0; i < 16; ++i) values.emplace_back(std::int64_t{i});
    defs.push_back(make_def("o", [](State& s) { s.exec_manual([] { return 1.0; }); },
                            {Axis{"i", AxisKind::Int, values}}));
    RunConfig c = fast_config();
    c.seed = seed;
    c.interleave = 2;
    std::vector<std::string> order;
    run_points("test", plan_points(defs), c, [&](const PointResult& r) { order.push_back(r.name); });
    return order;
  };
  EXPECT_EQ(first_point(7), first_point(7));
  EXPECT_NE(first_point(7), first_point(8));
}

TEST(Engine, PhasesSplitAPointsOwnWall) {
  // Setup and teardown that sleep a known time land in their phases, the timed calls in
  // sampling, and the phases together are no more than the point's wall.
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("ph", [](State& s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    s.exec([] { std::this_thread::sleep_for(std::chrono::microseconds(200)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }));
  defs.push_back(make_def("never", [](State& s) { s.skip("not here"); }));
  RunConfig c = fast_config();
  c.max_seconds = 0.05;
  c.ci_target = 1e-12;  // sampled to the time limit: a quiet machine's sleeps would stop it early
  c.batch_seconds = 0.01;  // the default turn: a loaded machine's hand-offs between turns stay few
  auto out = run_all(defs, c);
  const nlohmann::json& ph = out["ph"].backend_info.at("phases");
  EXPECT_GE(ph.at("setup_seconds").get<double>(), 0.03);
  EXPECT_LT(ph.at("setup_seconds").get<double>(), 0.03 + 0.5);
  EXPECT_GE(ph.at("teardown_seconds").get<double>(), 0.02);
  EXPECT_GE(ph.at("sampling_seconds").get<double>(), 0.05);
  EXPECT_GE(ph.at("warmup_seconds").get<double>(), 0.0002);
  double sum = 0;
  for (const char* k : {"setup_seconds", "warmup_seconds", "sampling_seconds", "deciding_seconds", "finish_seconds",
                        "teardown_seconds"})
    sum += ph.at(k).get<double>();
  EXPECT_LE(sum, out["ph"].duration_seconds + 1e-6);
  EXPECT_GE(sum, 0.9 * out["ph"].duration_seconds);  // one point at a time: nothing else held the turn
  EXPECT_FALSE(out["never"].backend_info.contains("phases"));  // no timed region, no phases
}

TEST(Engine, PeakBandwidthBecomesARooflineTrack) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("roof", [](State& s) {
    s.add_bytes(1e9);
    pitot::detail::set_backend_info(s, "peak_gbytes_per_second", "4000");
    s.exec_manual([] { return 0.5e-3; });  // 1e9 bytes in 0.5 ms: 2000 GB/s, half the peak
  }));
  auto r = run_all(defs, fast_config()).at("roof");
  ASSERT_EQ(r.tracks.size(), 2u);
  EXPECT_EQ(r.tracks[1].name, "percent_of_peak_bandwidth");
  EXPECT_EQ(r.tracks[1].unit, "%");
  EXPECT_NEAR(r.tracks[1].value, 50.0, 1e-9);
}

// The tracks a point carries are core/tracks.hpp's, with its units: a point that gives the engine
// every input (counters, the peak, the card's readings, energy, the kernel clock) gets every track
// of the table, and none else; what the asv writer, the table and compare read is that table.
TEST(Engine, TracksAreTheTablesNamesAndUnits) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("all", [](State& s) {
    s.add_items(1e6);
    s.add_bytes(1e9);
    s.add_flops(1e12);
    pitot::detail::set_backend_info(s, "peak_gbytes_per_second", "4000");
    pitot::detail::set_backend_info(
        s, "card", R"({"sm_clock_mhz": {"median": 1500}, "temperature_c": {"max": 60}, "power_watts": {"median": 500}})");
    pitot::detail::set_backend_info(s, "energy", R"({"joules_per_call": 0.25, "watts": 500})");
    pitot::detail::set_backend_info(s, "kernel_clock", R"({"busy_seconds": 0.0004})");
    s.exec_manual([] { return 0.5e-3; });
  }));
  // A collective timed across ranks (a group of one rank) makes the bus and the ranks' tracks.
  defs.push_back(make_def("collective", [](State& s) {
    s.add_bytes(1e9);
    s.set_bus_factor(1.5);
    s.exec_manual([] { return 0.5e-3; });
  }));
  defs.back().multi_rank = true;
  pitot::ranks::Group one = pitot::ranks::Group::join(pitot::ranks::RankInfo{}, 1);
  RunConfig config = fast_config();
  config.group = &one;
  const auto results = run_all(defs, config);
  std::set<std::string> made;
  for (const Track& t : results.at("collective").tracks) made.insert(t.name);
  EXPECT_NEAR(results.at("collective").tracks.back().value, 0, 1e-12) << "the straggler of one rank is rank 0";
  const PointResult r = results.at("all");
  for (const Track& t : r.tracks) {
    const TrackKind* kind = track_kind(t.name);
    ASSERT_NE(kind, nullptr) << t.name << " is not in core/tracks.hpp's table";
    EXPECT_EQ(t.unit, kind->unit) << t.name;
    EXPECT_EQ(is_rate_track(t.name), kind->rate) << t.name;
    made.insert(t.name);
  }
  for (const TrackKind& kind : track_kinds()) EXPECT_TRUE(made.count(std::string(kind.name))) << kind.name << " was not made";
  EXPECT_EQ(made.size(), track_kinds().size());
}

// A collective's bytes cross links: bus bandwidth = bytes x factor / median, no share of the card's peak.
TEST(Engine, BusBandwidthFromTheFactor) {
  std::deque<BenchmarkDef> defs;
  defs.push_back(make_def("c", [](State& s) {
    s.add_bytes(1e9);
    s.set_bus_factor(1.5);
    pitot::detail::set_backend_info(s, "peak_gbytes_per_second", "4000");
    s.exec_manual([] { return 0.5e-3; });
  }));
  const auto results = run_all(defs, fast_config());
  std::map<std::string, double> tracks;
  for (const Track& t : results.at("c").tracks) tracks[t.name] = t.value;
  EXPECT_DOUBLE_EQ(tracks.at("gbytes_per_second"), 2000);
  EXPECT_DOUBLE_EQ(tracks.at("bus_gbytes_per_second"), 3000);
  EXPECT_EQ(tracks.count("percent_of_peak_bandwidth"), 0u);
  EXPECT_EQ(tracks.count("straggler_rank"), 0u) << "not multi-rank: no ranks' tracks";
}

TEST(Engine, NoPercentOfPeakForDataTheCacheServes) {
  // Hot mode: a launch's 16 MiB fit in a 60 MiB cache, so the GB/s are the cache's: no HBM
  // percentage (issue 17). 1 GiB does not fit; cold mode flushes: both keep the track.
  auto roof = [](double bytes, const char* timing) {
    std::deque<BenchmarkDef> defs;
    defs.push_back(make_def("roof", [bytes, timing](State& s) {
      s.add_bytes(bytes);
      pitot::detail::set_backend_info(s, "peak_gbytes_per_second", "4000");
      pitot::detail::set_backend_info(s, "cache_bytes", std::to_string(60 << 20));
      pitot::detail::set_backend_info(s, "timing", std::string("\"") + timing + "\"");
      s.exec_manual([] { return 1e-5; });
    }));
    return run_all(defs, fast_config()).at("roof");
  };
  const auto hot_small = roof(16 << 20, "hot");
  ASSERT_EQ(hot_small.tracks.size(), 1u);  // GB/s only
  EXPECT_NE(hot_small.backend_info.value("percent_of_peak_omitted", "").find("60 MiB"), std::string::npos);
  EXPECT_EQ(roof(1 << 30, "hot").tracks.size(), 2u);
  EXPECT_EQ(roof(16 << 20, "cold").tracks.size(), 2u);
  EXPECT_EQ(roof(16 << 20, "graph").tracks.size(), 1u);
}

TEST(MergeProcesses, SkipsStaySkipsAndFailuresNameTheirProcess) {
  pitot::PointResult skipped;
  skipped.status = pitot::PointStatus::Skipped;
  skipped.reason = "only small n";
  const auto both = pitot::merge_processes({skipped, skipped});
  EXPECT_EQ(both.status, pitot::PointStatus::Skipped);
  EXPECT_EQ(both.reason, "only small n");  // the same reason in every process: no process named
  pitot::PointResult ok;
  ok.status = pitot::PointStatus::Ok;
  ok.samples = {1.0, 2.0};
  pitot::PointResult failed;
  failed.status = pitot::PointStatus::Failed;
  failed.reason = "boom";
  const auto one_failed = pitot::merge_processes({ok, skipped, failed});
  EXPECT_EQ(one_failed.status, pitot::PointStatus::Failed);  // a failure wins over a skip
  EXPECT_EQ(one_failed.reason, "in process 3 of 3: boom");
  const auto mixed = pitot::merge_processes({ok, skipped});
  EXPECT_EQ(mixed.status, pitot::PointStatus::Skipped);
  EXPECT_EQ(mixed.reason, "in process 2 of 2: only small n");
}

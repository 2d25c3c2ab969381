// The engine's own cost: one point of N samples of an empty manual-timed body, timed whole.
// Per-sample overhead is the slope over N, per-point overhead the intercept (NOTES.md).
#include <pitot/pitot.hpp>

#include <chrono>

#include "core/engine.hpp"

namespace {

void engine_overhead(pitot::State& state) {
  const int samples = static_cast<int>(state.get_int("samples"));
  const int interleave = static_cast<int>(state.get_int("interleave"));
  std::deque<pitot::BenchmarkDef> inner(1);
  inner[0].name = "empty";
  inner[0].fn = [](pitot::State& s) { s.exec_manual([] { return 1e-9; }); };
  std::vector<pitot::AxisValue> ids;
  for (int i = 0; i < interleave; ++i) ids.emplace_back(std::int64_t{i});
  inner[0].axes = {pitot::Axis{"i", pitot::AxisKind::Int, ids}};
  pitot::RunConfig config;
  config.warmup_seconds = 0;
  config.min_samples = config.max_samples = samples;
  config.max_seconds = 1e9;
  config.interleave = interleave;
  const auto points = pitot::plan_points(inner);
  state.add_items(static_cast<double>(interleave));  // points per run: items/s is points per second
  state.exec_manual([&] {
    auto t0 = std::chrono::steady_clock::now();
    pitot::run_points("overhead", points, config, [](const pitot::PointResult&) {});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}
PITOT_BENCHMARK(engine_overhead).axis("samples", {1, 100, 10000}).axis("interleave", {1, 8});

}  // namespace

#include <pitot/state.hpp>

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <pitot/benchmark.hpp>
#include <pitot/detail/backend_info.hpp>
#include <pitot/detail/ranks.hpp>

#include "core/backend.hpp"
#include "core/point_run.hpp"
#include "core/ranked.hpp"
#include "ranks/ranks.hpp"
#include "core/untrusted.hpp"

namespace pitot {
namespace {

std::size_t axis_index(const PointRun& run, std::string_view axis) {
  const auto& axes = run.point.def->axes;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == axis) return i;
  throw UsageError("benchmark " + run.point.def->name + " has no axis '" + std::string(axis) + "'");
}

[[noreturn]] void wrong_kind(const PointRun& run, std::string_view axis, const char* wanted) {
  throw UsageError("benchmark " + run.point.def->name + ": axis '" + std::string(axis) + "' is not " + wanted);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::int64_t State::get_int(std::string_view axis) const {
  const auto& v = run_.point.values[axis_index(run_, axis)];
  if (auto i = std::get_if<std::int64_t>(&v)) return *i;
  wrong_kind(run_, axis, "an int axis");
}

double State::get_float(std::string_view axis) const {
  const auto& v = run_.point.values[axis_index(run_, axis)];
  if (auto d = std::get_if<double>(&v)) return *d;
  if (auto i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  wrong_kind(run_, axis, "a numeric axis");
}

const std::string& State::get_string(std::string_view axis) const {
  const auto& v = run_.point.values[axis_index(run_, axis)];
  if (auto s = std::get_if<std::string>(&v)) return *s;
  wrong_kind(run_, axis, "a string axis");
}

void State::skip(std::string reason) {
  run_.skipped = true;
  run_.result.reason = std::move(reason);
}
bool State::skipped() const { return run_.skipped; }

void State::add_items(double n) { run_.result.items += n; }
void State::add_bytes(double n) { run_.result.bytes += n; }
void State::add_flops(double n) { run_.result.flops += n; }
void State::set_bus_factor(double factor) {
  if (!(factor >= 0) || !std::isfinite(factor)) throw UsageError("benchmark " + run_.point.def->name + ": set_bus_factor takes a factor >= 0");
  run_.bus_factor = factor;
}

// A benchmark that is not .multi_rank() runs alone (on rank 0) even in a multi-rank world.
int State::rank() const { return run_.ranked() ? run_.config.group->rank() : 0; }
int State::world_size() const { return run_.ranked() ? run_.config.group->world_size() : 1; }

const std::string& State::benchmark_name() const { return run_.point.def->name; }
const std::string& State::point_name() const { return run_.point.name; }

void State::exec_device(std::function<void(Launch&)> work) {
  if (run_.skipped) return;
  const DeviceBackend* backend = device_backend();
  if (!backend)
    throw UsageError("benchmark " + run_.point.def->name +
                     " launches device work, but this program was built without a GPU backend "
                     "(build its source as .cu with pitot's CUDA or HIP backend)");
  backend->exec(*this, run_.device, std::move(work));
}

namespace detail {

// The friend of State that reaches its point; only this file defines it.
struct StateAccess {
  static PointRun& point_run(State& state) { return state.run_; }
};

const DeviceOptions& device_options(State& state) { return StateAccess::point_run(state).device; }

std::string broadcast_bytes(State& state, std::string_view bytes) {
  PointRun& run = StateAccess::point_run(state);
  if (!run.ranked()) return std::string(bytes);
  return run.config.group->broadcast_bytes(bytes, "bytes from rank 0 in " + run.point.name);
}

int local_rank(State& state) {
  PointRun& run = StateAccess::point_run(state);
  return run.ranked() ? run.config.local_rank : 0;
}

void set_backend_info(State& state, std::string key, std::string json_value) {
  StateAccess::point_run(state).result.backend_info[std::move(key)] = nlohmann::json::parse(json_value);
}

void run_schedule(State& state, Sampler& sampler) {
  PointRun& run = StateAccess::point_run(state);
  if (run.skipped) return;
  if (run.exec_called)
    throw UsageError("benchmark " + run.point.def->name + " called exec twice; one timed region per point");
  run.exec_called = true;
  const RunConfig& cfg = run.config;
  PointResult& r = run.result;
  r.backend = sampler.backend();
  // Untrusted mode times only with pitot's own clocks: a sample the code reports itself is refused.
  if (run.device.untrusted && r.backend == "manual") throw std::runtime_error(untrusted::self_reported_reason());
  if (run.device.untrusted)
    if (const std::string& why = untrusted::clock_detour_reason(); !why.empty()) throw std::runtime_error(why);
  const DeviceBackend* backend = device_backend();
  auto range_push = [&] {
    if (backend && backend->range_push) backend->range_push("pitot:" + run.point.name);
  };
  auto range_pop = [&] {
    if (backend && backend->range_pop) backend->range_pop();
  };

  // The turn is held from the point's start (setup ran in it) until here.
  PointRun::Phases& phases = run.phases;
  phases.setup = seconds_since(phases.started);
  if (run.ranked()) {
    run_ranked(run, sampler);
    return;
  }
  const auto warmup_start = std::chrono::steady_clock::now();
  sampler.warmup(cfg.warmup_seconds, cfg.min_sample_seconds);
  phases.warmup = seconds_since(warmup_start);
  r.number = sampler.iterations_per_sample();
  const auto finish = [&] {
    const auto finish_start = std::chrono::steady_clock::now();
    sampler.finish();
    phases.finish = seconds_since(finish_start);
    phases.timed_end = std::chrono::steady_clock::now();
  };

  if (cfg.profile) {
    // One run of the work inside its range, with the profiler recording only that.
    if (backend && backend->profiler_start) backend->profiler_start();
    auto t0 = std::chrono::steady_clock::now();
    range_push();
    sampler.run_once();
    range_pop();
    if (backend && backend->profiler_stop) backend->profiler_stop();
    r.samples.push_back(seconds_since(t0));  // wall time under the profiler, for the record
    r.stop_reason = "profile";
    phases.sampling = r.samples.back();
    finish();
    return;
  }

  double spent = 0;  // wall time spent sampling this point, over all its turns
  for (;;) {
    if (run.hooks.on_sampling_begin) run.hooks.on_sampling_begin(run.point);
    const double harness_before = sampler.harness_seconds();
    auto batch_start = std::chrono::steady_clock::now();
    range_push();
    do {
      Sample s = sampler.sample();
      if (s.throttled) {
        ++r.discarded_samples;
      } else {
        r.samples.push_back(s.seconds);
        if (!std::isnan(s.clock_ratio)) r.clock_ratios.push_back(s.clock_ratio);
      }
    } while (seconds_since(batch_start) < cfg.batch_seconds &&
             static_cast<int>(r.samples.size()) + r.discarded_samples < cfg.max_samples && !sampler.exhausted());
    range_pop();
    spent += seconds_since(batch_start);
    if (run.hooks.on_sampling_end) run.hooks.on_sampling_end(run.point, sampler.harness_seconds() - harness_before);
    phases.sampling = spent;
    const auto deciding_start = std::chrono::steady_clock::now();
    r.stop_reason = sampler.exhausted() ? "samples" : stop_reason(r.samples, spent, cfg);
    if (r.stop_reason.empty() && static_cast<int>(r.samples.size()) + r.discarded_samples >= cfg.max_samples)
      r.stop_reason = "max_samples";
    phases.deciding += seconds_since(deciding_start);
    if (!r.stop_reason.empty()) break;
    run.yield_turn();
    run.wait_for_turn();
  }
  finish();
}

}  // namespace detail
}  // namespace pitot

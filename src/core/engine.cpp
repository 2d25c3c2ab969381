#include "core/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <list>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "core/point_run.hpp"
#include "core/ranked.hpp"
#include "core/tracks.hpp"
#include "core/stats.hpp"
#include "core/untrusted.hpp"
#include "ranks/ranks.hpp"

namespace pitot {

std::string point_name(const BenchmarkDef& def, const std::vector<AxisValue>& values) {
  std::string name = def.name;
  if (def.axes.empty()) return name;
  name += "[";
  for (std::size_t i = 0; i < def.axes.size(); ++i) {
    if (i) name += ",";
    name += def.axes[i].name + "=" + display_value(values[i], def.axes[i].kind);
  }
  return name + "]";
}

namespace {
// Odometer step over axis positions, last axis fastest (asv's cartesian order); false once all wrapped.
bool advance(std::vector<std::size_t>& index, const BenchmarkDef& def) {
  for (std::size_t a = def.axes.size(); a-- > 0;) {
    if (++index[a] < def.axes[a].values.size()) return true;
    index[a] = 0;
  }
  return false;
}
}  // namespace

std::vector<PlannedPoint> plan_points(const std::deque<BenchmarkDef>& defs) {
  std::vector<PlannedPoint> points;
  int id = 0;
  for (const auto& def : defs) {
    std::vector<std::size_t> index(def.axes.size(), 0);
    do {
      PlannedPoint p;
      p.def = &def;
      p.id = id++;
      p.index = index;
      for (std::size_t a = 0; a < def.axes.size(); ++a) p.values.push_back(def.axes[a].values[index[a]]);
      p.name = point_name(def, p.values);
      points.push_back(std::move(p));
    } while (advance(index, def));
  }
  return points;
}

std::string stop_reason(const std::vector<double>& samples, double spent_seconds, const RunConfig& config) {
  if (spent_seconds >= config.max_seconds) return "time_limit";
  if (static_cast<int>(samples.size()) < config.min_samples || spent_seconds < config.min_seconds) return "";
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  double median = quantile_sorted(sorted, 0.5);
  auto [lo, hi] = median_ci99_sorted(sorted);
  if (std::isfinite(lo) && std::isfinite(hi) && median > 0 && (hi - lo) / median < config.ci_target) return "ci";
  return "";
}

void PointRun::wait_for_turn() {
  std::unique_lock lock(mutex);
  cv.wait(lock, [&] { return has_turn; });
}

void PointRun::yield_turn() {
  std::lock_guard lock(mutex);
  has_turn = false;
  cv.notify_all();
}

namespace {

std::int64_t unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The card's state and energy (backend_info "card" and "energy", src/gpu/backend.cpp) as tracks,
// so that asv keeps their history beside the time: the median SM clock and power, the hottest
// reading, and joules per call with what they buy (FLOP or bytes per joule).
void card_tracks(PointResult& r) {
  auto number = [](const nlohmann::json& object, const char* key, const char* field) -> std::optional<double> {
    if (!object.is_object()) return std::nullopt;
    const auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    const nlohmann::json& v = field ? (it->is_object() && it->contains(field) ? (*it)[field] : nlohmann::json()) : *it;
    if (!v.is_number() || !std::isfinite(v.get<double>())) return std::nullopt;
    return v.get<double>();
  };
  const nlohmann::json card = r.backend_info.value("card", nlohmann::json());
  if (const auto v = number(card, "sm_clock_mhz", "median")) r.tracks.push_back(make_track(track::kCardSmClockMhz, *v));
  if (const auto v = number(card, "temperature_c", "max")) r.tracks.push_back(make_track(track::kCardTemperatureC, *v));
  if (const auto v = number(card, "power_watts", "median")) r.tracks.push_back(make_track(track::kCardPowerWatts, *v));
  const nlohmann::json energy = r.backend_info.value("energy", nlohmann::json());
  const auto joules = number(energy, "joules_per_call", nullptr);
  if (!joules || !(*joules > 0)) return;
  r.tracks.push_back(make_track(track::kEnergyJoulesPerCall, *joules));
  if (const auto w = number(energy, "watts", nullptr)) r.tracks.push_back(make_track(track::kEnergyWatts, *w));
  if (r.flops > 0) r.tracks.push_back(make_track(track::kGflopPerJoule, r.flops / *joules / 1e9));
  if (r.bytes > 0) r.tracks.push_back(make_track(track::kGbytesPerJoule, r.bytes / *joules / 1e9));
}

void finalize(PointRun& run, const std::string& program) {
  PointResult& r = run.result;
  const PlannedPoint& p = run.point;
  r.program = program;
  r.benchmark = p.def->name;
  r.id = p.id;
  r.index = p.index;
  r.name = p.name;
  r.values = p.values;
  r.unit = p.def->unit;
  if (run.device.untrusted) r.backend_info["untrusted"] = true;  // failed points say it too
  if (run.exec_called)
    r.backend_info["phases"] = {{"setup_seconds", run.phases.setup},       {"warmup_seconds", run.phases.warmup},
                                {"sampling_seconds", run.phases.sampling}, {"deciding_seconds", run.phases.deciding},
                                {"finish_seconds", run.phases.finish},
                                {"teardown_seconds", run.phases.teardown}};
  if (r.status == PointStatus::Failed) return;
  if (run.skipped) {
    r.status = PointStatus::Skipped;
    r.samples.clear();
    return;
  }
  if (r.samples.empty()) {
    r.status = PointStatus::Failed;
    r.reason = run.exec_called ? "every sample was discarded (device throttled)"
                               : "the benchmark returned without calling state.exec or state.skip";
    return;
  }
  r.stats = compute_stats(r.samples);
  r.tracks = throughput_tracks(r.items, r.bytes, r.flops, r.stats->median);
  if (run.bus_factor > 0 && r.bytes > 0 && r.stats->median > 0)
    r.tracks.push_back(make_track(track::kBusGbytesPerSecond, r.bytes * run.bus_factor / r.stats->median / 1e9));
  detail::ranked_tracks(run);
  // A device backend that knows its peak memory bandwidth turns GB/s into a roofline fraction,
  // when the data went through that memory: always in cold mode (caches flushed before each
  // launch); in hot and graph mode only when a launch's bytes exceed the cache that would
  // otherwise serve them (a 16 MiB copy from a 60 MiB L2 is no percentage of HBM's peak).
  const auto peak = r.backend_info.find("peak_gbytes_per_second");
  // (A collective's bytes cross links, not the card's memory: no such fraction.)
  if (peak != r.backend_info.end() && peak->is_number() && peak->get<double>() > 0 && r.bytes > 0 && run.bus_factor < 0) {
    const auto timing = r.backend_info.find("timing");
    const auto cache = r.backend_info.find("cache_bytes");
    const bool cold = timing == r.backend_info.end() || (timing->is_string() && timing->get<std::string>() == "cold");
    const bool fits = cache != r.backend_info.end() && cache->is_number() && r.bytes <= cache->get<double>();
    if (cold || !fits)
      r.tracks.push_back(make_track(track::kPercentOfPeakBandwidth, 100.0 * r.bytes / r.stats->median / 1e9 / peak->get<double>()));
    else
      r.backend_info["percent_of_peak_omitted"] =
          "a launch's bytes fit in the " + std::to_string(cache->get<std::int64_t>() >> 20) +
          " MiB cache that serves them between launches in this mode: no percentage of the memory's peak";
  }
  // The kernel clock's busy time (sum of the work's record durations per launch) beside the span.
  const auto kclock = r.backend_info.find("kernel_clock");
  if (kclock != r.backend_info.end() && kclock->is_object()) {
    const auto busy = kclock->find("busy_seconds");
    if (busy != kclock->end() && busy->is_number() && busy->get<double>() > 0)
      r.tracks.push_back(make_track(track::kKernelBusySeconds, busy->get<double>()));
  }
  card_tracks(r);
  if (run.device.untrusted) untrusted::check_point(r);
}

// The body of a point's thread: runs the benchmark function, holding the turn except while
// State::run hands it back between batches.
void point_thread(PointRun& run) {
  run.wait_for_turn();
  auto t0 = std::chrono::steady_clock::now();
  run.phases.started = t0;
  run.result.started_at_ms = unix_ms();
  try {
    if (run.hooks.on_thread_start) run.hooks.on_thread_start(run.point);
    if (run.hooks.on_point_begin) run.hooks.on_point_begin(run.point);
    State state(run);
    run.point.def->fn(state);
    if (run.hooks.on_point_end) run.hooks.on_point_end(run.point);
    // Every rank ends the point together; a rank that skipped it while another timed it fails here.
    if (run.ranked()) (void)run.config.group->gather(0, "the end of " + run.point.name);
  } catch (const std::exception& e) {
    run.result.status = PointStatus::Failed;
    run.result.reason = e.what();
  } catch (...) {
    run.result.status = PointStatus::Failed;
    run.result.reason = "unknown exception";
  }
  // A rank whose point failed tells the others why at once (their waits would time out instead).
  if (run.ranked() && run.result.status == PointStatus::Failed) run.config.group->abort(run.result.reason);
  const auto end = std::chrono::steady_clock::now();
  run.result.duration_seconds = std::chrono::duration<double>(end - t0).count();
  if (run.phases.timed_end != std::chrono::steady_clock::time_point{})  // sampling ended
    run.phases.teardown = std::chrono::duration<double>(end - run.phases.timed_end).count();
  std::lock_guard lock(run.mutex);
  run.finished = true;
  run.has_turn = false;
  run.cv.notify_all();
}

}  // namespace

PointResult skipped_result(const std::string& program, const PlannedPoint& point, std::string reason) {
  const RunConfig config;
  const PointHooks hooks;
  const DeviceOptions device;
  PointRun run(point, config, hooks, device);
  run.skipped = true;
  run.result.reason = std::move(reason);
  finalize(run, program);
  return run.result;
}

void run_points(const std::string& program, const std::vector<PlannedPoint>& points, const RunConfig& config,
                const PointCallback& done, const PointHooks& hooks, const DeviceOptions& device) {
  // Order: declared order without interleaving; a seeded shuffle with it, so drift over the
  // run is shared by all points instead of showing up as a difference between them.
  std::vector<const PlannedPoint*> queue;
  for (const auto& p : points) queue.push_back(&p);
  const int window = std::max(1, config.interleave);
  if (window > 1) std::shuffle(queue.begin(), queue.end(), std::mt19937_64(config.seed));

  struct Live {
    std::unique_ptr<PointRun> run;
    std::thread thread;
  };
  std::list<Live> live;
  std::size_t next = 0;
  while (next < queue.size() || !live.empty()) {
    while (static_cast<int>(live.size()) < window && next < queue.size()) {
      Live l{std::make_unique<PointRun>(*queue[next++], config, hooks, device), {}};
      l.thread = std::thread(point_thread, std::ref(*l.run));
      live.push_back(std::move(l));
    }
    for (auto it = live.begin(); it != live.end();) {
      PointRun& run = *it->run;
      {
        // Hand the turn over and wait until the point hands it back.
        std::unique_lock lock(run.mutex);
        run.has_turn = true;
        run.cv.notify_all();
        run.cv.wait(lock, [&] { return !run.has_turn; });
      }
      if (run.finished) {
        it->thread.join();
        finalize(run, program);
        done(run.result);
        it = live.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace pitot

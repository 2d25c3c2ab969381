#include "gpu/backend.hpp"

#include "core/stats.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>

#include "gpu/activity.hpp"
#include "gpu/error.hpp"
#include "gpu/sampler.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {
namespace {
// set_rotations() applies to the next exec of the same thread (each point runs in its own thread).
thread_local int pending_rotations = 1;

// Said once per process and problem: a missing counter changes nothing else.
void say_once(const std::string& line) {
  static std::mutex mutex;
  static std::vector<std::string> said;
  std::lock_guard lock(mutex);
  if (std::find(said.begin(), said.end(), line) != said.end()) return;
  said.push_back(line);
  std::fprintf(stderr, "pitot: %s\n", line.c_str());
}

// The clock a point is timed with: --clock, else the default of its mode. A kernel clock that
// cannot run (no CUPTI, a profiler holds it) gives way to events, said once per process. The
// command line refused --clock kernel outside cold mode (device_settings_problem).
Clock choose_clock(std::optional<Clock> asked, Mode mode, std::string* unavailable) {
  if (asked == Clock::Events) return Clock::Events;
  if (!asked && (mode != Mode::Cold || kDefaultColdClock == Clock::Events || !PITOT_GPU_CUDA))
    return Clock::Events;  // HIP has no kernel clock (docs/hip-backend.md): events, silently
  const std::string& why = activity_start();
  if (why.empty()) return Clock::Kernel;
  *unavailable = why;
  say_once("kernel clock unavailable: " + why + "; timing with events");
  return Clock::Events;
}

// The point's "kernel_clock" object (docs/cuda-backend.md, "The kernel clock").
nlohmann::json kernel_clock_info(const DeviceSampler& sampler) {
  using nlohmann::json;
  const auto& b = sampler.breakdown();
  const double launches = static_cast<double>(std::max<std::int64_t>(b.launches(), 1));
  json kernels = json::array();
  for (const auto& e : b.entries())
    kernels.push_back({{"name", kernel_clock::demangle(e.name)},
                       {"kind", kernel_clock::kind_name(e.kind)},
                       {"count_per_launch", static_cast<double>(e.count) / launches},
                       {"total_seconds", e.total_ns * 1e-9},
                       {"mean_seconds", e.count > 0 ? e.total_ns * 1e-9 / static_cast<double>(e.count) : 0.0}});
  return {{"busy_seconds", median(sampler.busy_samples())},
          {"events_seconds", median(sampler.event_samples())},
          {"busy_samples", sampler.busy_samples()},
          {"event_samples", sampler.event_samples()},
          {"launches", b.launches()},
          {"kernels", kernels},
          {"unattributed_records", sampler.matcher().unattributed()},
          {"late_records", sampler.matcher().late()},
          {"invalid_records", sampler.matcher().invalid()}};
}

// The thermal guard (--cool-to): waits before the point, and says so when it did.
nlohmann::json cool_before(State& state, card::Card& card, const DeviceOptions& options) {
  const auto c = card::cool_down(card, options.cool_to_c, options.cool_timeout_seconds);
  if (!c) {
    say_once("--cool-to: the card reports no temperature; points start without waiting");
    return nullptr;
  }
  if (c->waited_seconds >= 1)
    std::fprintf(stderr, "pitot: %s: waited %.1f s for the GPU to cool from %.0f to %.0f C%s\n", state.point_name().c_str(),
                 c->waited_seconds, c->from_c, c->to_c, c->reached ? "" : " (--cool-timeout reached)");
  return {{"target_c", options.cool_to_c}, {"from_c", c->from_c}, {"to_c", c->to_c},
          {"waited_seconds", c->waited_seconds}, {"reached", c->reached}};
}

nlohmann::json energy_info(const DeviceSampler::Energy& e) {
  if (!e.problem.empty()) return {{"problem", e.problem}};
  return {{"joules_per_call", e.joules_per_call}, {"watts", e.watts}, {"seconds_per_call", e.seconds_per_call},
          {"window_seconds", e.window_seconds}, {"calls", e.calls}, {"cooled_seconds", e.cooled_seconds}};
}

// --untrusted: the backend's start (persisting L2 off, or a refusal where it cannot run untrusted)
// and what the point records of the device-side checks (docs/untrusted.md).
void untrusted_begin(State& state, DeviceKit& kit) {
  if (const std::string why = ops::untrusted_begin(kit); !why.empty()) throw std::runtime_error("untrusted mode: " + why);
  detail::set_backend_info(
      state, "untrusted_device",
      nlohmann::json{{"end_of_sample", "each stop event waits for every blocking stream; each batch synchronizes the device"},
                     {"persisting_l2", "limit 0 and lines reset before each batch; a limit the benchmark sets is refused"},
                     {"kernel_clock", "never declined; a call without device work it can see is refused"}}
          .dump());
}

}  // namespace

void exec(State& state, const DeviceOptions& options, std::function<void(Launch&)> work) {
  exec_with_hooks(state, options, std::move(work), nullptr);
}

void exec_with_hooks(State& state, const DeviceOptions& options, std::function<void(Launch&)> work, CallHooks* hooks) {
  PointContext context(state.point_name());
  const int rotations = pending_rotations;
  pending_rotations = 1;
  // A GPU benchmark outside a device source (registered from a .cpp) reaches here without the
  // program having skipped it: without a usable device it is skipped, not failed.
  if (const DeviceBackend* b = device_backend(); b && b->unusable) {
    if (const std::string why = b->unusable(); !why.empty()) {
      state.skip("no " + b->display_name + " GPU usable here: " + why);
      return;
    }
  }
  const Mode mode = options.timing;
  select_device(options.device);
  // Setup work the author queued (fills, copies) finishes before anything is timed.
  PITOT_GPU_TRY(gpuDeviceSynchronize());
  DeviceKit& kit = device_kit(options.device);
  detail::set_backend_info(state, "device", std::to_string(options.device));
  detail::set_backend_info(state, "timing", nlohmann::json(name_of(mode)).dump());
  if (rotations > 1) detail::set_backend_info(state, "rotations", std::to_string(rotations));
  if (mode == Mode::Cold) detail::set_backend_info(state, "flush_bytes", std::to_string(kit.flush_bytes));
  record_kit_info(state, kit);
  std::string unavailable;
  const Clock clock = choose_clock(options.clock, mode, &unavailable);
  if (!unavailable.empty()) detail::set_backend_info(state, "kernel_clock_unavailable", json_text(nlohmann::json(unavailable)));
  // The card's state while the point samples; the guard first, so the wait is not in it.
  nlohmann::json cooled;
  std::optional<card::PointLog> card_log;
  if (kit.card) {
    if (options.cool_to_c > 0) cooled = cool_before(state, *kit.card, options);
    card_log.emplace(*kit.card, card::kReadEverySeconds, card::steady_clock(), &kit.last_card_reading);
  } else {
    say_once("the GPU's clocks, temperature and power are not recorded: " + kit.card_missing);
  }
  if (options.untrusted) untrusted_begin(state, kit);
  DeviceSampler sampler(kit, mode, clock, options.clock == Clock::Kernel, work, rotations, options.graph_launches,
                        options.throttle_ratio);
  sampler.set_untrusted(options.untrusted);
  sampler.set_call_hooks(hooks);
  if (card_log) sampler.watch_card(&*card_log);
  // Energy runs the work back to back for a time each rank would measure alone: not across ranks.
  if (options.energy_seconds > 0 && state.world_size() == 1) sampler.measure_energy_at_finish(kit.card.get(), options.energy_seconds);
  detail::run_schedule(state, sampler);
  if (card_log) {
    nlohmann::json info = card_log->summary();
    if (!cooled.is_null()) info["cool_down"] = cooled;
    detail::set_backend_info(state, "card", info.dump());
  }
  if (options.energy_seconds > 0) {
    const auto& energy = sampler.energy();
    if (!kit.card)
      say_once("--energy: no energy counter to read: " + kit.card_missing);
    else if (energy && !energy->problem.empty())
      say_once("--energy: " + energy->problem);
    if (energy) detail::set_backend_info(state, "energy", energy_info(*energy).dump());
  }
  // The clock the samples were read with: the kernel clock may have declined during warm-up.
  detail::set_backend_info(state, "clock", nlohmann::json(name_of(sampler.kernel_clock() ? Clock::Kernel : Clock::Events)).dump());
  if (!sampler.kernel_clock_declined().empty())
    detail::set_backend_info(state, "kernel_clock_declined", nlohmann::json(sampler.kernel_clock_declined()).dump());
  if (sampler.kernel_clock()) detail::set_backend_info(state, "kernel_clock", kernel_clock_info(sampler).dump());
  detail::set_backend_info(state, "launches_per_sample", std::to_string(sampler.iterations_per_sample()));
  if (sampler.flushes() > 0)
    detail::set_backend_info(state, "flushes",
                             nlohmann::json{{"count", sampler.flushes()},
                                            {"device_seconds", static_cast<double>(sampler.flushes()) * kit.flush_seconds}}
                                 .dump());
  if (const DeviceSampler::Costs& c = sampler.costs(); c.batches > 0)
    detail::set_backend_info(state, "sampler_costs",
                             nlohmann::json{{"batches", c.batches},
                                            {"queue_seconds", c.queue_seconds},
                                            {"wait_seconds", c.wait_seconds},
                                            {"clock_read_seconds", c.clock_read_seconds},
                                            {"clock_flushes", c.clock_flushes},
                                            {"card_read_seconds", c.card_read_seconds},
                                            {"card_reads", c.card_reads}}
                                 .dump());
  // Without the blocker the host's launch latency can fall between the events (see run_batch);
  // it may have been given up during this point (a tool serializing launches).
  if (!kit.use_blocker) detail::set_backend_info(state, "blocking_kernel", "false");
}

void set_rotations(State& state, int count) {
  if (count < 1)
    throw UsageError("benchmark " + state.benchmark_name() + ": set_rotations needs at least 1 input set, not " +
                     std::to_string(count));
  pending_rotations = count;
}

bool register_backend() {
  static const bool registered = set_device_backend(make_backend());
  return registered;
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

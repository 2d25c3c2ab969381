// Timing GPU work, shared by the CUDA and HIP backends: the timing modes and the sampler that
// takes one cold, hot or graph sample per call. A sample is `batches_` batches; a batch queues
// `count_` launches behind a spinning blocker kernel that the host releases once all are queued,
// so the host's launch latency stays out of the events.
//
// What differs by backend (the kit's own state, how a sample is sized, how the blocker, the cache
// flush and the clock probe are launched, how a graph is instantiated) is behind the functions of
// src/gpu/device_ops.hpp, which each backend defines.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pitot/state.hpp>

#include "card/watch.hpp"
#include "core/settings.hpp"
#include "gpu/api.hpp"
#include "gpu/device_ops.hpp"
#include "gpu/kernel_clock.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

// What a cold sample's value is read from: events around each launch, or the device's own start
// and end timestamps of the work the launch queued (the kernel clock: CUPTI activity records,
// src/gpu/activity.hpp), which leave the events' and the front end's time out. Named as --clock
// names it (src/core/settings.hpp).
using Clock = pitot::GpuClock;
// The clock of cold mode when --clock is not given and the backend can read kernel timestamps
// (docs/DESIGN.md has the measurements behind it). Hot and graph mode always use events.
inline constexpr Clock kDefaultColdClock = Clock::Kernel;

// Between profiler start and stop the sampler queues no blocker: a profiler serializes the
// launches it records, so a launch behind the spinning blocker would wait for it.
void set_profiling(bool on);

// The kit of `device` (src/gpu/device_ops.hpp), made on first use by ops::make_kit (the calling
// thread must have selected the device).
DeviceKit& device_kit(int device);

// Launches queued behind the blocker per batch. The queue must hold them all while the blocker
// spins (a full queue would stall the host until the blocker's timeout).
constexpr std::int64_t kMaxColdLaunches = 32;  // each: flush, event, work, event
constexpr std::int64_t kMaxHotLaunches = 128;
// (kMaxGraphLaunches is the backend's: HIP dispatches a graph node by node.)

// Seconds between two recorded events.
double elapsed_seconds(gpuEvent_t start, gpuEvent_t stop);

// Lets the stream run when the enqueueing scope ends, on an exception too (never leave the GPU
// spinning). Signals is HostSignals (src/gpu/signals.hpp).
template <class Signals>
struct ReleaseOnExit {
  Signals* signals;
  ~ReleaseOnExit() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    signals->release = 1;
  }
};

// Work of the harness around each cold launch (a problem's checks, src/gpu/problem.cpp), kept out
// of the timed spans: before_call is queued before the flush and the start event of the batch's
// launch k, after_call after its stop event; after_batch runs once the batch's work has finished
// and may throw a refusal.
struct CallHooks {
  virtual ~CallHooks() = default;
  virtual void before_call(gpuStream_t stream, std::int64_t k) = 0;
  virtual void after_call(gpuStream_t stream, std::int64_t k) = 0;
  virtual void after_batch(gpuStream_t stream, std::int64_t launches) = 0;
  virtual double host_seconds() const = 0;  // the host's part of the above so far (Sampler::harness_seconds)
};

class DeviceSampler final : public detail::Sampler {
 public:
  DeviceSampler(DeviceKit& kit, Mode mode, Clock clock, bool clock_forced, std::function<void(Launch&)>& work, int rotations,
                int graph_launches, double throttle_ratio);
  ~DeviceSampler() override;
  DeviceSampler(const DeviceSampler&) = delete;
  DeviceSampler& operator=(const DeviceSampler&) = delete;

  const char* backend() const override { return kBackendName; }
  void warmup(double warmup_seconds, double min_sample_seconds) override;
  detail::Sample sample() override;
  void run_once() override;  // CUDA: one launch, synchronized; HIP: one whole sample
  std::int64_t iterations_per_sample() const override { return count_ * batches_; }
  void finish() override;

  // The kernel clock's extras over the samples taken after warm-up (throttled ones left out),
  // per launch: busy time (sum of record durations) and the events' reading of the same launches,
  // aligned with the engine's samples; and the per-kernel breakdown.
  bool kernel_clock() const { return clock_ == Clock::Kernel && mode_ == Mode::Cold; }
  // Why a point that was to be timed by the kernel clock is timed by events ("" if it is not):
  // unless --clock kernel forced it, a kernel of several waves of blocks declines the kernel clock
  // at the end of warm-up, since CUPTI's instrumentation slows such kernels (docs/DESIGN.md).
  const std::string& kernel_clock_declined() const { return declined_; }
  const std::vector<double>& busy_samples() const { return busy_samples_; }
  const std::vector<double>& event_samples() const { return event_samples_; }
  const kernel_clock::Breakdown& breakdown() const { return breakdown_; }
  const kernel_clock::Matcher& matcher() const { return matcher_; }
  // Cache flushes launched while sampling (after warm-up): their device time is part of the
  // point's sampling wall (backend_info "flushes").
  std::int64_t flushes() const { return flushes_; }
  // Where the host's time went while sampling (after warm-up), summed over the batches: queueing
  // a batch behind its blocker, waiting for the device, reading the kernel clock's records (one
  // flush of CUPTI's buffers, more when a launch's records come late), reading the card between
  // samples (backend_info "sampler_costs"; lab/suite/phases.py sums them over a suite).
  struct Costs {
    std::int64_t batches = 0;
    double queue_seconds = 0, wait_seconds = 0, clock_read_seconds = 0, card_read_seconds = 0;
    std::int64_t clock_flushes = 0, card_reads = 0;
  };
  const Costs& costs() const { return costs_; }

  // The card's readings between samples after warm-up (none when `log` is null).
  void watch_card(card::PointLog* log) { card_log_ = log; }
  // Energy per call (--energy): measured in finish(), after the last sample and before the
  // stream goes, with the work back to back (no flush, no blocker) between two steps of the
  // card's energy counter at least `window_seconds` apart.
  struct Energy {
    double joules_per_call = 0, watts = 0;
    double seconds_per_call = 0;  // back to back, by events over the window's chunks
    double window_seconds = 0;    // between the counter's two steps
    std::int64_t calls = 0;       // in the chunks the events timed
    double cooled_seconds = 0;    // waited afterwards for the card to be back at its temperature
    std::string problem;          // why there is no measurement ("" when there is one)
  };
  // --untrusted (docs/untrusted.md): each stop event waits for the device's blocking streams,
  // each batch ends with the whole device synchronized and the benchmark's persisting-L2 limit
  // refused, and the kernel clock neither declines nor lets a call without device work through.
  void set_untrusted(bool on) { untrusted_ = on; }
  void set_call_hooks(CallHooks* hooks) { hooks_ = hooks; }  // cold mode only
  double harness_seconds() const override { return hooks_ ? hooks_->host_seconds() : 0; }
  void measure_energy_at_finish(card::Card* card, double window_seconds) {
    energy_card_ = card;
    energy_window_ = window_seconds;
  }
  const std::optional<Energy>& energy() const { return energy_; }

 private:
  // Summed over a batch's launches, in seconds.
  struct BatchTimes {
    double seconds = 0;  // the sample's clock
    double busy = 0;     // kernel clock: sum of record durations
    double events = 0;   // kernel clock: what the events read
    kernel_clock::Breakdown kernels;
    std::uint64_t first = 0;  // kernel clock: the id of the batch's first launch (0: no records)
  };
  // One call of the author's work, on the next rotation; a nonzero id tags its device work.
  void launch_work(std::uint64_t activity_id = 0);
  // count_ launches behind one blocker; under the kernel clock `seconds` is still the events'
  // reading, and the launches' records are read by read_kernel_clock once the sample's batches ran.
  BatchTimes run_batch(double* clock_ratio);
  // The kernel clock's reading of a sample's batches (each with launches [first, first + count_)):
  // one flush of CUPTI's buffers for all of them, more only while records are late.
  void read_kernel_clock(std::vector<BatchTimes>& batches);
  void capture_graph();
  void release_resources() noexcept;
  Energy measure_energy(card::Card& card, double window_seconds);
  // count_ and batches_ for mode_, by the backend's rule (ops::size_sample) on hot launches.
  void size_sample(double min_sample_seconds);

  DeviceKit& kit_;
  Mode mode_;
  Clock clock_;
  bool clock_forced_;
  std::string declined_;
  double max_waves_ = 0;  // the widest kernel of the work so far, in waves of blocks
  std::string widest_;
  std::function<void(Launch&)>& work_;
  int rotations_;
  int graph_launches_;
  double throttle_ratio_;
  gpuStream_t stream_ = nullptr;
  std::vector<gpuEvent_t> starts_, stops_;
  gpuGraph_t graph_ = nullptr;
  gpuGraphExec_t graph_exec_ = nullptr;
  std::int64_t count_ = 1;  // launches per batch (in graph mode: per graph)
  int batches_ = 1;         // batches per sample
  std::int64_t launches_ = 0;
  kernel_clock::Matcher matcher_;
  int records_per_launch_ = 0;  // the most one launch had so far: a batch waits for that many
  std::vector<double> busy_samples_, event_samples_;
  kernel_clock::Breakdown breakdown_;
  card::PointLog* card_log_ = nullptr;
  bool warm_ = false;  // warm-up done: the card is read from here on
  std::int64_t flushes_ = 0;
  Costs costs_;
  card::Card* energy_card_ = nullptr;
  double energy_window_ = 0;
  std::optional<Energy> energy_;
  bool untrusted_ = false;
  CallHooks* hooks_ = nullptr;
  void end_span() {  // before each stop event
    if (untrusted_) ops::wait_for_device(kit_, stream_);
  }
};

}  // namespace pitot::PITOT_GPU_NAMESPACE

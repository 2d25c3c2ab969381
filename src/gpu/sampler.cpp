#include "gpu/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <pitot/benchmark.hpp>

#include "core/stats.hpp"
#include "gpu/activity.hpp"
#include "gpu/device_ops.hpp"
#include "gpu/error.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {
namespace {
std::atomic<bool> profiling_now{false};
// Kernel clock launch ids, unique in the process: a late record of an earlier point's launch can
// never be taken for one of this point's.
std::atomic<std::uint64_t> next_activity_id{1};
// After a batch's synchronize its records are complete, but may come in a later buffer.
constexpr int kFlushRetries = 20;
constexpr auto kFlushRetryWait = std::chrono::microseconds(100);

}  // namespace

void set_profiling(bool on) { profiling_now = on; }

DeviceKit& device_kit(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceKit>> kits;  // kept until the process exits
  std::lock_guard lock(mutex);
  auto& kit = kits[device];
  if (!kit) kit = ops::make_kit(device);
  return *kit;
}

double elapsed_seconds(gpuEvent_t start, gpuEvent_t stop) {
  float ms = 0;
  PITOT_GPU_TRY(gpuEventElapsedTime(&ms, start, stop));
  return static_cast<double>(ms) * 1e-3;
}

DeviceSampler::DeviceSampler(DeviceKit& kit, Mode mode, Clock clock, bool clock_forced,
                             std::function<void(Launch&)>& work, int rotations, int graph_launches, double throttle_ratio)
    : kit_(kit), mode_(mode), clock_(clock), clock_forced_(clock_forced), work_(work), rotations_(std::max(1, rotations)), graph_launches_(graph_launches), throttle_ratio_(throttle_ratio) {
  try {
    PITOT_GPU_TRY(gpuStreamCreateWithFlags(&stream_, gpuStreamNonBlocking));
    const std::int64_t pairs = mode_ == Mode::Cold ? kMaxColdLaunches : 1;
    starts_.resize(pairs, nullptr);
    stops_.resize(pairs, nullptr);
    for (std::int64_t i = 0; i < pairs; ++i) {
      PITOT_GPU_TRY(gpuEventCreate(&starts_[i]));
      PITOT_GPU_TRY(gpuEventCreate(&stops_[i]));
    }
  } catch (...) {
    release_resources();
    throw;
  }
}

DeviceSampler::~DeviceSampler() { release_resources(); }

void DeviceSampler::release_resources() noexcept {
  // Errors are ignored here: after a sticky error these calls fail, and nothing can be done.
  if (graph_exec_) (void)gpuGraphExecDestroy(graph_exec_);
  if (graph_) (void)gpuGraphDestroy(graph_);
  for (auto e : starts_)
    if (e) (void)gpuEventDestroy(e);
  for (auto e : stops_)
    if (e) (void)gpuEventDestroy(e);
  if (stream_) (void)gpuStreamDestroy(stream_);
  graph_exec_ = nullptr;
  graph_ = nullptr;
  starts_.clear();
  stops_.clear();
  stream_ = nullptr;
  if (!device_lost()) (void)gpuGetLastError();
}

void DeviceSampler::finish() {
  // The card as timing ends, before any energy phase; not again when the last reading is recent: a
  // read costs about 5 ms on an H100/H200, as much as a lean point's sampling (pitot ab).
  if (card_log_ && warm_) card_log_->read_if_due();
  if (energy_card_ && energy_window_ > 0 && stream_) {
    try {
      energy_ = measure_energy(*energy_card_, energy_window_);
    } catch (...) {
      release_resources();
      throw;
    }
  }
  release_resources();
}

void DeviceSampler::launch_work(std::uint64_t activity_id) {
  Launch launch(stream_, static_cast<int>(launches_++ % rotations_));
  if (activity_id != 0) {
    activity_push(activity_id);
    try {
      work_(launch);
    } catch (...) {
      activity_pop();
      throw;
    }
    activity_pop();
  } else {
    work_(launch);
  }
  // A bad launch configuration shows up here, not at the next synchronization.
  PITOT_GPU_TRY(gpuPeekAtLastError());
}

void DeviceSampler::capture_graph() {
  PITOT_GPU_TRY(gpuStreamBeginCapture(stream_, gpuStreamCaptureModeThreadLocal));
  try {
    for (std::int64_t i = 0; i < count_; ++i) launch_work();
  } catch (...) {
    gpuGraph_t broken = nullptr;
    (void)gpuStreamEndCapture(stream_, &broken);
    if (broken) (void)gpuGraphDestroy(broken);
    throw;
  }
  PITOT_GPU_TRY(gpuStreamEndCapture(stream_, &graph_));
  ops::instantiate_graph(graph_, &graph_exec_, stream_);
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
}

void DeviceSampler::warmup(double warmup_seconds, double min_sample_seconds) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // One plain launch first: it loads the author's code and surfaces errors before timing.
  launch_work();
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
  size_sample(min_sample_seconds);
  if (mode_ == Mode::Graph) capture_graph();
  std::vector<double> spans;
  do {
    spans.push_back(sample().seconds);
  } while (agreed(std::chrono::duration<double>(clock::now() - start).count() < warmup_seconds));
  // The kernel clock may decline a point, unless the user forced it or the code is untrusted (there
  // work the clock cannot tie to the call is refused instead).
  const bool may_decline = kernel_clock() && !clock_forced_ && !untrusted_;
  // Across ranks (docs/ranks.md) the clock declines when it would on any rank: all take one clock.
  const bool unmatched = (may_decline || (untrusted_ && kernel_clock())) &&
                         agreed_slowest(kernel_clock::events_see_unmatched_work(median(spans), median(event_samples_)) ? 1 : 0) > 0;
  if (untrusted_ && unmatched)
    throw std::runtime_error("untrusted: device work outside the timed call: the events saw more device time than the "
                             "kernel clock could tie to the call (work queued from another thread?)");
  if (may_decline && unmatched) {
    declined_ = "the events around each launch saw more device time than the kernel clock matched to it (work "
                "queued from another thread, such as autograd's backward, is invisible to the kernel clock): timed "
                "with events (--clock kernel forces the kernel clock)";
    clock_ = Clock::Events;
    (void)sample();
  } else if (may_decline && agreed_slowest(max_waves_) > 1) {
    char waves[32];
    std::snprintf(waves, sizeof waves, "%.1f", max_waves_);
    declined_ = kernel_clock::demangle(widest_) + " runs " + waves +
                " waves of blocks, and CUPTI's instrumentation slows kernels of several waves (up to 9% on an H200): "
                "timed with events (--clock kernel forces the kernel clock)";
    clock_ = Clock::Events;
    (void)sample();  // one sample on the new clock before timing starts
  }
  busy_samples_.clear();
  event_samples_.clear();
  breakdown_.clear();
  warm_ = true;
  if (card_log_) card_log_->read_now();  // the card as timing starts
}

void DeviceSampler::size_sample(double min_sample_seconds) {
  // The time of one launch, hot, decides how many launches a sample holds.
  const Mode mode = mode_;
  mode_ = Mode::Hot;
  const HotSeconds hot_seconds = [this](std::int64_t launches) {
    count_ = launches;
    batches_ = 1;
    double one = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 3; ++i) one = std::min(one, sample().seconds);
    return one;
  };
  const SampleSize size = ops::size_sample(kit_, mode, min_sample_seconds, graph_launches_, hot_seconds);
  mode_ = mode;
  // Across ranks every rank queues the most launches any rank chose (each measured its own card).
  count_ = static_cast<std::int64_t>(agreed_slowest(static_cast<double>(size.launches)));
  batches_ = static_cast<int>(agreed_slowest(size.batches));
}

void DeviceSampler::run_once() {
#if PITOT_GPU_HIP
  (void)sample();  // one whole sample, as the engine's default does
#else
  launch_work();
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
#endif
}

namespace {
double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

DeviceSampler::BatchTimes DeviceSampler::run_batch(double* clock_ratio_out) {
  const auto batch_start = std::chrono::steady_clock::now();
  if (untrusted_)
    if (const std::string why = ops::untrusted_before_batch(kit_); !why.empty()) throw std::runtime_error("untrusted: " + why);
  ops::before_batch(kit_, mode_);
  const bool kclock = kernel_clock();
  activity_record(kclock);  // off for events: recording kernels slows some of them
  std::uint64_t first = 0;
  if (kclock) {
    first = next_activity_id.fetch_add(static_cast<std::uint64_t>(count_));
    matcher_.expect(first, count_);
  }
  const std::uint64_t sequence = ++kit_.sequence;
  auto* signals = kit_.signals;
  signals->timed_out = 0;
  signals->release = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const bool blocker = kit_.use_blocker && !profiling_now;
  if (blocker) ops::launch_blocker(kit_, stream_);
  {
    ReleaseOnExit release{signals};
    ops::probe_clock(kit_, stream_, false, sequence);
    switch (mode_) {
      case Mode::Cold:
        if (warm_) flushes_ += count_;
        for (std::int64_t k = 0; k < count_; ++k) {
          if (hooks_) hooks_->before_call(stream_, k);
          ops::launch_flush(kit_, stream_);
          PITOT_GPU_TRY(gpuEventRecord(starts_[k], stream_));
          launch_work(kclock ? first + static_cast<std::uint64_t>(k) : 0);
          end_span();
          PITOT_GPU_TRY(gpuEventRecord(stops_[k], stream_));
          if (hooks_) hooks_->after_call(stream_, k);
        }
        break;
      case Mode::Hot:
        PITOT_GPU_TRY(gpuEventRecord(starts_[0], stream_));
        for (std::int64_t k = 0; k < count_; ++k) launch_work();
        end_span();
        PITOT_GPU_TRY(gpuEventRecord(stops_[0], stream_));
        break;
      case Mode::Graph:
        PITOT_GPU_TRY(gpuEventRecord(starts_[0], stream_));
        PITOT_GPU_TRY(gpuGraphLaunch(graph_exec_, stream_));
        end_span();
        PITOT_GPU_TRY(gpuEventRecord(stops_[0], stream_));
        break;
    }
    ops::probe_clock(kit_, stream_, true, sequence);
    // Across ranks (docs/ranks.md) no rank's blocker lets its work run before every rank has
    // queued its batch, and on one host all release it at one moment of the host's clock: the
    // ranks' timed work then starts together, not one queueing time or one message apart.
    if (agreement_) agreement_->release_together();
  }
  const auto queued = std::chrono::steady_clock::now();
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
  if (untrusted_) PITOT_GPU_TRY(gpuDeviceSynchronize());  // work on non-blocking streams ends inside the batch
  const auto waited = std::chrono::steady_clock::now();
  if (hooks_ && mode_ == Mode::Cold) hooks_->after_batch(stream_, count_);
  // Across ranks the batch is taken again on every rank when any rank's blocker gave up (one rank
  // alone would launch its collectives once more than the others).
  if (agreed_slowest(blocker && signals->timed_out ? 1 : 0) > 0) {
    // The author's launch waited for the blocker: a profiler that serializes the kernels it
    // profiles (ncu -k / --nvtx-include, rocprof) or work that synchronizes with the host. Go on
    // without the blocker for the rest of the process (exec records it) and take this batch again.
    kit_.use_blocker = false;
    if (kclock) {
      activity_flush(matcher_);
      (void)matcher_.take(first, count_);
    }
    return run_batch(clock_ratio_out);
  }
  BatchTimes times;
  if (mode_ == Mode::Cold) {
    for (std::int64_t k = 0; k < count_; ++k) times.seconds += elapsed_seconds(starts_[k], stops_[k]);
  } else {
    times.seconds = elapsed_seconds(starts_[0], stops_[0]);
  }
  times.first = first;
  *clock_ratio_out = ops::clock_ratio(kit_, sequence);
  if (warm_) {
    ++costs_.batches;
    costs_.queue_seconds += seconds_between(batch_start, queued);
    costs_.wait_seconds += seconds_between(queued, waited);
  }
  return times;
}

void DeviceSampler::read_kernel_clock(std::vector<BatchTimes>& batches) {
  const auto read_start = std::chrono::steady_clock::now();
  auto late = [&] {
    for (const BatchTimes& b : batches)
      if (matcher_.incomplete(b.first, count_, records_per_launch_) > 0) return true;
    return false;
  };
  activity_flush(matcher_);
  int flushes = 1;
  for (int i = 0; i < kFlushRetries && late(); ++i) {
    std::this_thread::sleep_for(kFlushRetryWait);
    activity_flush(matcher_);
    ++flushes;
  }
  for (BatchTimes& times : batches) {
    const std::vector<kernel_clock::LaunchTime> launches = matcher_.take(times.first, count_);
    times.events = times.seconds;
    times.seconds = 0;
    for (const auto& l : launches) {
      // Work that queues nothing the clock sees (host work, work queued from another thread) has no
      // device time to read: a clear failure rather than a made-up number.
      if (std::isnan(l.span_ns) && untrusted_)
        throw std::runtime_error("untrusted: a timed call queued no device work the kernel clock could see (work skipped "
                                 "after the first calls, or queued from another thread)");
      if (std::isnan(l.span_ns))
        throw std::runtime_error(current_point() +
                                 ": the kernel clock found no kernel, memcpy or memset of a launch (is the work queued "
                                 "from this thread?); time this benchmark with --clock events");
      records_per_launch_ = std::max(records_per_launch_, static_cast<int>(l.parts.size()));
      if (l.max_waves > max_waves_) {
        max_waves_ = l.max_waves;
        widest_ = l.widest;
      }
      times.seconds += l.span_ns * 1e-9;
      times.busy += l.busy_ns * 1e-9;
    }
    times.kernels.add(launches);
  }
  if (warm_) {
    costs_.clock_flushes += flushes;
    costs_.clock_read_seconds += seconds_between(read_start, std::chrono::steady_clock::now());
  }
}

detail::Sample DeviceSampler::sample() {
  // On CUDA consecutive batches alternate between two states on an H200 (every launch of one
  // batch ~0.3 us slower than the next's: seen in cold, for any kernel). A sample of two batches
  // holds one of each, so samples no longer fall into two groups whose median flips.
  std::vector<BatchTimes> batches;
  batches.reserve(static_cast<std::size_t>(batches_));
  std::vector<double> ratios;
  for (int b = 0; b < batches_; ++b) {
    double ratio = 0;
    batches.push_back(run_batch(&ratio));
    if (!std::isnan(ratio)) ratios.push_back(ratio);
  }
  if (kernel_clock()) read_kernel_clock(batches);
  BatchTimes sum;
  for (const BatchTimes& t : batches) {
    sum.seconds += t.seconds;
    sum.busy += t.busy;
    sum.events += t.events;
    sum.kernels.merge(t.kernels);
  }
  const double launches = static_cast<double>(iterations_per_sample());
  detail::Sample s;
  s.seconds = sum.seconds / launches;
  if (!ratios.empty()) {
    s.clock_ratio = *std::min_element(ratios.begin(), ratios.end());
    s.throttled = s.clock_ratio < throttle_ratio_;
  }
  if (card_log_ && warm_) {  // between samples: the card is idle here
    const auto before = std::chrono::steady_clock::now();
    const int reads = card_log_->reads();
    card_log_->read_if_due();
    if (card_log_->reads() > reads) {
      ++costs_.card_reads;
      costs_.card_read_seconds += seconds_between(before, std::chrono::steady_clock::now());
    }
  }
  if (kernel_clock() && !s.throttled) {  // the engine keeps exactly these samples
    busy_samples_.push_back(sum.busy / launches);
    event_samples_.push_back(sum.events / launches);
    breakdown_.merge(sum.kernels);
  }
  return s;
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

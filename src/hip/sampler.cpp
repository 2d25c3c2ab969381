#include "hip/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include <pitot/benchmark.hpp>

#include "hip/error.hpp"
#include "hip/facts.hpp"
#include "hip/timing.hpp"

namespace pitot::hip {
namespace {

// Launches queued behind the blocker per sample. The hardware queue must hold them all while the
// blocker spins (a full queue stalls the host until the blocker's timeout); HIP graphs are
// dispatched node by node, so a graph counts as many launches as it holds.
constexpr std::int64_t kMaxColdLaunches = 32;  // each: flush, event, work, event
constexpr std::int64_t kMaxHotLaunches = 128;
constexpr std::int64_t kMaxGraphLaunches = 256;
constexpr double kBlockerTimeoutSeconds = 2.0;
// wall_clock64's rate when the runtime cannot say (ROCm 5): 100 MHz on CDNA GPUs.
constexpr std::uint64_t kDefaultWallClockHz = 100'000'000;

// Lets the stream run when the enqueueing scope ends, on an exception too (never leave the
// GPU spinning).
struct ReleaseOnExit {
  HostSignals* signals;
  ~ReleaseOnExit() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    signals->release = 1;
  }
};

double elapsed_seconds(hipEvent_t start, hipEvent_t stop) {
  float ms = 0;
  PITOT_HIP_TRY(hipEventElapsedTime(&ms, start, stop));
  return static_cast<double>(ms) * 1e-3;
}

int device_attribute(hipDeviceAttribute_t attr, int device, const char* name) {
  int value = 0;
  check(hipDeviceGetAttribute(&value, attr, device), name, nullptr, 0);
  return value;
}

std::uint64_t wall_clock_hz(int device) {
#if HIP_VERSION_MAJOR >= 6
  int khz = 0;
  if (hipDeviceGetAttribute(&khz, hipDeviceAttributeWallClockRate, device) == hipSuccess && khz > 0)
    return static_cast<std::uint64_t>(khz) * 1000;
  (void)hipGetLastError();
#else
  (void)device;
#endif
  return kDefaultWallClockHz;
}

std::unique_ptr<DeviceKit> make_kit(int device) {
  auto kit = std::make_unique<DeviceKit>();
  kit->device = device;
  kit->cu_count = device_attribute(hipDeviceAttributeMultiprocessorCount, device,
                                   "hipDeviceGetAttribute(MultiprocessorCount)");
  hipDeviceProp_t prop{};
  PITOT_HIP_TRY(hipGetDeviceProperties(&prop, device));
  kit->arch = gfx_arch(prop.gcnArchName);
  const auto l2 = static_cast<std::size_t>(
      device_attribute(hipDeviceAttributeL2CacheSize, device, "hipDeviceGetAttribute(L2CacheSize)"));
  const char* flush_override = std::getenv("PITOT_HIP_FLUSH_BYTES");
  kit->flush_bytes = flush_override && *flush_override
                         ? parse_flush_bytes(flush_override)
                         : flush_bytes(l2, l2_instances(kit->arch), infinity_cache_bytes(kit->arch));
  kit->flush_bytes = kit->flush_bytes / sizeof(int4) * sizeof(int4);
  PITOT_HIP_TRY(hipMalloc(&kit->flush_buffer, kit->flush_bytes));
  PITOT_HIP_TRY(hipMemset(kit->flush_buffer, 0, kit->flush_bytes));
  PITOT_HIP_TRY(hipDeviceSynchronize());  // our non-blocking streams do not wait for the null stream
  PITOT_HIP_TRY(hipMalloc(reinterpret_cast<void**>(&kit->flush_sink), sizeof(int)));
  PITOT_HIP_TRY(hipHostMalloc(reinterpret_cast<void**>(&kit->signals), sizeof(HostSignals),
                              hipHostMallocMapped | hipHostMallocCoherent));
  PITOT_HIP_TRY(hipHostGetDevicePointer(reinterpret_cast<void**>(&kit->device_signals), kit->signals, 0));
  kit->signals->release = 1;
  kit->signals->timed_out = 0;
  kit->wall_clock_hz = wall_clock_hz(device);
  kit->use_blocker = !profiler_attached([](const char* name) { return std::getenv(name); });

  // Run each of our kernels once now: loading code objects must never happen behind the blocker.
  hipStream_t stream = nullptr;
  hipEvent_t start = nullptr, stop = nullptr;
  PITOT_HIP_TRY(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  PITOT_HIP_TRY(hipEventCreate(&start));
  PITOT_HIP_TRY(hipEventCreate(&stop));
  const int flush_blocks = kit->cu_count * 4;
  PITOT_HIP_TRY(launch_blocker(stream, kit->device_signals, 1));
  PITOT_HIP_TRY(launch_empty(stream));
  PITOT_HIP_TRY(launch_cache_flush(stream, kit->flush_buffer, kit->flush_bytes, kit->flush_sink, flush_blocks));
  // One flush's duration, to size cold samples.
  PITOT_HIP_TRY(hipEventRecord(start, stream));
  for (int i = 0; i < 4; ++i)
    PITOT_HIP_TRY(launch_cache_flush(stream, kit->flush_buffer, kit->flush_bytes, kit->flush_sink, flush_blocks));
  PITOT_HIP_TRY(hipEventRecord(stop, stream));
  PITOT_HIP_TRY(hipStreamSynchronize(stream));
  kit->flush_seconds = elapsed_seconds(start, stop) / 4;
  // The event timer's step, from windows around an empty kernel (they differ by whole ticks).
  std::vector<double> windows;
  for (int i = 0; i < 64; ++i) {
    PITOT_HIP_TRY(hipEventRecord(start, stream));
    PITOT_HIP_TRY(launch_empty(stream));
    PITOT_HIP_TRY(hipEventRecord(stop, stream));
    PITOT_HIP_TRY(hipStreamSynchronize(stream));
    windows.push_back(elapsed_seconds(start, stop));
  }
  const double tick = event_tick_seconds(windows);
  kit->event_resolution_seconds = tick > 0 ? tick : kAssumedEventResolution;

  // A tool that serializes dispatches makes a launch queued behind the blocker wait for it: the
  // blocker then times out (0.1 s here), and samples go without it.
  if (kit->use_blocker) {
    kit->signals->release = 0;
    kit->signals->timed_out = 0;
    {
      ReleaseOnExit release{kit->signals};
      PITOT_HIP_TRY(launch_blocker(stream, kit->device_signals, kit->wall_clock_hz / 10));
      PITOT_HIP_TRY(launch_empty(stream));
    }
    PITOT_HIP_TRY(hipStreamSynchronize(stream));
    kit->use_blocker = !kit->signals->timed_out;
  }
  (void)hipEventDestroy(start);
  (void)hipEventDestroy(stop);
  (void)hipStreamDestroy(stream);
  return kit;
}

std::atomic<bool> profiling_now{false};

}  // namespace

void set_profiling(bool on) { profiling_now = on; }

Mode parse_mode(const std::string& text) {
  if (text == "cold") return Mode::Cold;
  if (text == "hot") return Mode::Hot;
  if (text == "graph") return Mode::Graph;
  throw UsageError("--timing " + text + ": use cold, hot or graph");
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::Cold: return "cold";
    case Mode::Hot: return "hot";
    case Mode::Graph: return "graph";
  }
  return "?";
}

DeviceKit& device_kit(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceKit>> kits;  // kept until the process exits
  std::lock_guard lock(mutex);
  auto& kit = kits[device];
  if (!kit) kit = make_kit(device);
  return *kit;
}

HipSampler::HipSampler(DeviceKit& kit, Mode mode, std::function<void(Launch&)>& work, int rotations,
                       int graph_launches)
    : kit_(kit), mode_(mode), work_(work), rotations_(std::max(1, rotations)), graph_launches_(graph_launches) {
  try {
    PITOT_HIP_TRY(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
    const std::int64_t pairs = mode_ == Mode::Cold ? kMaxColdLaunches : 1;
    starts_.resize(pairs, nullptr);
    stops_.resize(pairs, nullptr);
    for (std::int64_t i = 0; i < pairs; ++i) {
      PITOT_HIP_TRY(hipEventCreate(&starts_[i]));
      PITOT_HIP_TRY(hipEventCreate(&stops_[i]));
    }
  } catch (...) {
    release_resources();
    throw;
  }
}

HipSampler::~HipSampler() { release_resources(); }

void HipSampler::release_resources() noexcept {
  // Errors are ignored here: after a sticky error these calls fail, and nothing can be done.
  if (graph_exec_) (void)hipGraphExecDestroy(graph_exec_);
  if (graph_) (void)hipGraphDestroy(graph_);
  for (auto e : starts_)
    if (e) (void)hipEventDestroy(e);
  for (auto e : stops_)
    if (e) (void)hipEventDestroy(e);
  if (stream_) (void)hipStreamDestroy(stream_);
  graph_exec_ = nullptr;
  graph_ = nullptr;
  starts_.clear();
  stops_.clear();
  stream_ = nullptr;
  if (!device_lost()) (void)hipGetLastError();
}

void HipSampler::finish() { release_resources(); }

void HipSampler::launch_work() {
  Launch launch(stream_, static_cast<int>(launches_++ % rotations_));
  work_(launch);
  // A bad launch configuration shows up here, not at the next synchronization.
  PITOT_HIP_TRY(hipPeekAtLastError());
}

void HipSampler::capture_graph() {
  PITOT_HIP_TRY(hipStreamBeginCapture(stream_, hipStreamCaptureModeThreadLocal));
  try {
    for (std::int64_t i = 0; i < count_; ++i) launch_work();
  } catch (...) {
    hipGraph_t broken = nullptr;
    (void)hipStreamEndCapture(stream_, &broken);
    if (broken) (void)hipGraphDestroy(broken);
    throw;
  }
  PITOT_HIP_TRY(hipStreamEndCapture(stream_, &graph_));
  PITOT_HIP_TRY(hipGraphInstantiate(&graph_exec_, graph_, nullptr, nullptr, 0));
  // One untimed launch uploads the graph (hipGraphUpload is missing from older ROCm).
  PITOT_HIP_TRY(hipGraphLaunch(graph_exec_, stream_));
  PITOT_HIP_TRY(hipStreamSynchronize(stream_));
}

void HipSampler::warmup(double warmup_seconds, double min_sample_seconds) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // One plain launch first: it loads the author's code objects and surfaces errors before timing.
  launch_work();
  PITOT_HIP_TRY(hipStreamSynchronize(stream_));

  // The time of one launch, hot, decides how many launches a sample holds. A launch of a few
  // event steps reads coarsely, so it is timed again in a window of 50 steps.
  const Mode mode = mode_;
  mode_ = Mode::Hot;
  auto shortest_of_three = [&] {
    double one = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 3; ++i) one = std::min(one, sample().seconds);
    return one;
  };
  count_ = 1;
  double one = shortest_of_three();
  const double coarse = 50 * kit_.event_resolution_seconds;
  if (one < coarse) {
    count_ = launches_per_window(one, coarse, kMaxHotLaunches);
    one = shortest_of_three();
  }
  mode_ = mode;
  const double window = sample_window_seconds(min_sample_seconds, kit_.event_resolution_seconds);
  switch (mode_) {
    case Mode::Cold:
      count_ = cold_launches(one, kit_.flush_seconds, window, kit_.event_resolution_seconds, kMaxColdLaunches);
      break;
    case Mode::Hot: count_ = launches_per_window(one, window, kMaxHotLaunches); break;
    case Mode::Graph:
      count_ = graph_launches_ > 0 ? graph_launches_ : launches_per_window(one, window, kMaxGraphLaunches);
      capture_graph();
      break;
  }
  do {
    (void)sample();
  } while (std::chrono::duration<double>(clock::now() - start).count() < warmup_seconds);
}

Sample HipSampler::sample() {
  HostSignals* signals = kit_.signals;
  signals->timed_out = 0;
  signals->release = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const bool blocker = kit_.use_blocker && !profiling_now;
  if (blocker) {
    const auto ticks = static_cast<std::uint64_t>(kBlockerTimeoutSeconds * static_cast<double>(kit_.wall_clock_hz));
    PITOT_HIP_TRY(launch_blocker(stream_, kit_.device_signals, ticks));
  }
  {
    ReleaseOnExit release{signals};
    switch (mode_) {
      case Mode::Cold:
        for (std::int64_t k = 0; k < count_; ++k) {
          PITOT_HIP_TRY(launch_cache_flush(stream_, kit_.flush_buffer, kit_.flush_bytes, kit_.flush_sink, kit_.cu_count * 4));
          PITOT_HIP_TRY(hipEventRecord(starts_[k], stream_));
          launch_work();
          PITOT_HIP_TRY(hipEventRecord(stops_[k], stream_));
        }
        break;
      case Mode::Hot:
        PITOT_HIP_TRY(hipEventRecord(starts_[0], stream_));
        for (std::int64_t k = 0; k < count_; ++k) launch_work();
        PITOT_HIP_TRY(hipEventRecord(stops_[0], stream_));
        break;
      case Mode::Graph:
        PITOT_HIP_TRY(hipEventRecord(starts_[0], stream_));
        PITOT_HIP_TRY(hipGraphLaunch(graph_exec_, stream_));
        PITOT_HIP_TRY(hipEventRecord(stops_[0], stream_));
        break;
    }
  }
  PITOT_HIP_TRY(hipStreamSynchronize(stream_));
  if (blocker && signals->timed_out) {
    // The author's launch waited for the blocker: a tool that serializes dispatches, or work that
    // synchronizes with the host. Go on without the blocker for the rest of the process (exec
    // records it) and take this sample again.
    kit_.use_blocker = false;
    return sample();
  }

  double seconds = 0;
  if (mode_ == Mode::Cold) {
    for (std::int64_t k = 0; k < count_; ++k) seconds += elapsed_seconds(starts_[k], stops_[k]);
  } else {
    seconds = elapsed_seconds(starts_[0], stops_[0]);
  }
  Sample s;
  s.seconds = seconds / static_cast<double>(count_);
  // No clock probe on AMD yet: the clock ratio stays unknown and no sample counts as throttled.
  return s;
}

}  // namespace pitot::hip

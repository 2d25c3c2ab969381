#include "cuda/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include <pitot/benchmark.hpp>

#include "cuda/error.hpp"
#include "cuda/facts.hpp"

namespace pitot::cuda {
namespace {

// Launches queued behind the blocker per sample. The queue must hold them all while the
// blocker spins (a full queue would stall the host until the blocker's timeout).
constexpr std::int64_t kMaxColdLaunches = 32;   // per batch; each: flush, event, work, event
constexpr std::int64_t kMaxHotLaunches = 128;
constexpr std::int64_t kMaxGraphLaunches = 1000;
// GPU time one sample aims at unless the engine asks for more: long enough to average the
// events' 32 ns steps away, short enough for hundreds of samples per second.
constexpr double kDefaultSampleSeconds = 1e-3;
constexpr std::uint64_t kBlockerTimeoutNs = 2'000'000'000;
constexpr int kBatchesPerSample = 2;  // see CudaSampler::sample

// Lets the stream run when the enqueueing scope ends, on an exception too (never leave the
// GPU spinning).
struct ReleaseOnExit {
  HostSignals* signals;
  ~ReleaseOnExit() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    signals->release = 1;
  }
};

double elapsed_seconds(cudaEvent_t start, cudaEvent_t stop) {
  float ms = 0;
  PITOT_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
  return static_cast<double>(ms) * 1e-3;
}

int device_attribute(cudaDeviceAttr attr, int device, const char* name) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, device), name, nullptr, 0);
  return value;
}

std::unique_ptr<DeviceKit> make_kit(int device) {
  auto kit = std::make_unique<DeviceKit>();
  kit->device = device;
  kit->sm_count = device_attribute(cudaDevAttrMultiProcessorCount, device, "cudaDeviceGetAttribute(MultiProcessorCount)");
  kit->nominal_clock_khz = device_attribute(cudaDevAttrClockRate, device, "cudaDeviceGetAttribute(ClockRate)");
  kit->peak_gbytes_per_second = peak_gbytes_per_second(
      device_attribute(cudaDevAttrMemoryClockRate, device, "cudaDeviceGetAttribute(MemoryClockRate)"),
      device_attribute(cudaDevAttrGlobalMemoryBusWidth, device, "cudaDeviceGetAttribute(GlobalMemoryBusWidth)"));
  const auto l2 = static_cast<std::size_t>(device_attribute(cudaDevAttrL2CacheSize, device, "cudaDeviceGetAttribute(L2CacheSize)"));
  // Twice the L2, so no line of the last launch survives the replacement policy.
  kit->flush_bytes = std::max<std::size_t>(2 * l2, std::size_t{8} << 20);
  if (const char* text = std::getenv("PITOT_CUDA_FLUSH_BYTES")) {  // e.g. to match another tool's flush
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || bytes < 16)
      throw UsageError(std::string("PITOT_CUDA_FLUSH_BYTES=") + text + ": give a byte count of at least 16");
    kit->flush_bytes = static_cast<std::size_t>(bytes) / 16 * 16;
  }
  PITOT_CUDA_TRY(cudaMalloc(&kit->flush_buffer, kit->flush_bytes));
  PITOT_CUDA_TRY(cudaMemset(kit->flush_buffer, 0, kit->flush_bytes));
  PITOT_CUDA_TRY(cudaDeviceSynchronize());  // our streams do not wait for the legacy stream
  PITOT_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&kit->flush_sink), sizeof(int)));
  PITOT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&kit->signals), sizeof(HostSignals), cudaHostAllocMapped));
  PITOT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&kit->clocks_before), kMaxSmSlots * sizeof(ClockSlot), cudaHostAllocMapped));
  PITOT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&kit->clocks_after), kMaxSmSlots * sizeof(ClockSlot), cudaHostAllocMapped));
  for (int i = 0; i < kMaxSmSlots; ++i) {
    kit->clocks_before[i].sequence = 0;
    kit->clocks_after[i].sequence = 0;
  }
  kit->signals->release = 1;
  kit->signals->timed_out = 0;

  // Run each of our kernels once now: lazy module loading must never happen behind the blocker.
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  PITOT_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  PITOT_CUDA_TRY(cudaEventCreate(&start));
  PITOT_CUDA_TRY(cudaEventCreate(&stop));
  const int flush_blocks = kit->sm_count * 4;
  PITOT_CUDA_TRY(launch_blocker(stream, kit->signals, kBlockerTimeoutNs));
  PITOT_CUDA_TRY(launch_clock_probe(stream, kit->clocks_before, kit->sm_count, 0));
  PITOT_CUDA_TRY(launch_l2_flush(stream, kit->flush_buffer, kit->flush_bytes, kit->flush_sink, flush_blocks));
  // One flush's duration, to size cold samples.
  PITOT_CUDA_TRY(cudaEventRecord(start, stream));
  for (int i = 0; i < 4; ++i)
    PITOT_CUDA_TRY(launch_l2_flush(stream, kit->flush_buffer, kit->flush_bytes, kit->flush_sink, flush_blocks));
  PITOT_CUDA_TRY(cudaEventRecord(stop, stream));
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream));
  kit->flush_seconds = elapsed_seconds(start, stop) / 4;

  // A tool that serializes launches (ncu, compute-sanitizer) makes a launch queued behind the
  // blocker wait for it: the blocker then times out (0.1 s here), and samples go without it.
  kit->signals->release = 0;
  kit->signals->timed_out = 0;
  {
    ReleaseOnExit release{kit->signals};
    PITOT_CUDA_TRY(launch_blocker(stream, kit->signals, 100'000'000));
    PITOT_CUDA_TRY(launch_clock_probe(stream, kit->clocks_before, kit->sm_count, 0));
  }
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream));
  kit->use_blocker = !kit->signals->timed_out;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  return kit;
}

void reset_persisting_l2() {
  std::size_t limit = 0;
  PITOT_CUDA_TRY(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  if (limit > 0) PITOT_CUDA_TRY(cudaCtxResetPersistingL2Cache());
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

CudaSampler::CudaSampler(DeviceKit& kit, Mode mode, std::function<void(Launch&)>& work, int rotations,
                         int graph_launches, double throttle_ratio)
    : kit_(kit), mode_(mode), work_(work), rotations_(std::max(1, rotations)), graph_launches_(graph_launches),
      throttle_ratio_(throttle_ratio) {
  try {
    PITOT_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const std::int64_t pairs = mode_ == Mode::Cold ? kMaxColdLaunches : 1;
    starts_.resize(pairs, nullptr);
    stops_.resize(pairs, nullptr);
    for (std::int64_t i = 0; i < pairs; ++i) {
      PITOT_CUDA_TRY(cudaEventCreate(&starts_[i]));
      PITOT_CUDA_TRY(cudaEventCreate(&stops_[i]));
    }
  } catch (...) {
    release_resources();
    throw;
  }
}

CudaSampler::~CudaSampler() { release_resources(); }

void CudaSampler::release_resources() noexcept {
  // Errors are ignored here: after a sticky error these calls fail, and nothing can be done.
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (graph_) cudaGraphDestroy(graph_);
  for (auto e : starts_)
    if (e) cudaEventDestroy(e);
  for (auto e : stops_)
    if (e) cudaEventDestroy(e);
  if (stream_) cudaStreamDestroy(stream_);
  graph_exec_ = nullptr;
  graph_ = nullptr;
  starts_.clear();
  stops_.clear();
  stream_ = nullptr;
  if (!device_lost()) (void)cudaGetLastError();
}

void CudaSampler::finish() { release_resources(); }

void CudaSampler::launch_work() {
  Launch launch(stream_, static_cast<int>(launches_++ % rotations_));
  work_(launch);
  // A bad launch configuration shows up here, not at the next synchronization.
  PITOT_CUDA_TRY(cudaPeekAtLastError());
}

void CudaSampler::capture_graph() {
  PITOT_CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  try {
    for (std::int64_t i = 0; i < count_; ++i) launch_work();
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(stream_, &broken);
    if (broken) cudaGraphDestroy(broken);
    throw;
  }
  PITOT_CUDA_TRY(cudaStreamEndCapture(stream_, &graph_));
  PITOT_CUDA_TRY(cudaGraphInstantiate(&graph_exec_, graph_, 0));
  PITOT_CUDA_TRY(cudaGraphUpload(graph_exec_, stream_));
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream_));
}

void CudaSampler::warmup(double warmup_seconds, double min_sample_seconds) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  // One plain launch first: it loads the author's modules and surfaces errors before timing.
  launch_work();
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream_));

  // The time of one launch, hot, decides how many launches a sample holds.
  const Mode mode = mode_;
  mode_ = Mode::Hot;
  count_ = 1;
  batches_ = 1;
  double one = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) one = std::min(one, sample().seconds);
  mode_ = mode;
  batches_ = kBatchesPerSample;
  const double target = min_sample_seconds > 0 ? min_sample_seconds : kDefaultSampleSeconds;
  auto launches_for = [&](double per_launch, std::int64_t most) {  // per batch
    const double n = std::round(target / kBatchesPerSample / std::max(per_launch, 1e-9));
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(n), 1, most);
  };
  switch (mode_) {
    case Mode::Cold: count_ = launches_for(one + kit_.flush_seconds, kMaxColdLaunches); break;
    case Mode::Hot: count_ = launches_for(one, kMaxHotLaunches); break;
    case Mode::Graph:
      count_ = graph_launches_ > 0 ? graph_launches_ : launches_for(one, kMaxGraphLaunches);
      capture_graph();
      break;
  }
  do {
    (void)sample();
  } while (std::chrono::duration<double>(clock::now() - start).count() < warmup_seconds);
}

double CudaSampler::run_batch(double* clock_ratio) {
  if (mode_ == Mode::Cold) reset_persisting_l2();
  const std::uint64_t sequence = ++kit_.sequence;
  HostSignals* signals = kit_.signals;
  signals->timed_out = 0;
  signals->release = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const bool blocker = kit_.use_blocker && !profiling_now;
  if (blocker) PITOT_CUDA_TRY(launch_blocker(stream_, signals, kBlockerTimeoutNs));
  {
    ReleaseOnExit release{signals};
    PITOT_CUDA_TRY(launch_clock_probe(stream_, kit_.clocks_before, kit_.sm_count, sequence));
    switch (mode_) {
      case Mode::Cold:
        for (std::int64_t k = 0; k < count_; ++k) {
          PITOT_CUDA_TRY(launch_l2_flush(stream_, kit_.flush_buffer, kit_.flush_bytes, kit_.flush_sink, kit_.sm_count * 4));
          PITOT_CUDA_TRY(cudaEventRecord(starts_[k], stream_));
          launch_work();
          PITOT_CUDA_TRY(cudaEventRecord(stops_[k], stream_));
        }
        break;
      case Mode::Hot:
        PITOT_CUDA_TRY(cudaEventRecord(starts_[0], stream_));
        for (std::int64_t k = 0; k < count_; ++k) launch_work();
        PITOT_CUDA_TRY(cudaEventRecord(stops_[0], stream_));
        break;
      case Mode::Graph:
        PITOT_CUDA_TRY(cudaEventRecord(starts_[0], stream_));
        PITOT_CUDA_TRY(cudaGraphLaunch(graph_exec_, stream_));
        PITOT_CUDA_TRY(cudaEventRecord(stops_[0], stream_));
        break;
    }
    PITOT_CUDA_TRY(launch_clock_probe(stream_, kit_.clocks_after, kit_.sm_count, sequence));
  }
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream_));
  if (blocker && signals->timed_out) {
    // The author's launch waited for the blocker: a profiler that serializes the kernels it
    // profiles (ncu -k / --nvtx-include) or work that synchronizes with the host. Go on
    // without the blocker for the rest of the process (exec records it) and take this batch again.
    kit_.use_blocker = false;
    return run_batch(clock_ratio);
  }
  double seconds = 0;
  if (mode_ == Mode::Cold) {
    for (std::int64_t k = 0; k < count_; ++k) seconds += elapsed_seconds(starts_[k], stops_[k]);
  } else {
    seconds = elapsed_seconds(starts_[0], stops_[0]);
  }
  *clock_ratio = sm_clock_ratio(sequence);
  return seconds;
}

Sample CudaSampler::sample() {
  // Consecutive batches alternate between two states on an H200 (every launch of one batch
  // ~0.3 us slower than the next's: seen in cold, for any kernel). A sample of two batches
  // holds one of each, so samples no longer fall into two groups whose median flips.
  double seconds = 0;
  std::vector<double> ratios;
  for (int b = 0; b < batches_; ++b) {
    double ratio = 0;
    seconds += run_batch(&ratio);
    if (!std::isnan(ratio)) ratios.push_back(ratio);
  }
  Sample s;
  s.seconds = seconds / static_cast<double>(iterations_per_sample());
  if (!ratios.empty()) {
    s.clock_ratio = *std::min_element(ratios.begin(), ratios.end());
    s.throttled = s.clock_ratio < throttle_ratio_;
  }
  return s;
}

void CudaSampler::run_once() {
  launch_work();
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream_));
}

// SM clock over the sample / nominal clock, from the multiprocessors both probes ran on
// (clock64 counts per multiprocessor, so the two reads must come from the same one).
double CudaSampler::sm_clock_ratio(std::uint64_t sequence) const {
  std::vector<double> ratios;
  for (int sm = 0; sm < kMaxSmSlots; ++sm) {
    const ClockSlot& a = kit_.clocks_before[sm];
    const ClockSlot& b = kit_.clocks_after[sm];
    if (a.sequence != sequence || b.sequence != sequence) continue;
    const double ns = static_cast<double>(b.time_ns - a.time_ns);
    if (b.time_ns <= a.time_ns || ns < 20e3) continue;  // the global timer is too coarse below ~20 us
    const double ghz = static_cast<double>(b.clock - a.clock) / ns;
    ratios.push_back(ghz / (kit_.nominal_clock_khz * 1e-6));
  }
  if (ratios.empty() || !(kit_.nominal_clock_khz > 0)) return std::numeric_limits<double>::quiet_NaN();
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

}  // namespace pitot::cuda

// The CUDA side of the shared sampler (src/gpu/sampler.hpp), its device operations
// (src/gpu/device_ops.hpp): the device kit, two batches per sample, the persisting-L2 reset and the
// L2 flush before cold launches, the blocker's timeout in nanoseconds, the SM clock probe around
// each batch, graph upload.
#include "cuda/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include <pitot/benchmark.hpp>

#include "card/nvml.hpp"
#include "cuda/error.hpp"
#include "cuda/facts.hpp"
#include "gpu/sampler.hpp"

namespace pitot::cuda {
namespace {

constexpr std::int64_t kMaxGraphLaunches = 1000;
// GPU time one sample aims at unless the engine asks for more: long enough to average the
// events' 32 ns steps away, short enough for hundreds of samples per second.
constexpr double kDefaultSampleSeconds = 1e-3;
constexpr std::uint64_t kBlockerTimeoutNs = 2'000'000'000;
constexpr int kBatchesPerSample = 2;  // see DeviceSampler::sample

int device_attribute(cudaDeviceAttr attr, int device, const char* name) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, device), name, nullptr, 0);
  return value;
}

void reset_persisting_l2() {
  std::size_t limit = 0;
  PITOT_CUDA_TRY(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  if (limit > 0) PITOT_CUDA_TRY(cudaCtxResetPersistingL2Cache());
}

}  // namespace

namespace ops {

std::unique_ptr<DeviceKit> make_kit(int device) {
  auto kit = std::make_unique<CudaKit>();
  kit->device = device;
  kit->sm_count = device_attribute(cudaDevAttrMultiProcessorCount, device, "cudaDeviceGetAttribute(MultiProcessorCount)");
  kit->nominal_clock_khz = device_attribute(cudaDevAttrClockRate, device, "cudaDeviceGetAttribute(ClockRate)");
  kit->peak_gbytes_per_second = peak_gbytes_per_second(
      device_attribute(cudaDevAttrMemoryClockRate, device, "cudaDeviceGetAttribute(MemoryClockRate)"),
      device_attribute(cudaDevAttrGlobalMemoryBusWidth, device, "cudaDeviceGetAttribute(GlobalMemoryBusWidth)"));
  kit->peak_tflops = peak_tflops(
      device_attribute(cudaDevAttrComputeCapabilityMajor, device, "cudaDeviceGetAttribute(ComputeCapabilityMajor)"),
      kit->sm_count, kit->nominal_clock_khz);
  const auto l2 = static_cast<std::size_t>(device_attribute(cudaDevAttrL2CacheSize, device, "cudaDeviceGetAttribute(L2CacheSize)"));
  kit->l2_bytes = l2;
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
  PITOT_CUDA_TRY(cuda::launch_blocker(stream, kit->signals, kBlockerTimeoutNs));
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
    ReleaseOnExit<HostSignals> release{kit->signals};
    PITOT_CUDA_TRY(cuda::launch_blocker(stream, kit->signals, 100'000'000));
    PITOT_CUDA_TRY(launch_clock_probe(stream, kit->clocks_before, kit->sm_count, 0));
  }
  PITOT_CUDA_TRY(cudaStreamSynchronize(stream));
  kit->use_blocker = !kit->signals->timed_out;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == cudaSuccess) {
    if (const card::NvmlApi* nvml = card::system_nvml(&kit->card_missing))
      kit->card = card::open_nvml(*nvml, bus_id, &kit->card_missing);
  } else {
    (void)cudaGetLastError();
    kit->card_missing = "cudaDeviceGetPCIBusId failed: NVML cannot be asked about this device";
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  return kit;
}

SampleSize size_sample(const DeviceKit& any_kit, Mode mode, double min_sample_seconds, int graph_launches,
                       const HotSeconds& hot_seconds) {
  const CudaKit& kit = cuda_kit(any_kit);
  const double one = hot_seconds(1);
  SampleSize size;
  size.batches = kBatchesPerSample;
  const double target = min_sample_seconds > 0 ? min_sample_seconds : kDefaultSampleSeconds;
  auto launches_for = [&](double per_launch, std::int64_t most) {  // per batch
    const double n = std::round(target / kBatchesPerSample / std::max(per_launch, 1e-9));
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(n), 1, most);
  };
  switch (mode) {
    case Mode::Cold: size.launches = launches_for(one + kit.flush_seconds, kMaxColdLaunches); break;
    case Mode::Hot: size.launches = launches_for(one, kMaxHotLaunches); break;
    case Mode::Graph: size.launches = graph_launches > 0 ? graph_launches : launches_for(one, kMaxGraphLaunches); break;
  }
  return size;
}

void before_batch(DeviceKit&, Mode mode) {
  if (mode == Mode::Cold) reset_persisting_l2();
}

std::string untrusted_begin(DeviceKit&) {
  PITOT_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  PITOT_CUDA_TRY(cudaCtxResetPersistingL2Cache());
  return "";
}

std::string untrusted_before_batch(DeviceKit&) {
  // untrusted_begin set the limit to 0: only the benchmark can have raised it since.
  std::size_t limit = 0;
  PITOT_CUDA_TRY(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  PITOT_CUDA_TRY(cudaCtxResetPersistingL2Cache());
  if (limit == 0) return "";
  PITOT_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  return "the benchmark set a persisting-L2 limit of " + std::to_string(limit) +
         " bytes (data pinned in L2 survives the cache flush)";
}

void wait_for_device(DeviceKit& any_kit, cudaStream_t stream) {
  // An event on the legacy stream completes after all work queued before it on every blocking
  // stream (the benchmark's cudaStreamCreate streams and stream 0); `stream` waits for it.
  CudaKit& kit = cuda_kit(any_kit);
  if (!kit.legacy_mark) PITOT_CUDA_TRY(cudaEventCreateWithFlags(&kit.legacy_mark, cudaEventDisableTiming));
  PITOT_CUDA_TRY(cudaEventRecord(kit.legacy_mark, cudaStreamLegacy));
  PITOT_CUDA_TRY(cudaStreamWaitEvent(stream, kit.legacy_mark, 0));
}

void launch_blocker(DeviceKit& kit, cudaStream_t stream) {
  PITOT_CUDA_TRY(cuda::launch_blocker(stream, kit.signals, kBlockerTimeoutNs));
}

void launch_flush(DeviceKit& any_kit, cudaStream_t stream) {
  const CudaKit& kit = cuda_kit(any_kit);
  PITOT_CUDA_TRY(launch_l2_flush(stream, kit.flush_buffer, kit.flush_bytes, kit.flush_sink, kit.sm_count * 4));
}

void probe_clock(DeviceKit& any_kit, cudaStream_t stream, bool after, std::uint64_t sequence) {
  const CudaKit& kit = cuda_kit(any_kit);
  PITOT_CUDA_TRY(launch_clock_probe(stream, after ? kit.clocks_after : kit.clocks_before, kit.sm_count, sequence));
}

void instantiate_graph(cudaGraph_t graph, cudaGraphExec_t* exec, cudaStream_t stream) {
  PITOT_CUDA_TRY(cudaGraphInstantiate(exec, graph, 0));
  PITOT_CUDA_TRY(cudaGraphUpload(*exec, stream));
}

// SM clock over the sample / nominal clock, from the multiprocessors both probes ran on
// (clock64 counts per multiprocessor, so the two reads must come from the same one).
double clock_ratio(const DeviceKit& any_kit, std::uint64_t sequence) {
  const CudaKit& kit = cuda_kit(any_kit);
  std::vector<double> ratios;
  for (int sm = 0; sm < kMaxSmSlots; ++sm) {
    const ClockSlot& a = kit.clocks_before[sm];
    const ClockSlot& b = kit.clocks_after[sm];
    if (a.sequence != sequence || b.sequence != sequence) continue;
    const double ns = static_cast<double>(b.time_ns - a.time_ns);
    if (b.time_ns <= a.time_ns || ns < 20e3) continue;  // the global timer is too coarse below ~20 us
    const double ghz = static_cast<double>(b.clock - a.clock) / ns;
    ratios.push_back(ghz / (kit.nominal_clock_khz * 1e-6));
  }
  if (ratios.empty() || !(kit.nominal_clock_khz > 0)) return std::numeric_limits<double>::quiet_NaN();
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

}  // namespace ops
}  // namespace pitot::cuda

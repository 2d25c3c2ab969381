// The HIP side of the shared sampler (src/gpu/sampler.hpp), its device operations
// (src/gpu/device_ops.hpp): the device kit, one batch per sample sized for the measured event
// resolution, the L2 + Infinity Cache flush before cold launches, the blocker's timeout in
// wall_clock64 ticks, no clock probe, graph upload by one untimed launch, the card read through
// AMD SMI (src/card/amdsmi.hpp).
#include "hip/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include <pitot/benchmark.hpp>

#include "card/amdsmi.hpp"
#include "gpu/sampler.hpp"
#include "hip/error.hpp"
#include "hip/facts.hpp"
#include "hip/timing.hpp"

namespace pitot::hip {
namespace {

// HIP graphs are dispatched node by node, so a graph counts as many launches as it holds: the
// hardware queue must hold them all while the blocker spins.
constexpr std::int64_t kMaxGraphLaunches = 256;
constexpr double kBlockerTimeoutSeconds = 2.0;
// wall_clock64's rate when the runtime cannot say (ROCm 5): 100 MHz on CDNA GPUs.
constexpr std::uint64_t kDefaultWallClockHz = 100'000'000;

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

}  // namespace

namespace ops {

std::unique_ptr<DeviceKit> make_kit(int device) {
  auto kit = std::make_unique<HipKit>();
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
  PITOT_HIP_TRY(hip::launch_blocker(stream, kit->device_signals, 1));
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
      ReleaseOnExit<HostSignals> release{kit->signals};
      PITOT_HIP_TRY(hip::launch_blocker(stream, kit->device_signals, kit->wall_clock_hz / 10));
      PITOT_HIP_TRY(launch_empty(stream));
    }
    PITOT_HIP_TRY(hipStreamSynchronize(stream));
    kit->use_blocker = !kit->signals->timed_out;
  }
  char bus_id[32] = {};
  if (hipDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == hipSuccess) {
    if (const card::AmdSmiApi* smi = card::system_amdsmi(&kit->card_missing))
      kit->card = card::open_amdsmi(*smi, bus_id, &kit->card_missing);
  } else {
    (void)hipGetLastError();
    kit->card_missing = "hipDeviceGetPCIBusId failed: amd-smi cannot be asked about this device";
  }
  (void)hipEventDestroy(start);
  (void)hipEventDestroy(stop);
  (void)hipStreamDestroy(stream);
  return kit;
}

SampleSize size_sample(const DeviceKit& any_kit, Mode mode, double min_sample_seconds, int graph_launches,
                       const HotSeconds& hot_seconds) {
  // A launch of a few event steps reads coarsely, so it is timed again in a window of 50 steps.
  // A sample is one batch.
  const HipKit& kit = hip_kit(any_kit);
  double one = hot_seconds(1);
  const double coarse = 50 * kit.event_resolution_seconds;
  if (one < coarse) one = hot_seconds(launches_per_window(one, coarse, kMaxHotLaunches));
  const double window = sample_window_seconds(min_sample_seconds, kit.event_resolution_seconds);
  SampleSize size;
  switch (mode) {
    case Mode::Cold:
      size.launches = cold_launches(one, kit.flush_seconds, window, kit.event_resolution_seconds, kMaxColdLaunches);
      break;
    case Mode::Hot: size.launches = launches_per_window(one, window, kMaxHotLaunches); break;
    case Mode::Graph:
      size.launches = graph_launches > 0 ? graph_launches : launches_per_window(one, window, kMaxGraphLaunches);
      break;
  }
  return size;
}

void before_batch(DeviceKit&, Mode) {}

// The untrusted mode is CUDA's for now (docs/untrusted.md): exec refuses it here.
std::string untrusted_begin(DeviceKit&) { return "not on HIP yet: run untrusted points on a CUDA GPU"; }
std::string untrusted_before_batch(DeviceKit&) { return ""; }
void wait_for_device(DeviceKit&, hipStream_t) {}

void launch_blocker(DeviceKit& any_kit, hipStream_t stream) {
  const HipKit& kit = hip_kit(any_kit);
  const auto ticks = static_cast<std::uint64_t>(kBlockerTimeoutSeconds * static_cast<double>(kit.wall_clock_hz));
  PITOT_HIP_TRY(hip::launch_blocker(stream, kit.device_signals, ticks));
}

void launch_flush(DeviceKit& any_kit, hipStream_t stream) {
  const HipKit& kit = hip_kit(any_kit);
  PITOT_HIP_TRY(launch_cache_flush(stream, kit.flush_buffer, kit.flush_bytes, kit.flush_sink, kit.cu_count * 4));
}

// No clock probe on AMD yet: the clock ratio stays unknown and no sample counts as throttled.
void probe_clock(DeviceKit&, hipStream_t, bool, std::uint64_t) {}

double clock_ratio(const DeviceKit&, std::uint64_t) { return std::numeric_limits<double>::quiet_NaN(); }

void instantiate_graph(hipGraph_t graph, hipGraphExec_t* exec, hipStream_t stream) {
  PITOT_HIP_TRY(hipGraphInstantiate(exec, graph, nullptr, nullptr, 0));
  // One untimed launch uploads the graph (hipGraphUpload is missing from older ROCm).
  PITOT_HIP_TRY(hipGraphLaunch(*exec, stream));
}

}  // namespace ops
}  // namespace pitot::hip

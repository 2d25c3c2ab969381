// The seam between the shared sampler (src/gpu) and a backend (src/cuda, src/hip): what timing
// needs of the device that differs by runtime. src/gpu declares it here and includes nothing of
// the backends; each backend defines every function below in its sampler.cpp (the arrows go one
// way: backend -> gpu -> core). Plain functions, not virtual ones: each library is built for one
// backend, so each has exactly one definition, called directly (the flush once per cold launch,
// the rest once per batch or per point). exec's own hooks (device selection, what a point records
// of the kit, the DeviceBackend) are in src/gpu/backend.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "card/card.hpp"
#include "core/settings.hpp"
#include "gpu/api.hpp"
#include "gpu/signals.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

// The timing mode (--timing), parsed at the command line (src/core/settings.hpp).
using Mode = pitot::Timing;

// What the shared code keeps per device for the whole process. Each backend's kit derives from it
// with its own state (src/<backend>/sampler.hpp); ops::make_kit is the only maker, so a backend's
// hooks may take the kit they are given as their own. Points never run at the same time, and
// every sample ends synchronized, so one kit serves them all.
struct DeviceKit {
  DeviceKit() = default;
  DeviceKit(const DeviceKit&) = delete;
  DeviceKit& operator=(const DeviceKit&) = delete;
  virtual ~DeviceKit() = default;

  std::size_t flush_bytes = 0;     // what the cache flush reads (recorded per cold point)
  double flush_seconds = 0;        // one flush, measured when the kit is made
  HostSignals* signals = nullptr;  // the blocker's flags, host side
  std::uint64_t sequence = 0;      // numbers the batches of the process, for the clock probe
  // Off when a tool serializes launches (ncu, compute-sanitizer, rocprofv3): a launch queued
  // behind the spinning blocker would wait for it until its timeout. Found out when the kit is
  // made, or later by a batch whose blocker timed out.
  bool use_blocker = true;
  // The card's clocks, temperature, power and energy; null, with the reason in card_missing,
  // where they cannot be read.
  std::unique_ptr<card::Card> card;
  std::string card_missing;
  // The card's latest reading, which the points share (card::PointLog).
  std::optional<card::Reading> last_card_reading;
};

// How many launches a batch queues behind the blocker, and how many batches make a sample.
struct SampleSize {
  std::int64_t launches = 1;
  int batches = 1;
};
// Seconds of one hot launch: the shortest of three hot samples of `launches` launches (one batch
// each). The sampler gives it to ops::size_sample.
using HotSeconds = std::function<double(std::int64_t launches)>;

namespace ops {

// Makes the kit of `device` (the calling thread has selected the device).
std::unique_ptr<DeviceKit> make_kit(int device);
// The size of a sample in `mode`, from the time of hot launches, at least `min_sample_seconds`
// of GPU time where that is given (0: the backend's default); `graph_launches` > 0 fixes a
// graph's launches (--graph-launches).
SampleSize size_sample(const DeviceKit& kit, Mode mode, double min_sample_seconds, int graph_launches,
                       const HotSeconds& hot_seconds);
// Before each batch, e.g. reset state a flush cannot reach.
void before_batch(DeviceKit& kit, Mode mode);
// --untrusted (docs/untrusted.md). At the point's start: the persisting-L2 limit set to 0 and its
// lines reset; a reason when the backend cannot run untrusted ("" when it can).
std::string untrusted_begin(DeviceKit& kit);
// Before each batch: the persisting lines reset; a reason when the benchmark raised the limit.
std::string untrusted_before_batch(DeviceKit& kit);
// Makes `stream` wait for all work queued so far on the device's blocking streams (before a
// sample's stop event: work the benchmark moved to a stream of its own is inside the span).
void wait_for_device(DeviceKit& kit, gpuStream_t stream);
// The spinning kernel at a batch's start (released by kit.signals).
void launch_blocker(DeviceKit& kit, gpuStream_t stream);
// The cache flush before each cold launch.
void launch_flush(DeviceKit& kit, gpuStream_t stream);
// The clock probe before (after = false) and after a batch's launches.
void probe_clock(DeviceKit& kit, gpuStream_t stream, bool after, std::uint64_t sequence);
// The clock ratio of the batch just run, from its probes; NaN: unknown.
double clock_ratio(const DeviceKit& kit, std::uint64_t sequence);
// Instantiates `graph` into *exec, uploaded to the device before it is timed.
void instantiate_graph(gpuGraph_t graph, gpuGraphExec_t* exec, gpuStream_t stream);

}  // namespace ops
}  // namespace pitot::PITOT_GPU_NAMESPACE

// Timing HIP work: the per-device kit (flush buffer, host-mapped flags, event resolution) and
// the sampler that takes one cold, hot or graph sample per call. Mirrors src/cuda/sampler.hpp.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <pitot/hip.hpp>
#include <pitot/state.hpp>

#include "hip/kernels.hpp"

namespace pitot::hip {

enum class Mode { Cold, Hot, Graph };
// "cold" | "hot" | "graph"; throws pitot::UsageError otherwise.
Mode parse_mode(const std::string& text);
const char* mode_name(Mode mode);

// What the backend keeps per device for the whole process. Points never run at the same time,
// and every sample ends synchronized, so one kit serves them all.
struct DeviceKit {
  int device = 0;
  int cu_count = 0;
  std::string arch;                       // "gfx942"
  std::size_t flush_bytes = 0;            // 2 x (every XCD's L2 + Infinity Cache), or PITOT_HIP_FLUSH_BYTES
  void* flush_buffer = nullptr;
  int* flush_sink = nullptr;
  double flush_seconds = 0;               // one flush, measured when the kit is made
  double event_resolution_seconds = 0;    // the event timer's step, measured when the kit is made
  std::uint64_t wall_clock_hz = 0;        // wall_clock64's rate, for the blocker's timeout
  HostSignals* signals = nullptr;         // host side of the coherent, mapped flags
  HostSignals* device_signals = nullptr;  // the same memory as the GPU addresses it
  // Off when a profiler is injected (rocprofv3, rocprof): it may serialize dispatches, so a launch
  // queued behind the spinning blocker would wait for it until its timeout.
  bool use_blocker = true;
};
// Between profiler start and stop no blocker is queued: profilers may serialize the dispatches they
// record, and a launch behind the spinning blocker would wait for it.
void set_profiling(bool on);

// The kit of `device`, made on first use (the calling thread must have selected the device).
DeviceKit& device_kit(int device);

class HipSampler final : public Sampler {
 public:
  HipSampler(DeviceKit& kit, Mode mode, std::function<void(Launch&)>& work, int rotations, int graph_launches);
  ~HipSampler() override;
  HipSampler(const HipSampler&) = delete;
  HipSampler& operator=(const HipSampler&) = delete;

  const char* backend() const override { return "hip"; }
  void warmup(double warmup_seconds, double min_sample_seconds) override;
  Sample sample() override;
  std::int64_t iterations_per_sample() const override { return count_; }
  void finish() override;

 private:
  void launch_work();  // one call of the author's work, on the next rotation
  void capture_graph();
  void release_resources() noexcept;

  DeviceKit& kit_;
  Mode mode_;
  std::function<void(Launch&)>& work_;
  int rotations_;
  int graph_launches_;
  hipStream_t stream_ = nullptr;
  std::vector<hipEvent_t> starts_, stops_;
  hipGraph_t graph_ = nullptr;
  hipGraphExec_t graph_exec_ = nullptr;
  std::int64_t count_ = 1;  // launches per sample
  std::int64_t launches_ = 0;
};

}  // namespace pitot::hip

// Timing CUDA work: the per-device kit (flush buffer, host-mapped flags) and the sampler
// that takes one cold, hot or graph sample per call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <pitot/cuda.hpp>
#include <pitot/state.hpp>

#include "cuda/kernels.hpp"

namespace pitot::cuda {

enum class Mode { Cold, Hot, Graph };
// "cold" | "hot" | "graph"; throws pitot::UsageError otherwise.
Mode parse_mode(const std::string& text);
const char* mode_name(Mode mode);
// Between profiler start and stop the sampler queues no blocker: a profiler serializes the
// launches it records, so a launch behind the spinning blocker would wait for it.
void set_profiling(bool on);

// What the backend keeps per device for the whole process. Points never run at the same time,
// and every sample ends synchronized, so one kit serves them all.
struct DeviceKit {
  int device = 0;
  int sm_count = 0;
  double nominal_clock_khz = 0;  // cudaDevAttrClockRate
  double peak_gbytes_per_second = 0;
  std::size_t flush_bytes = 0;   // twice the L2
  void* flush_buffer = nullptr;
  int* flush_sink = nullptr;
  double flush_seconds = 0;      // one flush, measured when the kit is made
  HostSignals* signals = nullptr;                     // host-mapped
  ClockSlot* clocks_before = nullptr;                 // host-mapped, kMaxSmSlots each
  ClockSlot* clocks_after = nullptr;
  std::uint64_t sequence = 0;
  // Off when a tool serializes launches (ncu, compute-sanitizer): a launch queued behind the
  // spinning blocker would wait for it until its timeout. Found out when the kit is made.
  bool use_blocker = true;
};
// The kit of `device`, made on first use (the calling thread must have selected the device).
DeviceKit& device_kit(int device);

class CudaSampler final : public Sampler {
 public:
  CudaSampler(DeviceKit& kit, Mode mode, std::function<void(Launch&)>& work, int rotations, int graph_launches,
              double throttle_ratio);
  ~CudaSampler() override;
  CudaSampler(const CudaSampler&) = delete;
  CudaSampler& operator=(const CudaSampler&) = delete;

  const char* backend() const override { return "cuda"; }
  void warmup(double warmup_seconds, double min_sample_seconds) override;
  Sample sample() override;
  void run_once() override;
  std::int64_t iterations_per_sample() const override { return count_ * batches_; }
  void finish() override;

 private:
  void launch_work();  // one call of the author's work, on the next rotation
  double run_batch(double* clock_ratio);  // count_ launches behind one blocker; summed seconds
  void capture_graph();
  double sm_clock_ratio(std::uint64_t sequence) const;
  void release_resources() noexcept;

  DeviceKit& kit_;
  Mode mode_;
  std::function<void(Launch&)>& work_;
  int rotations_;
  int graph_launches_;
  double throttle_ratio_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> starts_, stops_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  std::int64_t count_ = 1;  // launches per batch (in graph mode: per graph)
  int batches_ = 1;         // batches per sample
  std::int64_t launches_ = 0;
};

}  // namespace pitot::cuda

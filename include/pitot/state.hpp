// State: what a benchmark function sees of its point, and how it hands the engine work to time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <pitot/axis.hpp>

namespace pitot {

class Launch;  // CUDA/HIP launch context, defined by <pitot/cuda.hpp> / <pitot/hip.hpp>
struct PointRun;  // engine-side bookkeeping of one point (src/core)

// One timed sample: seconds per iteration, plus what the backend knows about it.
struct Sample {
  double seconds = 0.0;
  // Measured SM clock over the sample divided by the nominal clock; NaN when unknown.
  double clock_ratio = std::numeric_limits<double>::quiet_NaN();
  // The backend saw the device throttled during this sample: the engine discards it.
  bool throttled = false;
};

// A backend's way of taking samples of one piece of work. The engine owns the schedule
// (warm-up, batches, stopping rule); the sampler only knows how to take one sample.
class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual const char* backend() const = 0;
  // Run the work untimed until warm (at least once), and choose iterations per sample.
  virtual void warmup(double warmup_seconds, double min_sample_seconds) = 0;
  virtual Sample sample() = 0;
  // Profile mode: the work once and nothing else (no flush or clock kernels), so a profiler's
  // capture range holds exactly the author's launches. Device samplers wait for it to finish.
  virtual void run_once() { (void)sample(); }
  virtual std::int64_t iterations_per_sample() const = 0;
  // Called once when sampling ends (release buffers, streams).
  virtual void finish() {}
};

// Host steady-clock sampler: times `number` back-to-back calls and divides.
template <class F>
class CpuSampler final : public Sampler {
 public:
  explicit CpuSampler(F& work) : work_(work) {}
  const char* backend() const override { return "cpu"; }
  void warmup(double warmup_seconds, double min_sample_seconds) override {
    using clock = std::chrono::steady_clock;
    // 100 µs per sample keeps the clock's resolution and call overhead under 0.1%.
    if (min_sample_seconds <= 0) min_sample_seconds = 1e-4;
    auto start = clock::now();
    do {
      double t = time_calls(number_);
      // Grow the inner loop until one sample is long enough to time well.
      while (t * number_ < min_sample_seconds && number_ < (std::int64_t{1} << 40)) {
        number_ *= 2;
        t = time_calls(number_);
      }
    } while (std::chrono::duration<double>(clock::now() - start).count() < warmup_seconds);
  }
  Sample sample() override { return Sample{time_calls(number_)}; }
  std::int64_t iterations_per_sample() const override { return number_; }

 private:
  double time_calls(std::int64_t n) {
    auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < n; ++i) work_();
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(n);
  }
  F& work_;
  std::int64_t number_ = 1;
};

// Manual timing: the work reports its own seconds per iteration.
template <class F>
class ManualSampler final : public Sampler {
 public:
  explicit ManualSampler(F& work) : work_(work) {}
  const char* backend() const override { return "manual"; }
  void warmup(double warmup_seconds, double) override {
    auto start = std::chrono::steady_clock::now();
    do {
      (void)work_();
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             warmup_seconds);
  }
  Sample sample() override { return Sample{static_cast<double>(work_())}; }
  std::int64_t iterations_per_sample() const override { return 1; }

 private:
  F& work_;
};

class State {
 public:
  explicit State(PointRun& run) : run_(run) {}
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // Axis values of this point. Throws pitot::UsageError when the axis is unknown or of another kind.
  std::int64_t get_int(std::string_view axis) const;
  double get_float(std::string_view axis) const;  // int axes convert too
  const std::string& get_string(std::string_view axis) const;

  // Skip this point (asv shows it as n/a). Later exec calls do nothing.
  void skip(std::string reason);
  bool skipped() const;

  // Work done by one iteration of the timed region; each becomes a throughput track.
  void add_items(double n);
  void add_bytes(double n);  // bytes read plus bytes written
  void add_flops(double n);

  // Time `work`. A callable taking no argument is timed on the host clock; one taking a
  // pitot::Launch& is timed on the GPU (include <pitot/cuda.hpp>).
  template <class F>
  void exec(F&& work) {
    if constexpr (std::is_invocable_v<F&, Launch&>) {
      exec_device(std::function<void(Launch&)>(std::forward<F>(work)));
    } else {
      static_assert(std::is_invocable_v<F&>, "exec takes a callable of () or (pitot::Launch&)");
      CpuSampler<std::remove_reference_t<F>> sampler(work);
      run(sampler);
    }
  }

  // Manual timing: `work` runs one iteration and returns its duration in seconds.
  template <class F>
  void exec_manual(F&& work) {
    static_assert(std::is_invocable_r_v<double, F&>, "exec_manual takes a callable returning seconds");
    ManualSampler<std::remove_reference_t<F>> sampler(work);
    run(sampler);
  }

  // Run the engine's schedule over any sampler (what backends call).
  void run(Sampler& sampler);

  // Backend-specific facts for this point's JSON output (e.g. {"mode":"cold"}), as JSON text.
  void set_backend_info(std::string key, std::string json_value);

  const std::string& benchmark_name() const;
  const std::string& point_name() const;  // bench[a=1,b=x]
  PointRun& point_run() { return run_; }

 private:
  void exec_device(std::function<void(Launch&)> work);  // defined by a device backend
  PointRun& run_;
};

}  // namespace pitot

// State: what a benchmark function sees of its point, and how it hands the engine work to time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <pitot/axis.hpp>

// The samplers behind exec and exec_manual (private: <pitot/detail/sampler.hpp> says why).
#define PITOT_STATE_DETAIL_GUARD
#include <pitot/detail/sampler.hpp>
#undef PITOT_STATE_DETAIL_GUARD

namespace pitot {

class Launch;     // CUDA/HIP launch context, defined by <pitot/cuda.hpp> / <pitot/hip.hpp>
struct PointRun;  // engine-side bookkeeping of one point (src/core)
namespace detail {
struct StateAccess;  // how the engine and the backends reach a State's point (src/core/state.cpp)
}

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
  // A collective's bus bandwidth (nccl-tests' busbw): add_bytes gives the algorithm bandwidth
  // (bytes / time, the gbytes_per_second track); with a factor set, bytes x factor / time is the
  // bus_gbytes_per_second track (all-reduce 2(n-1)/n, all-gather, reduce-scatter, all-to-all (n-1)/n).
  void set_bus_factor(double factor);

  // Time `work`. A callable taking no argument is timed on the host clock; one taking a
  // pitot::Launch& is timed on the GPU (include <pitot/cuda.hpp>).
  template <class F>
  void exec(F&& work) {
    if constexpr (std::is_invocable_v<F&, Launch&>) {
      exec_device(std::function<void(Launch&)>(std::forward<F>(work)));
    } else {
      static_assert(std::is_invocable_v<F&>, "exec takes a callable of () or (pitot::Launch&)");
      detail::CpuSampler<std::remove_reference_t<F>> sampler(work);
      detail::run_schedule(*this, sampler);
    }
  }

  // Manual timing: `work` runs one iteration and returns its duration in seconds.
  template <class F>
  void exec_manual(F&& work) {
    static_assert(std::is_invocable_r_v<double, F&>, "exec_manual takes a callable returning seconds");
    detail::ManualSampler<std::remove_reference_t<F>> sampler(work);
    detail::run_schedule(*this, sampler);
  }

  // This process's place in a multi-rank world (a .multi_rank() benchmark under a launcher or
  // `pitot run --ranks N`): 0 and 1 otherwise.
  int rank() const;
  int world_size() const;

  const std::string& benchmark_name() const;
  const std::string& point_name() const;  // bench[a=1,b=x]

 private:
  friend struct detail::StateAccess;
  void exec_device(std::function<void(Launch&)> work);  // defined by a device backend
  PointRun& run_;
};

}  // namespace pitot

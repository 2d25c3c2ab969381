// pitot's own, not part of the API: the samplers behind State::exec and exec_manual, and the
// engine's schedule that drives them. A backend (src/cuda, src/hip) writes its own Sampler and
// hands it to run_schedule; benchmark code never sees either. Reached through <pitot/state.hpp>,
// which exec's templates need it from; included directly it refuses to compile.
#pragma once

#if !defined(PITOT_STATE_DETAIL_GUARD)
#error "<pitot/detail/sampler.hpp> is pitot's own: include <pitot/pitot.hpp> (or <pitot/state.hpp>)"
#endif

#include <chrono>
#include <cstdint>
#include <limits>

namespace pitot {

class State;

namespace detail {

// One timed sample: seconds per iteration, plus what the backend knows about it.
struct Sample {
  double seconds = 0.0;
  // Measured SM clock over the sample divided by the nominal clock; NaN when unknown.
  double clock_ratio = std::numeric_limits<double>::quiet_NaN();
  // The backend saw the device throttled during this sample: the engine discards it.
  bool throttled = false;
};

// How the ranks of a multi-rank point agree while a sampler warms up (src/core/ranked.cpp): every
// loop whose count decides how often the work runs must end on every rank at once, or the
// collectives in the work deadlock. Null in a world of one rank: each sampler decides alone.
class Agreement {
 public:
  virtual ~Agreement() = default;
  virtual bool rank0(bool mine) = 0;        // rank 0's decision on every rank
  virtual double slowest(double mine) = 0;  // the largest of every rank's value, on every rank
  // Returns on every rank at once, after all have arrived (a GPU batch's release of its blocker).
  virtual void release_together() = 0;
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
  // True once the sampler has given all the samples it will (a fixed count, as asv's `repeat`, or
  // one recorded value): the point stops there, whatever the stopping rule would say.
  virtual bool exhausted() const { return false; }
  // Called once when sampling ends (release buffers, streams).
  virtual void finish() {}
  // Seconds the harness has spent so far on its own work between the timed spans of the samples (a
  // problem's staging and checks), each piece timed on the steady clock: under --untrusted the
  // driver's clock from below allows them beside the samples (src/core/untrusted.hpp).
  virtual double harness_seconds() const { return 0; }
  void set_agreement(Agreement* a) { agreement_ = a; }

 protected:
  bool agreed(bool mine) { return agreement_ ? agreement_->rank0(mine) : mine; }
  double agreed_slowest(double mine) { return agreement_ ? agreement_->slowest(mine) : mine; }
  Agreement* agreement_ = nullptr;
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
      while (this->agreed(t * number_ < min_sample_seconds && number_ < (std::int64_t{1} << 40))) {
        number_ *= 2;
        t = time_calls(number_);
      }
    } while (this->agreed(std::chrono::duration<double>(clock::now() - start).count() < warmup_seconds));
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
    } while (this->agreed(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
                          warmup_seconds));
  }
  Sample sample() override { return Sample{static_cast<double>(work_())}; }
  std::int64_t iterations_per_sample() const override { return 1; }

 private:
  F& work_;
};

// Runs the engine's schedule (warm-up, batches, stopping rule, turns) over `sampler` for the
// point `state` belongs to; its samples become the point's result (src/core/state.cpp).
void run_schedule(State& state, Sampler& sampler);

}  // namespace detail
}  // namespace pitot

// A multi-rank benchmark program for tests/ranks/test_ranked_compare.cpp: `pitot compare` and
// `pitot ab` on multi-rank rows (issue 36, item 3). Built twice under one name, ranked_ab: in
// programs/base and, with PITOT_TEST_SLOWDOWN=1.5, in programs/head, where `slowed` takes 1.5x
// as long and `steady` is unchanged. The samples are manual times (no work runs), with a small
// offset per process (0.1%) and per sample (0.3%), so the per-process medians differ as real
// processes' do and the verdicts rest on the processes' spread, never on a zero one.
#include <pitot/pitot.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <random>

#ifndef PITOT_TEST_SLOWDOWN
#define PITOT_TEST_SLOWDOWN 1.0
#endif

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r(static_cast<std::uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull ^
                           static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return r;
}

// This process's offset, drawn once.
double process_factor() {
  static const double f = 1.0 + std::normal_distribution<double>(0.0, 0.001)(rng());
  return f;
}

// A sample of `seconds` on this rank: rank r takes r% longer (rank world-1 is the straggler).
double sample(const pitot::State& state, double seconds) {
  const double jitter = 1.0 + std::normal_distribution<double>(0.0, 0.003)(rng());
  return seconds * (1.0 + 0.01 * state.rank()) * process_factor() * jitter;
}

void steady(pitot::State& state) {
  state.exec_manual([&] { return sample(state, 1e-3); });
}
PITOT_BENCHMARK(steady).multi_rank();

void slowed(pitot::State& state) {
  state.exec_manual([&] { return sample(state, 1e-3 * PITOT_TEST_SLOWDOWN); });
}
PITOT_BENCHMARK(slowed).multi_rank();

}  // namespace

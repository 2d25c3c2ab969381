// A kernel of a chosen length: one thread spins for `us` microseconds of SM clock cycles. Used to
// measure how well `pitot compare` finds a change of known size (docs/results/). PITOT_SPIN_SCALE
// (default 1) stretches every spin, so a second run with PITOT_SPIN_SCALE=1.05 is "5% slower";
// PITOT_SPIN_BUILT_SCALE, a compile definition, does the same for a second build (pitot ab runs
// both builds in one environment: lab/suite/whole-suite-ab-h200.sh).
#include <pitot/pitot.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

#ifndef PITOT_SPIN_BUILT_SCALE
#define PITOT_SPIN_BUILT_SCALE 1.0
#endif

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double spin_scale() {
  const char* text = std::getenv("PITOT_SPIN_SCALE");
  if (!text) return PITOT_SPIN_BUILT_SCALE;
  char* end = nullptr;
  const double scale = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(scale > 0 && scale < 1000))
    throw std::invalid_argument(std::string("PITOT_SPIN_SCALE=") + text + ": give a positive factor such as 1.05");
  return scale * PITOT_SPIN_BUILT_SCALE;
}

void spin_kernel(pitot::State& state) {
  int device = 0, clock_khz = 0;
  PITOT_CUDA_CHECK(cudaGetDevice(&device));
  PITOT_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  // Cycles at the nominal clock: the kernel lasts `us` when the SM runs at it.
  const auto cycles = static_cast<long long>(state.get_float("us") * 1e-3 * clock_khz * spin_scale());
  state.exec([&](pitot::Launch& l) { spin<<<1, 1, 0, l.stream()>>>(cycles); });
}
PITOT_BENCHMARK(spin_kernel).axis("us", {2, 20, 200});

}  // namespace

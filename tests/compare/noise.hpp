// A seeded generator with its own normal draw (Box-Muller), so the trial counts of the compare
// tests are the same with every standard library.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace pitot::driver::compare::testing {

class Noise {
 public:
  explicit Noise(std::uint64_t seed) : rng_(seed) {}
  double uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  // A timing: `median` with log-normal spread `sigma`.
  double lognormal(double median, double sigma) { return median * std::exp(sigma * normal()); }

 private:
  std::mt19937_64 rng_;
};

}  // namespace pitot::driver::compare::testing

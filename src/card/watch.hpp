// Watching the card around a point: its readings while the point samples (summed up in the
// point's backend_info "card"), the energy counter's steps that bound an energy window, and the
// thermal guard that waits for the card to cool before a point. The backends call these
// (src/gpu/backend.cpp, src/gpu/sampler.cpp); nothing here knows CUDA or HIP.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "card/card.hpp"

namespace pitot::card {

// Seconds on a steady clock; tests pass their own.
using Clock = std::function<double()>;
Clock steady_clock();

// How often a point reads the card by default (seconds).
inline constexpr double kReadEverySeconds = 0.1;

// The readings of one point, taken between samples at most every `every_seconds`, so that the
// GPU is never read while it runs timed work and the library's cost stays far below a sample's.
// The points of one card may share their latest reading (`shared`): a point takes it instead of
// reading the card when it is younger than `every_seconds`, so the card is read at most that
// often over the run, whichever point asks (a lean point reads as it starts and as it ends).
class PointLog {
 public:
  explicit PointLog(Card& card, double every_seconds = kReadEverySeconds, Clock clock = steady_clock(),
                    std::optional<Reading>* shared = nullptr);
  void read_now();
  void read_if_due();
  std::size_t size() const { return readings_.size(); }
  int reads() const { return reads_; }  // of the card itself, not counting shared readings
  // {"source": "nvml" or "amdsmi", "readings": N, "sm_clock_mhz": {"min", "median", "max"}, "mem_clock_mhz",
  //  "temperature_c", "power_watts" (each where the card gave it), "clock_reasons": [...]}.
  nlohmann::json summary() const;

 private:
  Card& card_;
  double every_;
  Clock clock_;
  std::optional<Reading>* shared_;
  int reads_ = 0;
  double last_ = 0;
  std::vector<Reading> readings_;
};

// A step of the energy counter: its value and when it was seen.
struct EnergyStep {
  std::uint64_t millijoules = 0;
  double seconds = 0;
};
// Polls the counter until it differs from `after` (the card updates it every few milliseconds,
// not continuously), calling `keep_busy` between polls so the work never stops. Empty when the
// counter is missing or does not move within `timeout_seconds`.
std::optional<EnergyStep> wait_for_energy_step(Card& card, std::uint64_t after, const std::function<void()>& keep_busy,
                                               double timeout_seconds, const Clock& clock = steady_clock());

// Average power between two steps; empty when the counter went back (the driver reloaded) or
// no time passed.
std::optional<double> watts_between(const EnergyStep& first, const EnergyStep& last);

// The thermal guard (--cool-to): before a point, wait until the card is at or under
// `target_c`, reading every `poll_seconds`, for at most `timeout_seconds`.
struct CoolDown {
  double from_c = 0, to_c = 0;
  double waited_seconds = 0;
  bool reached = false;
};
std::optional<CoolDown> cool_down(Card& card, double target_c, double timeout_seconds, double poll_seconds = 0.1,
                                  const Clock& clock = steady_clock(),
                                  const std::function<void(double)>& sleep = nullptr);

}  // namespace pitot::card

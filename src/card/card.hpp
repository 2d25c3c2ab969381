// The GPU card's state: SM and memory clocks, temperature, power draw, the total-energy counter
// and the reasons the clocks are held down, read through the vendor's management library (a
// Source: NVML on NVIDIA, card/nvml.hpp; AMD SMI on AMD, card/amdsmi.hpp; fakes in tests).
// Card keeps what is common: a quantity the card refuses once is not asked for again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pitot::card {

// One reading; a value the card did not give is empty.
struct Reading {
  double seconds = 0;  // steady clock, when it was taken
  std::optional<double> sm_clock_mhz, mem_clock_mhz, temperature_c, power_watts;
  std::optional<std::uint64_t> reasons;  // why clocks are held down: the library's bit mask
};

// How one call of the library went.
struct Answer {
  enum Kind {
    ok,
    absent,   // the library has no such function
    refused,  // the card will not give it (not supported, no permission): not asked again
    failed,   // anything else: asked again next time
  };
  Kind kind = ok;
  int code = 0;  // the library's status (refused, failed), put in words by Source::describe
};

// One card as a management library reads it. Each call reads one quantity into `out` when it
// answers ok.
class Source {
 public:
  virtual ~Source() = default;
  virtual const char* name() const = 0;     // the summary's "source": "nvml", "amdsmi"
  virtual const char* library() const = 0;  // in messages: "NVML", "amd-smi"
  virtual std::string describe(int code) const = 0;
  virtual Answer sm_clock_mhz(double& out) = 0;
  virtual Answer mem_clock_mhz(double& out) = 0;
  virtual Answer temperature_c(double& out) = 0;
  virtual Answer power_watts(double& out) = 0;
  virtual Answer energy_millijoules(std::uint64_t& out) = 0;
  virtual Answer clock_reasons(std::uint64_t& out) = 0;
  // The names of the bits set in a clock_reasons mask.
  virtual std::vector<std::string> reason_names(std::uint64_t mask) const = 0;
};

// One card, read through its source.
class Card {
 public:
  explicit Card(std::unique_ptr<Source> source) : source_(std::move(source)) {}

  // Everything but the energy counter: NVML's costs 2.3-2.8 ms a query on an H100, the others
  // about 1 us each, and only the energy phase needs it.
  Reading read();
  // The card's energy total since the driver loaded, alone (polled while waiting for its next step).
  std::optional<std::uint64_t> energy_millijoules();
  std::optional<double> temperature_c();
  // What this card did not report, one "name (reason)" each, in the order found.
  const std::vector<std::string>& missing() const { return missing_; }
  const char* source_name() const { return source_->name(); }
  std::vector<std::string> reason_names(std::uint64_t mask) const { return source_->reason_names(mask); }

 private:
  // Calls `f` unless `name` is known missing; a refusal marks it missing and gives nothing.
  template <class F>
  bool ask(const char* name, F&& f);

  std::unique_ptr<Source> source_;
  std::set<std::string> refused_;
  std::vector<std::string> missing_;
};

}  // namespace pitot::card

// The GPU card's state as NVML reports it: SM and memory clocks, temperature, power draw, the
// total-energy counter and the reasons the clocks are held down. NVML is the driver's library
// (libnvidia-ml.so.1): opened at run time, so programs run where it is absent, and called through
// a table of functions that tests replace with fakes (tests/card/test_card.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pitot::card {

// One reading; a value the card did not give is empty.
struct Reading {
  double seconds = 0;  // steady clock, when it was taken
  std::optional<double> sm_clock_mhz, mem_clock_mhz, temperature_c, power_watts;
  std::optional<std::uint64_t> energy_millijoules;  // the card's total since the driver loaded
  std::optional<std::uint64_t> reasons;             // why clocks are held down: NVML's bit mask
};

// The NVML functions pitot calls, with nvml.h's signatures (the device handle is opaque; a
// return of 0 is NVML_SUCCESS). A null entry is a function this NVML does not have.
struct NvmlApi {
  using Device = void*;
  int (*init)() = nullptr;                                                  // nvmlInit_v2
  int (*device_by_pci_bus_id)(const char* bus_id, Device* device) = nullptr;  // ..._v2
  int (*clock)(Device, int clock_type, unsigned* mhz) = nullptr;            // nvmlDeviceGetClockInfo
  int (*temperature)(Device, int sensor, unsigned* celsius) = nullptr;      // nvmlDeviceGetTemperature
  int (*power_usage)(Device, unsigned* milliwatts) = nullptr;               // nvmlDeviceGetPowerUsage
  int (*total_energy)(Device, unsigned long long* millijoules) = nullptr;   // ...GetTotalEnergyConsumption
  int (*clock_reasons)(Device, unsigned long long* mask) = nullptr;         // ...GetCurrentClocksEventReasons
  const char* (*error_string)(int result) = nullptr;                        // nvmlErrorString
};

// This process's NVML, opened and initialized on first use; nullptr, with `why`, where it cannot be.
const NvmlApi* system_nvml(std::string* why);

// One card, read through `api`. A quantity the card refuses once (not supported, no permission)
// is not asked for again, and is named in missing().
class Card {
 public:
  // The card at PCI bus id `bus_id` ("0000:19:00.0", as cudaDeviceGetPCIBusId writes it).
  static std::unique_ptr<Card> open(const NvmlApi& api, const std::string& bus_id, std::string* why);
  Card(const NvmlApi& api, NvmlApi::Device device) : api_(api), device_(device) {}

  Reading read();
  // The energy counter alone (cheaper than read(): polled while waiting for its next step).
  std::optional<std::uint64_t> energy_millijoules();
  std::optional<double> temperature_c();
  // What this card did not report, one "name (reason)" each, in the order found.
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  // Calls `f` unless `name` is known missing; a failure marks it missing and gives nothing.
  template <class F>
  bool ask(const char* name, bool available, F&& f);

  const NvmlApi& api_;
  NvmlApi::Device device_;
  std::set<std::string> refused_;
  std::vector<std::string> missing_;
};

// The names of the reason bits set in `mask` ("sw_power_cap", "hw_thermal_slowdown", ...);
// gpu_idle is left out (it only says that nothing ran at that moment).
std::vector<std::string> reason_names(std::uint64_t mask);

}  // namespace pitot::card

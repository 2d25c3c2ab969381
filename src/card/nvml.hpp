// The card's state as NVML reports it (NVIDIA). NVML is the driver's library
// (libnvidia-ml.so.1): opened at run time, so programs run where it is absent, and called through
// a table of functions that tests replace with fakes (tests/card/test_card.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "card/card.hpp"

namespace pitot::card {

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

// The card at PCI bus id `bus_id` ("0000:19:00.0", as cudaDeviceGetPCIBusId writes it);
// nullptr, with `why`, where NVML has none.
std::unique_ptr<Card> open_nvml(const NvmlApi& api, const std::string& bus_id, std::string* why);
// The source of a device NVML already gave.
std::unique_ptr<Source> nvml_source(const NvmlApi& api, NvmlApi::Device device);

// The names of NVML's reason bits set in `mask` ("sw_power_cap", "hw_thermal_slowdown", ...);
// gpu_idle is left out (it only says that nothing ran at that moment).
std::vector<std::string> reason_names(std::uint64_t mask);

}  // namespace pitot::card

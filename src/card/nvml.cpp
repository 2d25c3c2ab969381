#include "card/nvml.hpp"

#include <dlfcn.h>

#include <chrono>
#include <mutex>
#include <utility>

namespace pitot::card {
namespace {

// nvml.h's values (stable across NVML versions).
constexpr int kSuccess = 0;
constexpr int kNotSupported = 3;
constexpr int kNoPermission = 4;
constexpr int kFunctionNotFound = 13;
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;
constexpr int kTemperatureGpu = 0;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string error_text(const NvmlApi& api, int result) {
  const char* text = api.error_string ? api.error_string(result) : nullptr;
  return text ? std::string(text) : "NVML error " + std::to_string(result);
}

template <class F>
void find(void* lib, F& slot, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (void* symbol = dlsym(lib, name)) {
      slot = reinterpret_cast<F>(symbol);
      return;
    }
}

}  // namespace

const NvmlApi* system_nvml(std::string* why) {
  static std::once_flag once;
  static NvmlApi api;
  static std::string problem;
  std::call_once(once, [] {
    // The driver installs libnvidia-ml.so.1; the unversioned name only comes with a -dev package.
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      problem = std::string("NVML not found (libnvidia-ml.so.1, part of the NVIDIA driver): ") + (e ? e : "dlopen failed");
      return;
    }
    find(lib, api.init, {"nvmlInit_v2", "nvmlInit"});
    find(lib, api.device_by_pci_bus_id, {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"});
    find(lib, api.clock, {"nvmlDeviceGetClockInfo"});
    find(lib, api.temperature, {"nvmlDeviceGetTemperature"});
    find(lib, api.power_usage, {"nvmlDeviceGetPowerUsage"});
    find(lib, api.total_energy, {"nvmlDeviceGetTotalEnergyConsumption"});
    find(lib, api.clock_reasons, {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
    find(lib, api.error_string, {"nvmlErrorString"});
    if (!api.init || !api.device_by_pci_bus_id) {
      problem = "NVML lacks nvmlInit or nvmlDeviceGetHandleByPciBusId";
      return;
    }
    if (const int r = api.init(); r != kSuccess) problem = "nvmlInit failed: " + error_text(api, r);
  });
  if (!problem.empty()) {
    if (why) *why = problem;
    return nullptr;
  }
  return &api;
}

std::unique_ptr<Card> Card::open(const NvmlApi& api, const std::string& bus_id, std::string* why) {
  NvmlApi::Device device = nullptr;
  if (!api.device_by_pci_bus_id) {
    if (why) *why = "NVML cannot look a card up by PCI bus id";
    return nullptr;
  }
  if (const int r = api.device_by_pci_bus_id(bus_id.c_str(), &device); r != kSuccess) {
    if (why) *why = "NVML has no card at PCI bus id " + bus_id + ": " + error_text(api, r);
    return nullptr;
  }
  return std::make_unique<Card>(api, device);
}

template <class F>
bool Card::ask(const char* name, bool available, F&& f) {
  if (refused_.contains(name)) return false;
  if (!available) {
    refused_.insert(name);
    missing_.push_back(std::string(name) + " (this NVML has no such function)");
    return false;
  }
  const int r = f();
  if (r == kSuccess) return true;
  if (r == kNotSupported || r == kNoPermission || r == kFunctionNotFound) {
    refused_.insert(name);
    missing_.push_back(std::string(name) + " (" + error_text(api_, r) + ")");
  }
  return false;  // anything else may pass: asked again next time
}

Reading Card::read() {
  Reading r;
  r.seconds = now_seconds();
  unsigned value = 0;
  if (ask("sm_clock", api_.clock != nullptr, [&] { return api_.clock(device_, kClockSm, &value); })) r.sm_clock_mhz = value;
  if (ask("memory_clock", api_.clock != nullptr, [&] { return api_.clock(device_, kClockMem, &value); }))
    r.mem_clock_mhz = value;
  r.temperature_c = temperature_c();
  if (ask("power", api_.power_usage != nullptr, [&] { return api_.power_usage(device_, &value); }))
    r.power_watts = value / 1000.0;
  r.energy_millijoules = energy_millijoules();
  unsigned long long mask = 0;
  if (ask("clock_reasons", api_.clock_reasons != nullptr, [&] { return api_.clock_reasons(device_, &mask); }))
    r.reasons = mask;
  return r;
}

std::optional<std::uint64_t> Card::energy_millijoules() {
  unsigned long long mj = 0;
  if (ask("energy", api_.total_energy != nullptr, [&] { return api_.total_energy(device_, &mj); })) return mj;
  return std::nullopt;
}

std::optional<double> Card::temperature_c() {
  unsigned c = 0;
  if (ask("temperature", api_.temperature != nullptr, [&] { return api_.temperature(device_, kTemperatureGpu, &c); }))
    return c;
  return std::nullopt;
}

std::vector<std::string> reason_names(std::uint64_t mask) {
  // nvml.h's nvmlClocksEventReason* bits.
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},         {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"}, {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},    {0x100, "display_clock_setting"}};
  std::vector<std::string> names;
  std::uint64_t known = 0x1;  // gpu_idle
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if (mask & bit) names.emplace_back(name);
  }
  if (mask & ~known) names.emplace_back("other");
  return names;
}

}  // namespace pitot::card

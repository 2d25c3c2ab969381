#include "card/nvml.hpp"

#include <dlfcn.h>

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

namespace {

// NVML's answers as Card reads them.
class NvmlSource final : public Source {
 public:
  NvmlSource(const NvmlApi& api, NvmlApi::Device device) : api_(api), device_(device) {}

  const char* name() const override { return "nvml"; }
  const char* library() const override { return "NVML"; }
  std::string describe(int code) const override { return error_text(api_, code); }

  Answer sm_clock_mhz(double& out) override { return clock(kClockSm, out); }
  Answer mem_clock_mhz(double& out) override { return clock(kClockMem, out); }
  Answer temperature_c(double& out) override { return read<unsigned>(api_.temperature, out, kTemperatureGpu); }
  Answer power_watts(double& out) override {
    double milliwatts = 0;
    const Answer a = read<unsigned>(api_.power_usage, milliwatts);
    if (a.kind == Answer::ok) out = milliwatts / 1000.0;
    return a;
  }
  Answer energy_millijoules(std::uint64_t& out) override { return read<unsigned long long>(api_.total_energy, out); }
  Answer clock_reasons(std::uint64_t& out) override { return read<unsigned long long>(api_.clock_reasons, out); }
  std::vector<std::string> reason_names(std::uint64_t mask) const override { return card::reason_names(mask); }

 private:
  static Answer answer(int r) {
    if (r == kSuccess) return {Answer::ok};
    if (r == kNotSupported || r == kNoPermission || r == kFunctionNotFound) return {Answer::refused, r};
    return {Answer::failed, r};
  }
  Answer clock(int type, double& out) { return read<unsigned>(api_.clock, out, type); }
  // One value through NVML's `fn` (null: this NVML lacks it), which takes the device, `args`,
  // then where to put a `Raw`; `out` is set only when NVML answers.
  template <class Raw, class Fn, class Out, class... Args>
  Answer read(Fn fn, Out& out, Args... args) {
    if (!fn) return {Answer::absent};
    Raw raw{};
    const int r = fn(device_, args..., &raw);
    if (r == kSuccess) out = static_cast<Out>(raw);
    return answer(r);
  }

  const NvmlApi& api_;
  NvmlApi::Device device_;
};

}  // namespace

std::unique_ptr<Source> nvml_source(const NvmlApi& api, NvmlApi::Device device) {
  return std::make_unique<NvmlSource>(api, device);
}

std::unique_ptr<Card> open_nvml(const NvmlApi& api, const std::string& bus_id, std::string* why) {
  NvmlApi::Device device = nullptr;
  if (!api.device_by_pci_bus_id) {
    if (why) *why = "NVML cannot look a card up by PCI bus id";
    return nullptr;
  }
  if (const int r = api.device_by_pci_bus_id(bus_id.c_str(), &device); r != kSuccess) {
    if (why) *why = "NVML has no card at PCI bus id " + bus_id + ": " + error_text(api, r);
    return nullptr;
  }
  return std::make_unique<Card>(nvml_source(api, device));
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

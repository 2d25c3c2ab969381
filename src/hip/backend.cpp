// The HIP side of the shared DeviceBackend (src/gpu/backend.hpp): device selection, what a point
// records about the kit, device facts, rocTX ranges and the profiler's resume and pause.
#include <hip/hip_runtime_api.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>
#include <pitot/hip.hpp>

#include "gpu/backend.hpp"
#include "gpu/problem.hpp"
#include "gpu/sampler.hpp"
#include "hip/error.hpp"
#include "hip/facts.hpp"
#include "hip/roctx.hpp"
#include "hip/sampler.hpp"

namespace pitot::hip {
namespace {

using nlohmann::json;

int device_count() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return count;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// ROCm's release as installed: $ROCM_PATH/.info/version or /opt/rocm/.info/version ("6.3.1").
std::string rocm_release() {
  const char* rocm_path = std::getenv("ROCM_PATH");
  for (const char* root : {rocm_path, "/opt/rocm"}) {
    if (!root || !*root) continue;
    std::string version = rocm_version_from_info(read_file(std::string(root) + "/.info/version"));
    if (!version.empty()) return version;
  }
  return "";
}

double round1(double x) { return std::round(x * 10) / 10; }

json facts_of(int device) {
  hipDeviceProp_t p{};
  PITOT_HIP_TRY(hipGetDeviceProperties(&p, device));
  int driver = 0, runtime = 0;
  (void)hipDriverGetVersion(&driver);
  (void)hipRuntimeGetVersion(&runtime);
  const std::string arch = gfx_arch(p.gcnArchName);
  json j;
  j["gpu"] = p.name;
  j["gpu_index"] = device;
  j["gpu_count"] = device_count();
  j["gpu_arch"] = arch;
  const std::string features = gfx_arch_features(p.gcnArchName);
  if (!features.empty()) j["gpu_arch_features"] = features;
  j["gpu_cu_count"] = p.multiProcessorCount;
  j["gpu_warp_size"] = p.warpSize;
  j["gpu_clock_mhz"] = p.clockRate / 1000;
  j["gpu_memory_clock_mhz"] = p.memoryClockRate / 1000;
  j["gpu_memory_bus_bits"] = p.memoryBusWidth;
  j["gpu_memory_gib"] = round1(static_cast<double>(p.totalGlobalMem) / (1 << 30));
  j["gpu_l2_mib"] = round1(p.l2CacheSize / 1048576.0);
  j["gpu_l2_count"] = l2_instances(arch);
  j["gpu_infinity_cache_mib"] = static_cast<double>(infinity_cache_bytes(arch) >> 20);
  j["gpu_ecc"] = p.ECCEnabled != 0;
  j["hip_runtime"] = hip_version_text(runtime);
  j["hip_driver"] = hip_version_text(driver);
  const std::string rocm = rocm_release();
  if (!rocm.empty()) j["rocm"] = rocm;
  const std::string amdgpu = first_line(read_file("/sys/module/amdgpu/version"));
  if (!amdgpu.empty()) j["amdgpu_driver"] = amdgpu;
  return j;
}

}  // namespace

void select_device(int device) {
  const int count = device_count();
  if (count == 0) throw Error(current_point() + ": " + missing_device_message(), hipErrorNoDevice);
  if (device >= count)
    throw UsageError("--device " + std::to_string(device) + ": this machine has " + std::to_string(count) +
                     " AMD GPU" + (count == 1 ? "" : "s") + " visible to HIP (numbered from 0)");
  PITOT_HIP_TRY(hipSetDevice(device));
}

void record_kit_info(State& state, const DeviceKit& kit) {
  detail::set_backend_info(state, "event_resolution_seconds", json(hip_kit(kit).event_resolution_seconds).dump());
}

DeviceBackend make_backend() {
  DeviceBackend b;
  b.name = "hip";
  b.exec = exec;
  b.exec_problem = exec_problem;
  b.bind_thread = [](int device) {
    // Errors wait for exec: a CPU benchmark in a HIP program must still run without a GPU.
    if (device < device_count()) {
      if (hipSetDevice(device) != hipSuccess) (void)hipGetLastError();
    }
  };
  b.device_facts = [](int device) -> json {
    if (device >= device_count()) return nullptr;
    return facts_of(device);
  };
  b.machine_name = [](int device) -> std::string {
    if (device >= device_count()) return "";
    hipDeviceProp_t p{};
    if (hipGetDeviceProperties(&p, device) != hipSuccess) return "";
    return machine_name_from_product(p.name, p.gcnArchName);
  };
  b.range_push = [](const std::string& name) { Roctx::instance().push(name.c_str()); };
  b.range_pop = [] { Roctx::instance().pop(); };
  b.profiler_start = [] {
    set_profiling(true);
    Roctx::instance().profiler_resume();
  };
  b.profiler_stop = [] {
    Roctx::instance().profiler_pause();
    set_profiling(false);
  };
  b.device_lost = [] { return device_lost(); };
  b.display_name = "HIP";
  b.unusable = [] {
    static const std::string why = device_count() > 0 ? std::string() : missing_device_message();
    return why;
  };
  return b;
}

}  // namespace pitot::hip

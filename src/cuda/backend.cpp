// The CUDA side of the shared DeviceBackend (src/gpu/backend.hpp): device selection, what a point
// records about the kit, device facts, NVTX ranges, the CUDA profiler's start and stop.
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>
#include <pitot/cuda.hpp>

#include "gpu/backend.hpp"
#include "gpu/sampler.hpp"
#include "cuda/error.hpp"
#include "cuda/facts.hpp"
#include "gpu/problem.hpp"
#include "cuda/sampler.hpp"

namespace pitot::cuda {
namespace {

using nlohmann::json;

int device_count(std::string* why = nullptr) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")";
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::string read_file(const char* path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

json facts_of(int device) {
  cudaDeviceProp p{};
  PITOT_CUDA_TRY(cudaGetDeviceProperties(&p, device));
  auto attribute = [&](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
  };
  const int sm_clock_khz = attribute(cudaDevAttrClockRate);
  const int memory_clock_khz = attribute(cudaDevAttrMemoryClockRate);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  json j;
  j["gpu"] = p.name;
  j["gpu_index"] = device;
  j["gpu_count"] = device_count();
  j["gpu_arch"] = sm_arch(p.major, p.minor);
  j["gpu_sm_count"] = p.multiProcessorCount;
  j["gpu_sm_clock_mhz"] = sm_clock_khz / 1000;
  j["gpu_memory_clock_mhz"] = memory_clock_khz / 1000;
  j["gpu_memory_bus_bits"] = p.memoryBusWidth;
  j["gpu_memory_gib"] = std::round(static_cast<double>(p.totalGlobalMem) / (1 << 30) * 10) / 10;
  j["gpu_l2_mib"] = std::round(p.l2CacheSize / 1048576.0 * 10) / 10;
  j["gpu_ecc"] = p.ECCEnabled != 0;
  j["gpu_peak_gbytes_per_second"] = std::round(peak_gbytes_per_second(memory_clock_khz, p.memoryBusWidth) * 10) / 10;
  j["cuda_driver_api"] = cuda_version_text(driver);
  j["cuda_runtime"] = cuda_version_text(runtime);
  const std::string module = driver_version_from_proc(read_file("/proc/driver/nvidia/version"));
  if (!module.empty()) j["nvidia_driver"] = module;
  return j;
}

}  // namespace

void select_device(int device) {
  std::string why;
  const int count = device_count(&why);
  if (count == 0) throw Error("no CUDA device: cudaGetDeviceCount says " + why, cudaErrorNoDevice);
  if (device >= count)
    throw UsageError("--device " + std::to_string(device) + ": this machine has " + std::to_string(count) +
                     " CUDA device" + (count == 1 ? "" : "s") + " (numbered from 0)");
  PITOT_CUDA_TRY(cudaSetDevice(device));
}

void record_kit_info(State& state, const DeviceKit& any_kit) {
  const CudaKit& kit = cuda_kit(any_kit);
  if (kit.peak_tflops > 0) detail::set_backend_info(state, "peak_tflops", json(kit.peak_tflops).dump());
  if (kit.peak_gbytes_per_second > 0)
    detail::set_backend_info(state, "peak_gbytes_per_second", json(kit.peak_gbytes_per_second).dump());
  // What the data may stay in between launches (hot and graph mode): the HBM percentage is left
  // out when a launch's bytes fit there (src/core/engine.cpp).
  if (kit.l2_bytes > 0) detail::set_backend_info(state, "cache_bytes", json(kit.l2_bytes).dump());
}

DeviceBackend make_backend() {
  DeviceBackend b;
  b.name = "cuda";
  b.exec = exec;
  b.exec_problem = exec_problem;
  b.bind_thread = [](int device) {
    // Errors wait for exec: a CPU benchmark in a CUDA program must still run without a GPU.
    if (cudaSetDevice(device) != cudaSuccess) (void)cudaGetLastError();
  };
  b.device_facts = [](int device) -> json {
    if (device >= device_count()) return nullptr;
    return facts_of(device);
  };
  b.machine_name = [](int device) -> std::string {
    if (device >= device_count()) return "";
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return "";
    return machine_name_from_product(p.name);
  };
  b.range_push = [](const std::string& name) { nvtxRangePushA(name.c_str()); };
  b.range_pop = [] { nvtxRangePop(); };
  b.profiler_start = [] {
    set_profiling(true);
    PITOT_CUDA_TRY(cudaProfilerStart());
  };
  b.profiler_stop = [] {
    PITOT_CUDA_TRY(cudaProfilerStop());
    set_profiling(false);
  };
  b.device_lost = [] { return device_lost(); };
  b.display_name = "CUDA";
  b.unusable = [] {
    // The first runtime call initialises the driver: one probe answers for the whole process.
    static const std::string why = [] {
      std::string reason;
      if (device_count(&reason) > 0) return std::string();
      return reason.empty() ? std::string("cudaGetDeviceCount found no device") : reason;
    }();
    return why;
  };
  return b;
}

}  // namespace pitot::cuda

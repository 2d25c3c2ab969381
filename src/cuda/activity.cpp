// CUPTI activity records for the kernel clock. CUPTI is opened at run time (dlopen), so a program
// carries no link-time dependency on libcupti and still starts where it is absent; the kernel
// clock then says why in one line and the sampler uses events.
//
// Recorded kinds: CONCURRENT_KERNEL, MEMCPY and MEMSET (the work, with device timestamps),
// EXTERNAL_CORRELATION (which launch each API call belongs to), RUNTIME and DRIVER (CUPTI writes
// external correlation records only for API calls it records; their own records are skipped).
#include "gpu/activity.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <vector>

#if PITOT_HAS_CUPTI
#include <cuda_runtime.h>
#include <cupti.h>
#endif

#include "gpu/error.hpp"

namespace pitot::cuda {

#if !PITOT_HAS_CUPTI

const std::string& activity_start() {
  static const std::string why = "this build of pitot found no CUPTI headers";
  return why;
}
void activity_record(bool) {}
void activity_push(std::uint64_t) {}
void activity_pop() {}
void activity_flush(kernel_clock::Matcher&) {}

#else

namespace {

namespace fs = std::filesystem;
namespace kc = kernel_clock;

constexpr std::size_t kBufferBytes = 1u << 20;  // one batch's records take a few kB

// The CUPTI entry points the clock uses, from the library opened at run time.
struct Cupti {
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop = nullptr;
  decltype(&cuptiActivityEnableHWTrace) enable_hw_trace = nullptr;  // optional (CUDA 12.8+)
};
Cupti api;

std::mutex records_mutex;  // guards the two below: CUPTI may deliver buffers on its own thread
std::vector<kc::Record> delivered;
std::vector<std::uint8_t*> spare_buffers;

std::string result_text(CUptiResult r) {
  const char* text = nullptr;
  if (api.result_string) api.result_string(r, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

const char* copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  {
    std::lock_guard lock(records_mutex);
    if (!spare_buffers.empty()) {
      *buffer = spare_buffers.back();
      spare_buffers.pop_back();
    } else {
      *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    }
  }
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

double kernel_waves(const CUpti_ActivityKernel10& k);  // below, with the device limits

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::vector<kc::Record> records;
  CUpti_Activity* rec = nullptr;
  while (valid > 0 && api.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
    kc::Record r;
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        r = {kc::Kind::Kernel, k->name ? k->name : "?", k->correlationId, 0, k->start, k->end, kernel_waves(*k)};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        r = {kc::Kind::Memcpy, copy_kind(m->copyKind), m->correlationId, 0, m->start, m->end};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        r = {kc::Kind::Memset, "memset", m->correlationId, 0, m->start, m->end};
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(rec);
        if (e->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) continue;
        r.kind = kc::Kind::ExternalCorrelation;
        r.correlation = e->correlationId;
        r.external = e->externalId;
        break;
      }
      default: continue;  // RUNTIME and DRIVER records: only there to carry external ids
    }
    records.push_back(std::move(r));
  }
  std::lock_guard lock(records_mutex);
  delivered.insert(delivered.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
  spare_buffers.push_back(buffer);
}

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : exe.parent_path().string();
}

// Where libcupti may be: a path given in PITOT_CUPTI_LIB; a copy beside the program (carried);
// the loader's search path; beside a shared libcudart, if the program uses one; the toolkits
// named by CUDA_HOME / CUDA_PATH, /usr/local/cuda and the one pitot was built with.
std::vector<std::string> library_candidates() {
  const char* names[] = {"libcupti.so.13", "libcupti.so"};
  std::vector<std::string> out;
  auto in_dir = [&](const std::string& dir) {
    for (const char* name : names) out.push_back(dir + "/" + name);
  };
  if (const char* given = std::getenv("PITOT_CUPTI_LIB"); given && *given) out.push_back(given);
  const std::string exe = executable_dir();
  if (!exe.empty()) in_dir(exe);
  for (const char* name : names) out.push_back(name);
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &where) && where.dli_fname) {
    const fs::path lib = fs::path(where.dli_fname).parent_path();  // the program itself when cudart is static
    if (lib.string() != exe) {
      in_dir(lib.string());
      in_dir((lib.parent_path() / "extras/CUPTI/lib64").string());
    }
  }
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) roots.push_back(v);
  roots.push_back("/usr/local/cuda");
  for (const auto& root : roots)
    for (const char* sub : {"/extras/CUPTI/lib64", "/lib64", "/lib"}) in_dir(root + sub);
#ifdef PITOT_CUPTI_BUILD_DIR
  in_dir(PITOT_CUPTI_BUILD_DIR);
#endif
  return out;
}

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// Every kind the clock records. CUPTI times kernels (before Blackwell) by instrumenting their code,
// which slows kernels of several waves of blocks (docs/DESIGN.md, "The kernel clock"): recording
// is switched on only for the batches of points timed with the kernel clock (activity_record).
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};
bool recording = false;

// Every kind on or off; "" or what failed.
std::string set_recording(bool on) {
  for (CUpti_ActivityKind kind : kKinds) {
    if (CUptiResult r = on ? api.enable(kind) : api.disable(kind); r != CUPTI_SUCCESS)
      return std::string("cuptiActivity") + (on ? "Enable" : "Disable") + "(" + std::to_string(static_cast<int>(kind)) +
             ") failed (" + result_text(r) + ")";
  }
  recording = on;
  return "";
}

// Per device, what bounds the blocks it holds at once (Record::waves).
std::vector<kc::DeviceLimits> device_limits;

void read_device_limits() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return;
  auto attribute = [](cudaDeviceAttr a, int d) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, d) == cudaSuccess ? v : 0;
  };
  for (int d = 0; d < count; ++d)
    device_limits.push_back({attribute(cudaDevAttrMultiProcessorCount, d), attribute(cudaDevAttrMaxBlocksPerMultiprocessor, d),
                             attribute(cudaDevAttrMaxThreadsPerMultiProcessor, d),
                             attribute(cudaDevAttrMaxRegistersPerMultiprocessor, d),
                             static_cast<std::uint64_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, d))});
}

double kernel_waves(const CUpti_ActivityKernel10& k) {
  if (k.deviceId >= device_limits.size()) return 0;
  const auto blocks = static_cast<std::uint64_t>(k.gridX) * static_cast<std::uint64_t>(k.gridY) * static_cast<std::uint64_t>(k.gridZ);
  return kc::waves(blocks, k.blockX * k.blockY * k.blockZ, k.registersPerThread,
                   static_cast<std::uint64_t>(k.staticSharedMemory) + static_cast<std::uint64_t>(k.dynamicSharedMemory),
                   device_limits[k.deviceId]);
}

std::string start_cupti() {
  if (const char* injected = std::getenv("CUDA_INJECTION64_PATH"); injected && *injected)
    return "a profiler holds CUPTI (CUDA_INJECTION64_PATH is set)";
  void* lib = nullptr;
  for (const auto& path : library_candidates()) {
    if (path.find('/') != std::string::npos && !fs::exists(path)) continue;
    if ((lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
  }
  if (!lib) return "no CUPTI library found (libcupti.so.13; set PITOT_CUPTI_LIB=/path/to/libcupti.so)";
  if (!bind(lib, "cuptiGetVersion", api.get_version) || !bind(lib, "cuptiGetResultString", api.result_string) ||
      !bind(lib, "cuptiSubscribe", api.subscribe) ||
      !bind(lib, "cuptiActivityRegisterCallbacks", api.register_callbacks) ||
      !bind(lib, "cuptiActivityEnable", api.enable) || !bind(lib, "cuptiActivityDisable", api.disable) ||
      !bind(lib, "cuptiActivityFlushAll", api.flush_all) ||
      !bind(lib, "cuptiActivityGetNextRecord", api.next_record) ||
      !bind(lib, "cuptiActivityPushExternalCorrelationId", api.push) ||
      !bind(lib, "cuptiActivityPopExternalCorrelationId", api.pop))
    return "the CUPTI library lacks an entry point the kernel clock needs";
  (void)bind(lib, "cuptiActivityEnableHWTrace", api.enable_hw_trace);
  // Records are read with this build's structs (CUpti_ActivityKernel10, ...): same major only.
  std::uint32_t version = 0;
  if (api.get_version(&version) != CUPTI_SUCCESS || version / 10000 != CUPTI_API_VERSION / 10000)
    return "CUPTI API version " + std::to_string(version) + " differs from the one pitot was built with (" +
           std::to_string(CUPTI_API_VERSION) + ")";
  // A second subscriber is refused while a tool holds CUPTI: the surest sign of one.
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult r = api.subscribe(&subscriber, ignore_callback, nullptr); r != CUPTI_SUCCESS)
    return "cuptiSubscribe failed (" + result_text(r) + "; a profiler may hold CUPTI)";
  if (CUptiResult r = api.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
    return "cuptiActivityRegisterCallbacks failed (" + result_text(r) + ")";
  // Hardware timestamps where the GPU has them (Blackwell): no instrumentation at all. Refused
  // elsewhere (an H200 answers "not supported"), which is fine.
  if (api.enable_hw_trace) (void)api.enable_hw_trace(1);
  read_device_limits();
  // Enabled once here to find out whether CUPTI lets us; then off until a batch asks for them.
  if (std::string failed = set_recording(true); !failed.empty()) return failed;
  return set_recording(false);
}

}  // namespace

const std::string& activity_start() {
  static const std::string why = start_cupti();
  return why;
}

void activity_record(bool on) {
  if (on == recording || !activity_start().empty()) return;
  if (const std::string failed = set_recording(on); !failed.empty()) throw std::runtime_error(current_point() + ": " + failed);
}

void activity_push(std::uint64_t id) {
  if (CUptiResult r = api.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id); r != CUPTI_SUCCESS)
    throw std::runtime_error(current_point() + ": cuptiActivityPushExternalCorrelationId failed: " + result_text(r));
}

void activity_pop() {
  std::uint64_t last = 0;
  (void)api.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);  // also on the exception path
}

void activity_flush(kernel_clock::Matcher& matcher) {
  // Default flush: every buffer whose records are complete, full or not (the caller synchronized).
  if (CUptiResult r = api.flush_all(0); r != CUPTI_SUCCESS)
    throw std::runtime_error(current_point() + ": cuptiActivityFlushAll failed: " + result_text(r));
  std::vector<kc::Record> records;
  {
    std::lock_guard lock(records_mutex);
    records.swap(delivered);
  }
  for (const auto& r : records) matcher.add(r);
}

#endif  // PITOT_HAS_CUPTI

}  // namespace pitot::cuda

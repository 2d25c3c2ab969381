// pitot's CUPTI activity tracer: a library the CUDA driver loads into a program at cuInit
// (CUDA_INJECTION64_PATH=libpitot_cupti.so), which records kernels, memcpys, memsets, runtime
// API calls and NVTX ranges with device timestamps and writes them as a Chrome trace (JSON, one
// event per line, gzip-compressed and flushed per buffer so a crash keeps what came before).
//
// Environment:
//   PITOT_CUPTI_DIR       folder for the trace (default: the working directory); the file is
//                         trace-<pid>.json.gz, so every process of a run writes its own
//   PITOT_CUPTI_CAPTURE   "all" (default): from cuInit to exit; "profiler-api": only between
//                         cudaProfilerStart and cudaProfilerStop (what `pitot profile` uses)
//   NVTX_INJECTION64_PATH set here to CUPTI's own library unless already set: that is how
//                         CUPTI sees NVTX ranges. Ranges opened before cuInit are not seen.
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;
// Device rows get thread ids far from host thread ids.
constexpr std::uint64_t kDeviceRowBase = 1'000'000'000ull;

std::mutex g_mutex;  // guards everything below
gzFile g_out = nullptr;
std::string g_path;
bool g_profiler_api = false;
std::atomic<bool> g_enabled{false};
std::uint64_t g_dropped = 0;
int g_pid = 0;
std::map<std::uint64_t, bool> g_named_rows;  // device rows that have a thread_name already
struct OpenRange {
  std::uint64_t start;
  std::uint64_t tid;
  std::string name, domain;
};
std::map<std::uint32_t, OpenRange> g_open_ranges;  // NVTX ranges by id, until their end record

void warn(const char* what, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "pitot-cupti: %s failed: %s\n", what, text ? text : "unknown error");
}

std::string escape(const char* s) {
  std::string out;
  if (!s) return out;
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string demangle(const char* name) {
  if (!name) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

// Chrome trace time: microseconds with nanosecond digits.
std::string us(std::uint64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return buf;
}

// Caller holds g_mutex.
void emit(const std::string& event) {
  if (!g_out) return;
  std::string line = event + ",\n";
  gzwrite(g_out, line.data(), static_cast<unsigned>(line.size()));
}

void name_row(std::uint64_t tid, const std::string& name, int sort) {
  if (g_named_rows[tid]) return;
  g_named_rows[tid] = true;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                R"({"ph":"M","name":"thread_name","pid":%d,"tid":%)" PRIu64 R"(,"args":{"name":"%s"}})", g_pid, tid,
                escape(name.c_str()).c_str());
  emit(buf);
  std::snprintf(buf, sizeof buf,
                R"({"ph":"M","name":"thread_sort_index","pid":%d,"tid":%)" PRIu64 R"(,"args":{"sort_index":%d}})",
                g_pid, tid, sort);
  emit(buf);
}

std::uint64_t device_row(std::uint32_t device, std::uint32_t stream) {
  std::uint64_t tid = kDeviceRowBase + device * 1'000'000ull + stream;
  name_row(tid, "GPU " + std::to_string(device) + " stream " + std::to_string(stream),
           static_cast<int>(device * 1000 + (stream % 1000)));
  return tid;
}

void complete(const std::string& name, const char* cat, std::uint64_t tid, std::uint64_t start, std::uint64_t end,
              const std::string& args) {
  std::string e = R"({"ph":"X","cat":")" + std::string(cat) + R"(","name":")" + escape(name.c_str()) +
                  R"(","pid":)" + std::to_string(g_pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
                  us(start) + R"(,"dur":)" + us(end > start ? end - start : 0) + R"(,"args":{)" + args + "}}";
  emit(e);
}

// A flow arrow from the API call to the device work it started (Perfetto draws these).
void flow(char phase, std::uint32_t correlation, std::uint64_t tid, std::uint64_t ts) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                R"({"ph":"%c","cat":"launch","name":"launch","id":%)" PRIu64 R"(,"pid":%d,"tid":%)" PRIu64
                R"(,"ts":%s%s})",
                phase, (static_cast<std::uint64_t>(g_pid) << 32) | correlation, g_pid, tid, us(ts).c_str(),
                phase == 'f' ? R"(,"bp":"e")" : "");
  emit(buf);
}

const char* copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    default: return "unknown";
  }
}

std::string bytes_text(std::uint64_t b) {
  char buf[32];
  if (b >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
  return buf;
}

bool starts_work(const char* api) {
  if (!api) return false;
  for (const char* prefix : {"cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaGraphLaunch", "cuLaunch", "cuMemcpy",
                             "cuMemset", "cuGraphLaunch"})
    if (std::strncmp(api, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

void record(const CUpti_Activity* rec) {
  char args[512];
  switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
      std::snprintf(args, sizeof args,
                    R"("correlation":%u,"device":%u,"stream":%u,"grid":[%d,%d,%d],"block":[%d,%d,%d],)"
                    R"("registers_per_thread":%u,"static_shared_bytes":%d,"dynamic_shared_bytes":%d,"mangled":")",
                    k->correlationId, k->deviceId, k->streamId, k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY,
                    k->blockZ, static_cast<unsigned>(k->registersPerThread), k->staticSharedMemory,
                    k->dynamicSharedMemory);
      std::uint64_t row = device_row(k->deviceId, k->streamId);
      complete(demangle(k->name), "kernel", row, k->start, k->end, args + escape(k->name) + "\"");
      flow('f', k->correlationId, row, k->start);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
      double seconds = m->end > m->start ? (m->end - m->start) * 1e-9 : 0;
      std::snprintf(args, sizeof args,
                    R"("correlation":%u,"device":%u,"stream":%u,"bytes":%)" PRIu64 R"(,"gbytes_per_second":%.3f)",
                    m->correlationId, m->deviceId, m->streamId, m->bytes, seconds > 0 ? m->bytes / seconds * 1e-9 : 0.0);
      std::uint64_t row = device_row(m->deviceId, m->streamId);
      complete(std::string("Memcpy ") + copy_kind(m->copyKind) + " " + bytes_text(m->bytes), "memcpy", row, m->start,
               m->end, args);
      flow('f', m->correlationId, row, m->start);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
      std::snprintf(args, sizeof args,
                    R"("correlation":%u,"device":%u,"stream":%u,"bytes":%)" PRIu64 R"(,"value":%u)", m->correlationId,
                    m->deviceId, m->streamId, m->bytes, m->value);
      std::uint64_t row = device_row(m->deviceId, m->streamId);
      complete("Memset " + bytes_text(m->bytes), "memset", row, m->start, m->end, args);
      flow('f', m->correlationId, row, m->start);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(rec);
      const bool runtime = rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      const char* name = nullptr;
      cuptiGetCallbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name);
      std::snprintf(args, sizeof args, R"("correlation":%u,"return":%u)", a->correlationId, a->returnValue);
      complete(name ? name : "?", runtime ? "cuda_runtime" : "cuda_driver", a->threadId, a->start, a->end, args);
      if (starts_work(name)) flow('s', a->correlationId, a->threadId, a->start);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(rec);
      const std::uint64_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        g_open_ranges[m->id] = {m->timestamp, tid, m->name ? m->name : "", m->domain ? m->domain : ""};
      } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        auto it = g_open_ranges.find(m->id);
        if (it == g_open_ranges.end()) break;
        std::string a = R"("domain":")" + escape(it->second.domain.c_str()) + "\"";
        complete(it->second.name, "nvtx", it->second.tid, it->second.start, m->timestamp, a);
        g_open_ranges.erase(it);
      } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        std::string e = R"({"ph":"i","s":"t","cat":"nvtx","name":")" + escape(m->name) + R"(","pid":)" +
                        std::to_string(g_pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" + us(m->timestamp) +
                        "}";
        emit(e);
      }
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard lock(g_mutex);
    CUpti_Activity* rec = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) record(rec);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
    if (g_out) gzflush(g_out, Z_SYNC_FLUSH);  // readable up to here even if the process dies
  }
  std::free(buffer);
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                     CUPTI_ACTIVITY_KIND_MARKER};

void set_enabled(bool on) {
  if (g_enabled.exchange(on) == on) return;
  for (auto kind : kKinds) {
    CUptiResult r = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
    if (r != CUPTI_SUCCESS && kind != CUPTI_ACTIVITY_KIND_MARKER) warn(on ? "cuptiActivityEnable" : "cuptiActivityDisable", r);
  }
}

// cudaProfilerStart/Stop (runtime or driver) switch recording on and off in profiler-api mode.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  auto* info = static_cast<const CUpti_CallbackData*>(data);
  const bool start = (domain == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
                     (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  const bool stop = (domain == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
                    (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  if (start && info->callbackSite == CUPTI_API_EXIT) set_enabled(true);
  if (stop && info->callbackSite == CUPTI_API_ENTER) set_enabled(false);
}

void at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(g_mutex);
  if (!g_out) return;
  char info[512];
  std::snprintf(info, sizeof info,
                R"({"ph":"M","name":"pitot_trace_info","pid":%d,"args":{"pid":%d,"dropped_records":%)" PRIu64
                R"(,"open_ranges":%zu,"capture":"%s"}})",
                g_pid, g_pid, g_dropped, g_open_ranges.size(), g_profiler_api ? "profiler-api" : "all");
  std::string tail = std::string(info) + "\n]}\n";
  gzwrite(g_out, tail.data(), static_cast<unsigned>(tail.size()));
  gzclose(g_out);
  g_out = nullptr;
}

std::string self_exe_name() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "process";
  buf[n] = '\0';
  const char* slash = std::strrchr(buf, '/');
  return slash ? slash + 1 : buf;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  int ok = 1;
  std::call_once(once, [&] {
    g_pid = static_cast<int>(getpid());
    const char* capture = std::getenv("PITOT_CUPTI_CAPTURE");
    g_profiler_api = capture && std::strcmp(capture, "profiler-api") == 0;
    const char* dir = std::getenv("PITOT_CUPTI_DIR");
    std::string folder = dir && *dir ? dir : ".";
    g_path = folder + "/trace-" + std::to_string(g_pid) + ".json.gz";
    g_out = gzopen(g_path.c_str(), "wb6");
    if (!g_out) {
      std::fprintf(stderr, "pitot-cupti: cannot write %s: %s; no trace for this process\n", g_path.c_str(),
                   std::strerror(errno));
      ok = 0;
      return;
    }
    // CUPTI records NVTX only when it is NVTX's injection library; point NVTX at it.
    Dl_info where{};
    if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &where) && where.dli_fname)
      setenv("NVTX_INJECTION64_PATH", where.dli_fname, 0);

    uint32_t version = 0;
    cuptiGetVersion(&version);
    std::string head = R"({"displayTimeUnit":"ns","otherData":{"tracer":"pitot-cupti","cupti_api_version":)" +
                       std::to_string(version) + R"(},"traceEvents":[)" + "\n";
    gzwrite(g_out, head.data(), static_cast<unsigned>(head.size()));
    char meta[512];
    std::snprintf(meta, sizeof meta, R"x({"ph":"M","name":"process_name","pid":%d,"args":{"name":"%s (pid %d)"}})x",
                  g_pid, escape(self_exe_name().c_str()).c_str(), g_pid);
    emit(meta);

    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
      warn("cuptiActivityRegisterCallbacks", r);
      ok = 0;
      return;
    }
    if (g_profiler_api) {
      CUpti_SubscriberHandle subscriber;
      r = cuptiSubscribe(&subscriber, on_callback, nullptr);
      if (r != CUPTI_SUCCESS) {
        warn("cuptiSubscribe", r);
        ok = 0;
        return;
      }
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
    } else {
      set_enabled(true);
    }
    std::atexit(at_exit);
  });
  return ok;
}

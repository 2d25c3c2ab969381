// A stand-in for ROCm's rocTX library: counts the calls pitot makes, so the run-time loading
// is tested on machines without ROCm's profiler libraries.
#include <cstdint>
#include <string>

namespace {
int pushes = 0;
int pops = 0;
int pauses = 0;
int resumes = 0;
std::string last_name;
}  // namespace

extern "C" {
__attribute__((visibility("default"))) int roctxRangePushA(const char* name) {
  last_name = name;
  return ++pushes;
}
__attribute__((visibility("default"))) int roctxRangePop() { return ++pops; }
__attribute__((visibility("default"))) int roctxProfilerPause(std::uint64_t) { return ++pauses, 0; }
__attribute__((visibility("default"))) int roctxProfilerResume(std::uint64_t) { return ++resumes, 0; }

// What the test reads back.
__attribute__((visibility("default"))) int fake_roctx_pushes() { return pushes; }
__attribute__((visibility("default"))) int fake_roctx_pops() { return pops; }
__attribute__((visibility("default"))) int fake_roctx_pauses() { return pauses; }
__attribute__((visibility("default"))) int fake_roctx_resumes() { return resumes; }
__attribute__((visibility("default"))) const char* fake_roctx_last_name() { return last_name.c_str(); }
}

#include "hip/roctx.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace pitot::hip {

std::vector<std::string> roctx_candidates(const char* override_path, const char* rocm_path) {
  if (override_path && *override_path) return {override_path};
  const std::vector<std::string> names = {"librocprofiler-sdk-roctx.so.1", "librocprofiler-sdk-roctx.so",
                                          "libroctx64.so.4", "libroctx64.so"};
  std::vector<std::string> candidates = names;
  std::vector<std::string> dirs;
  if (rocm_path && *rocm_path) dirs.push_back(std::string(rocm_path) + "/lib/");
  dirs.emplace_back("/opt/rocm/lib/");
  for (const auto& dir : dirs)
    for (const auto& name : names) candidates.push_back(dir + name);
  return candidates;
}

Roctx::Roctx(const std::vector<std::string>& candidates) {
  for (const auto& path : candidates) {
    // Never closed: ranges may be pushed until the process exits.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* error = dlerror();
      why_not_ = error ? error : path + ": not found";
      continue;
    }
    auto push = reinterpret_cast<PushFn>(dlsym(handle, "roctxRangePushA"));
    auto pop = reinterpret_cast<PopFn>(dlsym(handle, "roctxRangePop"));
    if (!push || !pop) {
      why_not_ = path + ": has no roctxRangePushA/roctxRangePop";
      dlclose(handle);
      continue;
    }
    push_ = push;
    pop_ = pop;
    resume_ = reinterpret_cast<ProfilerFn>(dlsym(handle, "roctxProfilerResume"));
    pause_ = reinterpret_cast<ProfilerFn>(dlsym(handle, "roctxProfilerPause"));
    library_ = path;
    why_not_.clear();
    return;
  }
}

Roctx& Roctx::instance() {
  static Roctx roctx(roctx_candidates(std::getenv("PITOT_ROCTX_LIBRARY"), std::getenv("ROCM_PATH")));
  return roctx;
}

void Roctx::push(const char* name) const {
  if (push_) push_(name);
}

void Roctx::pop() const {
  if (pop_) pop_();
}

void Roctx::profiler_resume() const {
  if (resume_) resume_(0);
}

void Roctx::profiler_pause() const {
  if (pause_) pause_(0);
}

}  // namespace pitot::hip

// rocTX ranges without a link-time dependency: the library is opened at run time (dlopen) and
// every call is a no-op when it is absent, so a program built on a machine without ROCm's
// profiler libraries runs everywhere, and rocprofv3 sees pitot's ranges where they are installed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pitot::hip {

// Where to look, in order: $PITOT_ROCTX_LIBRARY when set (and nothing else then), rocprofiler-sdk's
// rocTX (ROCm 6.2+, what rocprofv3 prefers), the older roctracer rocTX (libroctx64), each by soname
// and then under $ROCM_PATH/lib or /opt/rocm/lib.
std::vector<std::string> roctx_candidates(const char* override_path, const char* rocm_path);

class Roctx {
 public:
  // Opens the first candidate that has roctxRangePushA and roctxRangePop.
  explicit Roctx(const std::vector<std::string>& candidates);
  Roctx(const Roctx&) = delete;
  Roctx& operator=(const Roctx&) = delete;

  // The process-wide instance, loaded on first use from roctx_candidates(environment).
  static Roctx& instance();

  bool loaded() const { return push_ != nullptr; }
  const std::string& library() const { return library_; }  // the path dlopen accepted; "" if none
  const std::string& why_not() const { return why_not_; }  // dlerror of the last candidate tried

  void push(const char* name) const;
  void pop() const;
  // roctxProfilerResume/Pause(0): rocprofv3 collects only in between (rocprofiler-sdk's rocTX only).
  void profiler_resume() const;
  void profiler_pause() const;

 private:
  using PushFn = int (*)(const char*);
  using PopFn = int (*)();
  using ProfilerFn = int (*)(std::uint64_t);  // roctx_thread_id_t
  PushFn push_ = nullptr;
  PopFn pop_ = nullptr;
  ProfilerFn resume_ = nullptr;
  ProfilerFn pause_ = nullptr;
  std::string library_;
  std::string why_not_;
};

}  // namespace pitot::hip

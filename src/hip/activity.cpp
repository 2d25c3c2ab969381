// HIP has no kernel clock yet: rocprofiler-sdk's buffered kernel-dispatch tracing is the analogue
// of CUPTI's activity records, but it is not wired (docs/hip-backend.md). HIP times with events.
#include "gpu/activity.hpp"

namespace pitot::hip {

const std::string& activity_start() {
  static const std::string why = "the HIP backend has no kernel clock (rocprofiler-sdk tracing is not wired)";
  return why;
}
void activity_record(bool) {}
void activity_push(std::uint64_t) {}
void activity_pop() {}
void activity_flush(kernel_clock::Matcher&) {}

}  // namespace pitot::hip

#include "hip/error.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "hip/facts.hpp"

namespace pitot::hip {
namespace {
std::atomic<bool> lost{false};
thread_local std::string point_name;

// "<description> (<name>)"; ROCm 5 describes errors by their name alone, said once then.
std::string describe(hipError_t status) {
  const std::string text = hipGetErrorString(status);
  const std::string name = hipGetErrorName(status);
  return text == name ? name : text + " (" + name + ")";
}
}  // namespace

bool is_sticky(hipError_t status) {
  switch (status) {
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
    case hipErrorAssert:
    case hipErrorLaunchTimeOut:
    case hipErrorECCNotCorrectable:
    case hipErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

PointContext::PointContext(std::string point) : previous_(std::move(point_name)) { point_name = std::move(point); }
PointContext::~PointContext() { point_name = std::move(previous_); }
const std::string& current_point() { return point_name; }

bool device_lost() { return lost.load(); }

std::string missing_device_message() {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status == hipSuccess && count > 0) return "";
  (void)hipGetLastError();
  const std::string says = status == hipSuccess ? std::string("0 devices") : describe(status);
  KfdState kfd = KfdState::Present;
  if (access("/dev/kfd", F_OK) != 0) kfd = KfdState::Missing;
  else if (access("/dev/kfd", R_OK | W_OK) != 0) kfd = KfdState::NoAccess;
  return no_device_message(says, kfd);
}

std::string error_message(hipError_t status, const std::string& call) {
  std::string message;
  if (!point_name.empty()) message = point_name + ": ";
  // Without a GPU every call fails with a code that says little (hipErrorInvalidDevice).
  if (status == hipErrorNoDevice || status == hipErrorInvalidDevice || status == hipErrorInsufficientDriver) {
    const std::string missing = missing_device_message();
    if (!missing.empty()) message += missing + " First failed call: ";
  }
  message += call + " failed: " + describe(status);
  if (is_sticky(status)) message += "; the device is unusable for the rest of this process";
  return message;
}

void check(hipError_t status, const char* call, const char* file, int line) {
  if (status == hipSuccess) return;
  if (is_sticky(status)) {
    lost = true;
  } else {
    (void)hipGetLastError();  // a non-sticky error must not be reported again by the next check
  }
  std::string where = call ? call : "a HIP call";
  // The file's name only: results and logs must not carry the build machine's paths.
  if (file) where += " at " + std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
  throw Error(error_message(status, where), status);
}

}  // namespace pitot::hip

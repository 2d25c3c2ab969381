// What HIP's error handling does on its own: which errors are sticky, how a failure reads, and
// why there is no GPU when there is none.
#include "hip/error.hpp"

#include <unistd.h>

#include "hip/facts.hpp"

namespace pitot::hip {
namespace {
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
  if (!current_point().empty()) message = current_point() + ": ";
  // Without a GPU every call fails with a code that says little (hipErrorInvalidDevice).
  if (status == hipErrorNoDevice || status == hipErrorInvalidDevice || status == hipErrorInsufficientDriver) {
    const std::string missing = missing_device_message();
    if (!missing.empty()) message += missing + " First failed call: ";
  }
  message += call + " failed: " + describe(status);
  if (is_sticky(status)) message += "; the device is unusable for the rest of this process";
  return message;
}

}  // namespace pitot::hip

// What CUDA's error handling does on its own: which errors are sticky and how a failure reads.
#include "cuda/error.hpp"

namespace pitot::cuda {

bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

std::string error_message(cudaError_t status, const std::string& call) {
  std::string message;
  if (!current_point().empty()) message = current_point() + ": ";
  message += call + " failed: " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")";
  if (is_sticky(status)) message += "; the device is unusable for the rest of this process";
  return message;
}

}  // namespace pitot::cuda

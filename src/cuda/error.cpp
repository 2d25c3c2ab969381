#include "cuda/error.hpp"

#include <atomic>
#include <filesystem>

namespace pitot::cuda {
namespace {
std::atomic<bool> lost{false};
thread_local std::string point_name;
}  // namespace

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

PointContext::PointContext(std::string point) : previous_(std::move(point_name)) { point_name = std::move(point); }
PointContext::~PointContext() { point_name = std::move(previous_); }
const std::string& current_point() { return point_name; }

bool device_lost() { return lost.load(); }

std::string error_message(cudaError_t status, const std::string& call) {
  std::string message;
  if (!point_name.empty()) message = point_name + ": ";
  message += call + " failed: " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")";
  if (is_sticky(status)) message += "; the device is unusable for the rest of this process";
  return message;
}

void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  if (is_sticky(status)) {
    lost = true;
  } else {
    (void)cudaGetLastError();  // a non-sticky error must not be reported again by the next check
  }
  std::string where = call ? call : "a CUDA call";
  // The file's name only: results and logs must not carry the build machine's paths.
  if (file) where += " at " + std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
  throw Error(error_message(status, where), status);
}

}  // namespace pitot::cuda

#include "gpu/error.hpp"

#include <atomic>
#include <filesystem>

namespace pitot::PITOT_GPU_NAMESPACE {
namespace {
std::atomic<bool> lost{false};
thread_local std::string point_name;
}  // namespace

PointContext::PointContext(std::string point) : previous_(std::move(point_name)) { point_name = std::move(point); }
PointContext::~PointContext() { point_name = std::move(previous_); }
const std::string& current_point() { return point_name; }

bool device_lost() { return lost.load(); }

void check(gpuError_t status, const char* call, const char* file, int line) {
  if (status == gpuSuccess) return;
  if (is_sticky(status)) {
    lost = true;
  } else {
    (void)gpuGetLastError();  // a non-sticky error must not be reported again by the next check
  }
  std::string where = call ? call : std::string("a ") + kRuntimeName + " call";
  // Shared code spells calls gpuX(...): name the runtime's own function (cudaX, hipX) to the user.
  if (where.rfind("gpu", 0) == 0) where.replace(0, 3, PITOT_GPU_CUDA ? "cuda" : "hip");
  // The file's name only: results and logs must not carry the build machine's paths.
  if (file) where += " at " + std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
  throw Error(error_message(status, where), status);
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

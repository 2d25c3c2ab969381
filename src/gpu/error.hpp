// Error handling shared by the CUDA and HIP backends: messages that name the point and the call,
// and the process-wide "device lost" flag set by sticky errors. Which errors are sticky and how a
// failure is described differ by runtime: src/cuda/error.cpp and src/hip/error.cpp define those.
#pragma once

#include <string>

#include "gpu/api.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

// Errors after which the device is unusable until the process exits (defined by each backend).
bool is_sticky(gpuError_t status);

// Names the point whose work this thread runs, for error messages, while in scope.
class PointContext {
 public:
  explicit PointContext(std::string point);
  ~PointContext();
  PointContext(const PointContext&) = delete;
  PointContext& operator=(const PointContext&) = delete;

 private:
  std::string previous_;
};
const std::string& current_point();

// "point: call failed: <description> (<error name>)" (defined by each backend).
std::string error_message(gpuError_t status, const std::string& call);

}  // namespace pitot::PITOT_GPU_NAMESPACE

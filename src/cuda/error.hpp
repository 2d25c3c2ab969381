// CUDA error handling shared by the backend: messages that name the point and the call,
// and the process-wide "device lost" flag set by sticky errors.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include <pitot/cuda.hpp>

namespace pitot::cuda {

// Errors after which the CUDA context is unusable until the process exits.
bool is_sticky(cudaError_t status);

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

// "point: call failed: <description> (<cudaErrorName>)".
std::string error_message(cudaError_t status, const std::string& call);

}  // namespace pitot::cuda

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_CUDA_TRY(call) ::pitot::cuda::check((call), #call, nullptr, 0)

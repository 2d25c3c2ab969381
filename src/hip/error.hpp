// HIP error handling shared by the backend: messages that name the point and the call, and the
// process-wide "device lost" flag set by sticky errors.
#pragma once

#include <hip/hip_runtime_api.h>

#include <string>

#include <pitot/hip.hpp>

namespace pitot::hip {

// Errors after which the device is unusable until the process exits. (Often the HIP runtime
// aborts the process itself on a GPU memory fault; then the driver sees a crash instead.)
bool is_sticky(hipError_t status);

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

// Why HIP sees no GPU here and what to do (facts.hpp's no_device_message); "" when it sees one.
std::string missing_device_message();

// "point: call failed: <description> (<hipErrorName>)"; when the call failed because this machine
// has no usable AMD GPU, the message says that first.
std::string error_message(hipError_t status, const std::string& call);

}  // namespace pitot::hip

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_HIP_TRY(call) ::pitot::hip::check((call), #call, nullptr, 0)

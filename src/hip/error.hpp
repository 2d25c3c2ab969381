// HIP error handling: the shared part (src/gpu/error.hpp), the no-GPU message and the backend's
// check macro. (Often the HIP runtime aborts the process itself on a GPU memory fault; then the
// driver sees a crash instead of a sticky error.)
#pragma once

#include <string>

#include "gpu/error.hpp"

namespace pitot::hip {

// Why HIP sees no GPU here and what to do (facts.hpp's no_device_message); "" when it sees one.
std::string missing_device_message();

}  // namespace pitot::hip

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_HIP_TRY(call) ::pitot::hip::check((call), #call, nullptr, 0)

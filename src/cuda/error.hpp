// CUDA error handling: the shared part (src/gpu/error.hpp) and the backend's check macro.
#pragma once

#include "gpu/error.hpp"

// Check a call inside the backend; the call's text goes into the message.
#define PITOT_CUDA_TRY(call) ::pitot::cuda::check((call), #call, nullptr, 0)

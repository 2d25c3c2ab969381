// The device's own timestamps of the author's work, for the kernel clock (src/gpu/kernel_clock.hpp
// does the bookkeeping). CUDA reads CUPTI activity records (src/cuda/activity.cpp, CUPTI loaded at
// run time); HIP has none yet (src/hip/activity.cpp, docs/hip-backend.md says why).
#pragma once

#include <cstdint>
#include <string>

#include "gpu/api.hpp"
#include "gpu/kernel_clock.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

// Starts activity recording on the first call; "" when the kernel clock can run, else one line
// saying why not (no CUPTI library, a profiler holds CUPTI, ...). Thread-safe; the answer stays.
const std::string& activity_start();
// Records on or off from now on (the batches of points timed with events run without them:
// recording kernels slows some of them). Off after activity_start.
void activity_record(bool on);
// Around one launch of the author's work: records of the API calls in between carry `id`.
void activity_push(std::uint64_t id);
void activity_pop();
// Delivers the records completed so far (call after synchronizing) into `matcher`.
void activity_flush(kernel_clock::Matcher& matcher);

}  // namespace pitot::PITOT_GPU_NAMESPACE

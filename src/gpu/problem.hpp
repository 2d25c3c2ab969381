// A device submission timed against a problem (src/gpu/problem.cpp): the CUDA and HIP backends'
// DeviceBackend::exec_problem.
#pragma once

#include <pitot/problem.hpp>

#include "core/backend.hpp"
#include "gpu/platform.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

void exec_problem(State& state, const DeviceOptions& options, const Problem& problem, const DeviceSubmission& submit);

}  // namespace pitot::PITOT_GPU_NAMESPACE

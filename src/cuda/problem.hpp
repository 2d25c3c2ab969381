// A CUDA submission timed against a problem (src/cuda/problem.cpp): the CUDA backend's
// DeviceBackend::exec_problem.
#pragma once

#include <pitot/problem.hpp>

#include "core/backend.hpp"

namespace pitot::cuda {

void exec_problem(State& state, const DeviceOptions& options, const Problem& problem, const DeviceSubmission& submit);

}  // namespace pitot::cuda

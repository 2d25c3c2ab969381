// asv's environment names for pitot's rows: one per build (compiler, build type, GPU toolkit) or
// Python interpreter, and one more for the rows the kernel clock timed, so rows timed two ways
// never share a graph line.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace pitot {

// Environment name describing the build: cpp-<compiler>-<version>-<build type>[-cuda<ver>], or for
// Python python<version>[-cuda<ver>].
std::string build_env_name();
// The same from requirements (build_requirements() of this or another process).
std::string env_name(std::map<std::string, std::string> requirements);

// Rows timed with the kernel clock get this env suffix, so they never share a history with rows
// timed with events, which keep the plain name (as every row did before the kernel clock).
inline constexpr const char* kKernelClockEnvSuffix = "-kclock";
// A self-timed Python method that `--self-timed device` moved to the device clock
// (python/pitot/_self_timed.py; backend_info "self_timed" and "convention": "device") and that
// events timed keeps apart from its own returned seconds' history with this suffix (the kernel
// clock's rows have theirs): switching conventions starts a graph line instead of a step in one.
inline constexpr const char* kSelfTimedDeviceEnvSuffix = "-devclock";
// The points grouped by the clock that timed them (backend_info "clock"), each group with its env:
// `env` for events, env + kKernelClockEnvSuffix for the kernel clock, env +
// kSelfTimedDeviceEnvSuffix for a self-timed method's events on the device clock (unless `suffix`
// is false: a user's --env is taken as given). A point that names no clock (it failed before
// timing) goes with the clock most of the points used.
std::vector<std::pair<std::string, std::vector<PointResult>>> split_by_clock(const std::string& env,
                                                                             const std::vector<PointResult>& points,
                                                                             bool suffix = true);

}  // namespace pitot

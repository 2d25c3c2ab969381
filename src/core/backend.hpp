// The seam between the backend-neutral core and a device backend (CUDA, HIP).
// A backend registers itself when a program includes its public header.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <pitot/problem.hpp>
#include <pitot/state.hpp>

#include "core/settings.hpp"

namespace pitot {

// Device options from the program's command line; a backend reads what it understands. The
// program passes them to run_points, which hands them to the backend's exec with each point (no
// process-wide copy).
struct DeviceOptions {
  int device = 0;                // --device N
  Timing timing = Timing::Cold;  // --timing cold|hot|graph
  // --clock kernel|events; nullopt: the backend's default for the mode (src/gpu/sampler.hpp,
  // kDefaultColdClock). A profile run (--profile) always uses events.
  std::optional<GpuClock> clock;
  int graph_launches = 0;  // --graph-launches N (0: the backend picks)
  // Samples below this fraction of the nominal SM clock are discarded. Not nvbench's 0.75: dense
  // tensor-core work runs an H200 at its power cap near 0.67-0.75 of the boost clock (measured,
  // NOTES.md), which is that work's real steady state; 0.5 still catches thermal and hardware slowdowns.
  double throttle_ratio = 0.5;
  // --energy S: after a point's samples, its work back to back for at least S seconds between two
  // steps of the card's energy counter, for joules per call (0: not measured).
  double energy_seconds = 0;
  // --cool-to C / --cool-timeout S: before a point, wait until the card is at or under C degrees
  // Celsius, at most S seconds (0: no wait).
  double cool_to_c = 0;
  double cool_timeout_seconds = 60;
  // --untrusted: the code under test may cheat; the checks of docs/untrusted.md run and may fail
  // a point with a reason starting "untrusted: ".
  bool untrusted = false;
};

struct DeviceBackend {
  std::string name;  // "cuda", "hip"
  // Time a device workload for the state's point with the run's options (calls state.run with its
  // sampler).
  std::function<void(State&, const DeviceOptions&, std::function<void(Launch&)>)> exec;
  // Time a submission against a problem the harness owns (include/pitot/problem.hpp); empty where
  // the backend has no problems yet.
  std::function<void(State&, const DeviceOptions&, const Problem&, const DeviceSubmission&)> exec_problem;
  // Called in each point's thread before the benchmark runs: selects `device` (--device).
  std::function<void(int device)> bind_thread;
  // Facts of `device` for JSON and asv ({"gpu": "NVIDIA H200", "arch": "sm_90", ...}); null when
  // there is no such device.
  std::function<nlohmann::json(int device)> device_facts;
  // Default asv machine name from `device`'s product ("h200"); empty when it is not present.
  std::function<std::string(int device)> machine_name;
  // Named ranges around each point (NVTX / rocTX) and profiler start/stop.
  std::function<void(const std::string&)> range_push;
  std::function<void()> range_pop;
  std::function<void()> profiler_start;
  std::function<void()> profiler_stop;
  // True once a sticky device error made the device unusable: the program reports the point
  // that hit it and exits with code 3 so a driver restarts it after that point.
  std::function<bool()> device_lost;
  // Why no device can run here ("" when one can), probed once per process: a program without a
  // usable GPU skips its GPU points with this reason instead of failing each one.
  std::function<std::string()> unusable;
  // How the backend is named to a user ("CUDA", "HIP").
  std::string display_name;
};

namespace detail {
// The run's device options of the state's point (src/core/state.cpp).
const DeviceOptions& device_options(State& state);
}  // namespace detail

// Returns true so a header can register through an inline variable.
bool set_device_backend(DeviceBackend backend);
const DeviceBackend* device_backend();  // nullptr in a CPU-only program

}  // namespace pitot

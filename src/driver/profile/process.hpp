// Running a profiler (or any helper) as a child process for `pitot profile`: no shell, a fresh
// argument and environment list per run, its own process group, stdout/stderr saved to files
// with a size cap, and a timeout that ends the whole group.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace pitot::driver::profile {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct ProcessSpec {
  std::vector<std::string> argv;                   // argv[0] is a path; it is executed as given (no PATH search)
  EnvList env;                                     // set on top of the driver's own environment
  std::filesystem::path cwd;                       // empty: the driver's working directory
  std::filesystem::path stdout_path, stderr_path;  // where the streams go (empty: discarded)
  std::uint64_t stream_cap_bytes = 256ull << 20;   // bytes kept per stream; the rest is counted, not kept
  double timeout_seconds = 0;                      // 0: no limit
  const std::atomic<bool>* interrupt = nullptr;    // set (e.g. by SIGINT): end the child like a timeout
};

struct ProcessEnd {
  bool started = false;
  std::string start_error;  // why it could not start (exec failed: no such file, not executable)
  bool exited = false;      // exit() with `code`; otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  bool timed_out = false;
  bool interrupted = false;
  double wall_seconds = 0;
  std::uint64_t stdout_bytes = 0, stderr_bytes = 0;  // bytes the child wrote
  std::uint64_t stdout_cut = 0, stderr_cut = 0;      // bytes not kept (over the cap)
  bool ok() const { return started && exited && code == 0 && !timed_out && !interrupted; }
  std::string describe() const;  // "exited with code 0", "killed by signal 9 (SIGKILL) after the 30 s timeout"
};

// Runs the process to its end. Never throws for the child's failures; they are in ProcessEnd.
ProcessEnd run_process(const ProcessSpec& spec);

// Runs argv with a timeout and returns what it printed (stdout then stderr) and how it ended.
struct Captured {
  ProcessEnd end;
  std::string out, err;
};
Captured run_captured(const std::vector<std::string>& argv, double timeout_seconds, const EnvList& env = {},
                      std::uint64_t cap_bytes = 16u << 20);

// The environment a child gets: the current one with `env` set on top; built fresh every call.
std::vector<std::string> child_environment(const EnvList& env);

}  // namespace pitot::driver::profile

// The driver's one process layer. spawn() starts a child: no shell, its own process group, stdin
// from /dev/null, stdout and stderr into pipes, and an exec failure reported to the parent instead
// of a silent exit 127. On it: a benchmark program with its result pipe (child.hpp, for `pitot
// run`/`list`), and a helper run to its end with its streams in files (run_process below, for
// `pitot profile`'s profilers and their follow-ups).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace pitot::driver {

// The fd number a child started with a result pipe sees it as; PITOT_RESULT_FD says so.
constexpr int kResultFd = 3;

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is a path; it is executed as given (no PATH search)
  std::vector<std::string> env;   // the child's whole environment, "KEY=value" each
  std::string cwd;                // empty: the driver's working directory
  bool result_pipe = false;       // a third pipe, the child's fd kResultFd
  bool die_with_parent = false;   // Linux: SIGKILL the child when the driver dies (even by SIGKILL)
};

// A step that failed before any child ran; then pid is -1, no fd is open, and errno is `error`.
enum class SpawnFailure { none, pipe, fork };

struct Spawned {
  SpawnFailure failed = SpawnFailure::none;
  // The errno of the child's chdir or execve when they failed, else 0. The child then exits 127
  // and is not reaped here: pid and the pipes are the caller's, as for a child that runs.
  int error = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1, result_fd = -1;  // read ends, close-on-exec, blocking
};

// A regular file this user may execute.
bool is_executable_file(const std::filesystem::path& path);
// The first executable `name` in the folders of $PATH, absolute, or empty when there is none.
// Children are executed without a PATH search, so a name is looked up here first. Empty entries
// of $PATH (the working folder, to a shell) are skipped: nothing runs from it by accident.
std::filesystem::path find_on_path(const std::string& name);

// Forks and executes spec.argv; the child's process group is its pid (set on both sides, so a
// kill(-pid) works at once). Returns when the exec has succeeded or failed.
Spawned spawn(const SpawnSpec& spec);

// How a child ended, from its wait status.
struct ExitStatus {
  bool exited = false;  // exit() with `code`; otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  std::string describe() const;  // "exited with code 3", "killed by signal 11 (SIGSEGV)"
};
ExitStatus decode_wait_status(int status);

// --- A helper run to its end --------------------------------------------------------------------

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

// How a helper ended: its exit status, and what the runner saw around it.
struct ProcessEnd : ExitStatus {
  bool started = false;
  std::string start_error;  // why it could not start (exec failed: no such file, not executable)
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

}  // namespace pitot::driver

// The one way pitot starts a child process, under both executables: the driver's benchmark
// programs (driver/common/child.hpp) and profilers (`pitot profile`), a program's own
// `--processes` replicates (program/replicate.cpp), and git for the host facts (host/machine.cpp).
// spawn() starts a child without a shell, stdin from /dev/null, and reports an exec failure to the
// parent instead of a silent exit 127; run_process()/run_captured() run one to its end.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace pitot {

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is a path; it is executed as given (no PATH search)
  std::string executable;         // what is executed when it is not argv[0] (/proc/self/exe)
  std::vector<std::string> env;   // the child's whole environment, "KEY=value" each
  std::string cwd;                // empty: the parent's working directory
  int result_fd = -1;             // >= 0: a third pipe, the child's fd of this number
  bool die_with_parent = false;   // Linux: SIGKILL the child when the parent dies (even by SIGKILL)
  // Off: the child writes to the parent's own stdout and stderr (a program's replicates print to
  // the same terminal) instead of pipes the parent reads.
  bool capture_output = true;
  // Its own process group, so a timeout ends the child and everything it started. Off: it stays
  // in the parent's group, where the terminal's Ctrl-C reaches both.
  bool own_group = true;
};

// A step that failed before any child ran; then pid is -1, no fd is open, and errno is `error`.
enum class SpawnFailure { none, pipe, fork };

struct Spawned {
  SpawnFailure failed = SpawnFailure::none;
  // The errno of the child's chdir or execve when they failed, else 0. The child then exits 127
  // and is not reaped here: pid and the pipes are the caller's, as for a child that runs.
  int error = 0;
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1, result_fd = -1;  // read ends, close-on-exec, blocking (-1: none)
};

// A regular file this user may execute.
bool is_executable_file(const std::filesystem::path& path);
// The first executable `name` in the folders of $PATH, absolute, or empty when there is none.
// Children are executed without a PATH search, so a name is looked up here first. Empty entries
// of $PATH (the working folder, to a shell) are skipped: nothing runs from it by accident.
std::filesystem::path find_on_path(const std::string& name);

// Forks and executes spec.argv; with own_group the child's process group is its pid (set on both
// sides, so a kill(-pid) works at once). Returns when the exec has succeeded or failed.
Spawned spawn(const SpawnSpec& spec);

// How a child ended, from its wait status.
struct ExitStatus {
  bool exited = false;  // exit() with `code`; otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  std::string describe() const;  // "exited with code 3", "killed by signal 11 (SIGSEGV)"
};
ExitStatus decode_wait_status(int status);
// Blocks until the child `pid` has ended (through EINTR) and says how.
ExitStatus wait_for_exit(pid_t pid);

// --- A helper run to its end --------------------------------------------------------------------

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct ProcessSpec {
  std::vector<std::string> argv;                   // argv[0] is a path; it is executed as given (no PATH search)
  EnvList env;                                     // set on top of the parent's own environment
  std::filesystem::path cwd;                       // empty: the parent's working directory
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

// Runs argv with a timeout (0: none) and returns what it printed, each stream up to cap_bytes,
// and how it ended.
struct Captured {
  ProcessEnd end;
  std::string out, err;
};
Captured run_captured(const std::vector<std::string>& argv, double timeout_seconds, const EnvList& env = {},
                      std::uint64_t cap_bytes = 16u << 20);

// The environment a child gets: the current one with `env` set on top; built fresh every call.
std::vector<std::string> child_environment(const EnvList& env);

}  // namespace pitot

// Starting a child process, shared by `pitot run`/`list` (child.hpp: a benchmark program with its
// result pipe) and `pitot profile` (profile/process.hpp: a profiler writing to files): no shell,
// its own process group, stdin from /dev/null, stdout and stderr into pipes, and an exec failure
// reported to the parent instead of a silent exit 127.
#pragma once

#include <string>
#include <sys/types.h>
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

}  // namespace pitot::driver

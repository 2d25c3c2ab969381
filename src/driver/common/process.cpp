// See process.hpp.
#include "driver/common/process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace pitot::driver {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Spawned spawn(const SpawnSpec& spec) {
  Spawned s;
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env_strings = spec.env, args = spec.argv;
  std::vector<char*> envp, argv;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int res[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, exec_err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {res, out, err, exec_err}) close_fd(p[0]), close_fd(p[1]);
  };
  if ((spec.result_pipe && pipe2(res, O_CLOEXEC) != 0) || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
      pipe2(exec_err, O_CLOEXEC) != 0) {  // exec_err: the child writes errno here if exec fails
    s.failed = SpawnFailure::pipe;
    s.error = errno;
    close_all();
    return s;
  }

  pid_t pid = fork();
  if (pid < 0) {
    s.failed = SpawnFailure::fork;
    s.error = errno;
    close_all();
    return s;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group: a timeout ends the program and everything it started
#ifdef __linux__
    if (spec.die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGPIPE, SIGINT, SIGTERM}) sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    if (spec.result_pipe) {
      if (res[1] == kResultFd) fcntl(kResultFd, F_SETFD, 0);
      else dup2(res[1], kResultFd);
    }
    int error = 0;
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
      error = errno;
    } else {
      execve(argv[0], argv.data(), envp.data());
      error = errno;
    }
    ssize_t ignored = write(exec_err[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists before any kill(-pid)
  close_fd(res[1]);
  close_fd(out[1]);
  close_fd(err[1]);
  close_fd(exec_err[1]);
  s.pid = pid;
  s.result_fd = res[0];
  s.out_fd = out[0];
  s.err_fd = err[0];
  int error = 0;
  ssize_t n;
  do n = read(exec_err[0], &error, sizeof error);
  while (n < 0 && errno == EINTR);
  close_fd(exec_err[0]);
  if (n == static_cast<ssize_t>(sizeof error)) s.error = error;
  return s;
}

std::string ExitStatus::describe() const {
  if (exited) return "exited with code " + std::to_string(code);
  const char* name = sigabbrev_np(signal);
  return "killed by signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : std::string());
}

ExitStatus decode_wait_status(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) {
    s.exited = true;
    s.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    s.signal = WTERMSIG(status);
  }
  return s;
}

}  // namespace pitot::driver

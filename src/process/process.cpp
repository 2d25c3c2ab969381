// See process.hpp.
#include "process/process.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <string_view>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <fmt/format.h>

extern char** environ;

namespace pitot {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

bool is_executable_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::filesystem::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  for (std::string_view rest = path; !rest.empty();) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    if (!dir.empty()) {
      const std::filesystem::path candidate = std::filesystem::path(dir) / name;
      if (is_executable_file(candidate)) return std::filesystem::absolute(candidate);
    }
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return {};
}

Spawned spawn(const SpawnSpec& spec) {
  Spawned s;
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env_strings = spec.env, args = spec.argv;
  const std::string executable = spec.executable.empty() && !args.empty() ? args[0] : spec.executable;
  std::vector<char*> envp, argv;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int res[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, exec_err[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {res, out, err, exec_err}) close_fd(p[0]), close_fd(p[1]);
  };
  const bool result_pipe = spec.result_fd >= 0;
  if ((result_pipe && pipe2(res, O_CLOEXEC) != 0) || (spec.capture_output && pipe2(out, O_CLOEXEC) != 0) ||
      (spec.capture_output && pipe2(err, O_CLOEXEC) != 0) ||
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
    if (spec.own_group) setpgid(0, 0);  // its own group: a timeout ends the program and everything it started
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
    if (spec.capture_output) {
      dup2(out[1], STDOUT_FILENO);
      dup2(err[1], STDERR_FILENO);
    }
    if (result_pipe) {
      if (res[1] == spec.result_fd) fcntl(spec.result_fd, F_SETFD, 0);
      else dup2(res[1], spec.result_fd);
    }
    int error = 0;
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
      error = errno;
    } else {
      execve(executable.c_str(), argv.data(), envp.data());
      error = errno;
    }
    ssize_t ignored = write(exec_err[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  if (spec.own_group) setpgid(pid, pid);  // also here, so the group exists before any kill(-pid)
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

ExitStatus wait_for_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return decode_wait_status(status);
}

// --- A helper run to its end --------------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One captured stream: a pipe read end and where it is copied to, a file or a string, up to a cap.
struct Stream {
  int fd = -1;
  int file = -1;
  std::string* text = nullptr;
  std::uint64_t written = 0, seen = 0;
};

void pump(Stream& s, std::uint64_t cap) {
  char buf[65536];
  ssize_t n = read(s.fd, buf, sizeof buf);
  if (n > 0) {
    s.seen += static_cast<std::uint64_t>(n);
    const auto keep = static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(n), cap - std::min(cap, s.written)));
    if (s.text) {
      s.text->append(buf, keep);
      s.written += keep;
    } else if (s.file >= 0) {
      std::size_t off = 0;
      while (off < keep) {
        ssize_t w = write(s.file, buf + off, keep - off);
        if (w <= 0) break;
        off += static_cast<std::size_t>(w);
      }
      s.written += off;
    }
    return;
  }
  if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    close(s.fd);
    s.fd = -1;
  }
}

int open_output(const std::filesystem::path& p) {
  if (p.empty()) return -1;
  return open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

std::vector<std::string> child_environment(const EnvList& env) {
  std::map<std::string, std::string> merged;
  std::vector<std::string> order;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string key = kv.substr(0, eq);
    if (!merged.count(key)) order.push_back(key);
    merged[key] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) {
    if (!merged.count(k)) order.push_back(k);
    merged[k] = v;
  }
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const auto& k : order) out.push_back(k + "=" + merged[k]);
  return out;
}

std::string ProcessEnd::describe() const {
  if (!started) return "could not start: " + start_error;
  std::string what = ExitStatus::describe();
  if (timed_out) what += fmt::format(" after reaching the time limit ({:.0f} s)", wall_seconds);
  if (interrupted) what += " after an interrupt";
  return what;
}

namespace {

// run_process and run_captured: `out` and `err` name where each stream goes (their fd is set here).
// The sinks' files are closed here in every case.
ProcessEnd run_to_end(const ProcessSpec& spec, Stream out, Stream err) {
  ProcessEnd end;
  auto close_files = [&] {
    for (int* f : {&out.file, &err.file})
      if (*f >= 0) close(*f), *f = -1;
  };
  if (spec.argv.empty()) {
    end.start_error = "empty command";
    close_files();
    return end;
  }
  SpawnSpec child;
  child.argv = spec.argv;
  child.env = child_environment(spec.env);
  child.cwd = spec.cwd.string();
  const std::string& cwd = child.cwd;

  const auto start = Clock::now();
  Spawned started = spawn(child);
  if (started.failed != SpawnFailure::none) {
    end.start_error = std::string(started.failed == SpawnFailure::pipe ? "pipe: " : "fork: ") + std::strerror(started.error);
    close_files();
    return end;
  }
  const pid_t pid = started.pid;
  out.fd = started.out_fd;
  err.fd = started.err_fd;
  if (started.error != 0) {
    end.start_error = cwd.empty() || started.error == ENOENT || started.error == EACCES
                          ? fmt::format("{}: {}", spec.argv[0], std::strerror(started.error))
                          : fmt::format("{} (in {}): {}", spec.argv[0], cwd, std::strerror(started.error));
  } else {
    end.started = true;
  }

  int status = 0;
  bool reaped = false;
  bool term_sent = false;
  Clock::time_point term_time{};
  unsigned idle_us = 1000;
  while (!reaped || out.fd >= 0 || err.fd >= 0) {
    pollfd fds[2];
    int n = 0;
    if (out.fd >= 0) fds[n++] = {out.fd, POLLIN, 0};
    if (err.fd >= 0) fds[n++] = {err.fd, POLLIN, 0};
    if (n > 0) {
      int r = poll(fds, static_cast<nfds_t>(n), 50);
      if (r > 0) {
        for (int i = 0; i < n; ++i) {
          if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
          pump(fds[i].fd == out.fd ? out : err, spec.stream_cap_bytes);
        }
      }
    } else {
      // Both streams closed: the child is ending, or runs on without them. Look again after 1 ms,
      // then less often (up to 20 ms), so a short command such as git costs no 20 ms at its end.
      usleep(idle_us);
      idle_us = std::min(2 * idle_us, 20000u);
    }
    if (!reaped) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        reaped = true;
        end.wall_seconds = seconds_since(start);
      }
    }
    // A helper the tool left behind may hold the pipes open: after the child is gone, give the
    // streams a moment, then stop reading.
    const bool over_time = spec.timeout_seconds > 0 && seconds_since(start) > spec.timeout_seconds;
    const bool interrupted = spec.interrupt && spec.interrupt->load();
    if (!reaped && !term_sent && (over_time || interrupted)) {
      end.timed_out = over_time && !interrupted;
      end.interrupted = interrupted;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_time = Clock::now();
    }
    if (term_sent && !reaped && seconds_since(term_time) > 5) kill(-pid, SIGKILL);
    if (reaped && (out.fd >= 0 || err.fd >= 0) && seconds_since(start) - end.wall_seconds > 5) {
      kill(-pid, SIGKILL);
      if (seconds_since(start) - end.wall_seconds > 7) {
        if (out.fd >= 0) close(out.fd), out.fd = -1;
        if (err.fd >= 0) close(err.fd), err.fd = -1;
      }
    }
  }
  if (term_sent) kill(-pid, SIGKILL);  // whatever of the group survived the child
  const bool out_kept = out.file >= 0 || out.text, err_kept = err.file >= 0 || err.text;
  close_files();
  end.stdout_bytes = out.seen;
  end.stderr_bytes = err.seen;
  end.stdout_cut = out_kept ? out.seen - out.written : 0;
  end.stderr_cut = err_kept ? err.seen - err.written : 0;
  static_cast<ExitStatus&>(end) = decode_wait_status(status);
  return end;
}

}  // namespace

ProcessEnd run_process(const ProcessSpec& spec) {
  Stream out, err;
  out.file = open_output(spec.stdout_path);
  err.file = open_output(spec.stderr_path);
  return run_to_end(spec, out, err);
}

Captured run_captured(const std::vector<std::string>& argv, double timeout_seconds, const EnvList& env,
                      std::uint64_t cap_bytes) {
  Captured c;
  ProcessSpec spec;
  spec.argv = argv;
  spec.env = env;
  spec.timeout_seconds = timeout_seconds;
  spec.stream_cap_bytes = cap_bytes;
  Stream out, err;
  out.text = &c.out;
  err.text = &c.err;
  c.end = run_to_end(spec, out, err);
  return c;
}

}  // namespace pitot

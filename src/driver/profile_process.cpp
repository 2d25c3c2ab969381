// See profile_process.hpp.
#include "driver/profile_process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <poll.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

extern char** environ;

namespace pitot::driver::profile {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One captured stream: a pipe read end and the file it is copied to, up to a cap.
struct Stream {
  int fd = -1;
  int file = -1;
  std::uint64_t written = 0, seen = 0;
};

void pump(Stream& s, std::uint64_t cap) {
  char buf[65536];
  ssize_t n = read(s.fd, buf, sizeof buf);
  if (n > 0) {
    s.seen += static_cast<std::uint64_t>(n);
    if (s.file >= 0 && s.written < cap) {
      auto keep = static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(n), cap - s.written));
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
  std::string what;
  if (exited) {
    what = fmt::format("exited with code {}", code);
  } else {
    const char* name = sigabbrev_np(signal);
    what = fmt::format("killed by signal {}{}", signal, name ? fmt::format(" (SIG{})", name) : "");
  }
  if (timed_out) what += fmt::format(" after reaching the time limit ({:.0f} s)", wall_seconds);
  if (interrupted) what += " after an interrupt";
  return what;
}

ProcessEnd run_process(const ProcessSpec& spec) {
  ProcessEnd end;
  if (spec.argv.empty()) {
    end.start_error = "empty command";
    return end;
  }
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env_strings = child_environment(spec.env);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string cwd = spec.cwd.string();

  int out_pipe[2], err_pipe[2], status_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 || pipe2(status_pipe, O_CLOEXEC) != 0) {
    end.start_error = std::string("pipe: ") + std::strerror(errno);
    return end;
  }
  Stream out{out_pipe[0], open_output(spec.stdout_path)};
  Stream err{err_pipe[0], open_output(spec.stderr_path)};

  const auto start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    end.start_error = std::string("fork: ") + std::strerror(errno);
    return end;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group: a timeout ends the tool and everything it started
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    int error = 0;
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      error = errno;
    } else {
      execve(argv[0], argv.data(), envp.data());
      error = errno;
    }
    ssize_t ignored = write(status_pipe[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists before any kill below
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(status_pipe[1]);
  int exec_error = 0;
  bool exec_failed = read(status_pipe[0], &exec_error, sizeof exec_error) == static_cast<ssize_t>(sizeof exec_error);
  close(status_pipe[0]);
  if (exec_failed) {
    end.start_error = cwd.empty() || exec_error == ENOENT || exec_error == EACCES
                          ? fmt::format("{}: {}", spec.argv[0], std::strerror(exec_error))
                          : fmt::format("{} (in {}): {}", spec.argv[0], cwd, std::strerror(exec_error));
  } else {
    end.started = true;
  }

  int status = 0;
  bool reaped = false;
  bool term_sent = false;
  Clock::time_point term_time{};
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
      usleep(20000);
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
  if (out.file >= 0) close(out.file);
  if (err.file >= 0) close(err.file);
  end.stdout_bytes = out.seen;
  end.stderr_bytes = err.seen;
  end.stdout_cut = out.file >= 0 ? out.seen - out.written : 0;
  end.stderr_cut = err.file >= 0 ? err.seen - err.written : 0;
  if (WIFEXITED(status)) {
    end.exited = true;
    end.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
  }
  return end;
}

Captured run_captured(const std::vector<std::string>& argv, double timeout_seconds, const EnvList& env,
                      std::uint64_t cap_bytes) {
  Captured c;
  char dir_template[] = "/tmp/pitot-capture-XXXXXX";
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = (tmp && *tmp ? std::string(tmp) : std::string("/tmp")) + "/pitot-capture-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const char* dir = mkdtemp(buf.data());
  if (!dir) dir = mkdtemp(dir_template);
  if (!dir) {
    c.end.start_error = std::string("cannot create a temporary folder: ") + std::strerror(errno);
    return c;
  }
  std::filesystem::path d = dir;
  ProcessSpec spec;
  spec.argv = argv;
  spec.env = env;
  spec.stdout_path = d / "out";
  spec.stderr_path = d / "err";
  spec.timeout_seconds = timeout_seconds;
  spec.stream_cap_bytes = cap_bytes;
  c.end = run_process(spec);
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  c.out = slurp(spec.stdout_path);
  c.err = slurp(spec.stderr_path);
  std::error_code ec;
  std::filesystem::remove_all(d, ec);
  return c;
}

}  // namespace pitot::driver::profile

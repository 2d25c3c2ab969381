// See spawn.hpp.
#include "spawn.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace pitot::ranks::testing {

namespace {

// A port nothing listens on now: the kernel's pick for a socket bound to port 0.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0)
    throw std::runtime_error("no free port on 127.0.0.1");
  ::close(fd);
  return ntohs(a.sin_port);
}

// The child's side: never returns, so the test framework's state is not run twice.
[[noreturn]] void child(int rank, int world, int port, int out, const std::function<std::string(int)>& body) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test that dies takes its ranks along
  ::setenv("RANK", std::to_string(rank).c_str(), 1);
  ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
  std::string report;
  int code = 0;
  try {
    report = body(rank);
  } catch (const std::exception& e) {
    report = std::string("error: ") + e.what();
    code = 3;
  }
  (void)!::write(out, report.data(), report.size());  // less than a pipe holds: read after the exit
  ::_exit(code);
}

}  // namespace

std::vector<RankEnd> run_ranks(int world, const std::function<std::string(int rank)>& body, const std::set<int>& hangs,
                               double limit_seconds) {
  const int port = free_port();
  const double start = now_seconds();
  std::vector<pid_t> pids(static_cast<std::size_t>(world), -1);
  std::vector<int> outs(pids.size(), -1);
  std::vector<RankEnd> ends(pids.size());
  for (int r = 0; r < world; ++r) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      child(r, world, port, fds[1], body);
    }
    ::close(fds[1]);
    pids[static_cast<std::size_t>(r)] = pid;
    outs[static_cast<std::size_t>(r)] = fds[0];
  }
  // Reaps the children as they end; the hanging ones once the others have.
  for (std::size_t running = pids.size(); running > 0;) {
    std::size_t others = 0;
    for (std::size_t r = 0; r < pids.size(); ++r) {
      if (pids[r] < 0) continue;
      int status = 0;
      if (::waitpid(pids[r], &status, WNOHANG) == pids[r]) {
        RankEnd& e = ends[r];
        e.seconds = now_seconds() - start;
        e.exited = WIFEXITED(status);
        e.code = e.exited ? WEXITSTATUS(status) : -1;
        e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        pids[r] = -1;
        --running;
      } else if (!hangs.count(static_cast<int>(r))) {
        ++others;
      }
    }
    if (running > 0 && (others == 0 || now_seconds() - start > limit_seconds))
      for (pid_t pid : pids)
        if (pid > 0) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (std::size_t r = 0; r < outs.size(); ++r) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(outs[r], buffer, sizeof buffer)) > 0;) ends[r].report.append(buffer, static_cast<std::size_t>(n));
    ::close(outs[r]);
  }
  return ends;
}

Group join(double timeout_seconds) { return Group::join(ranks_from_environment(), timeout_seconds); }

double now_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace pitot::ranks::testing

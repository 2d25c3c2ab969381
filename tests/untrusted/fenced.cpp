// A benchmark program that tries to get out of the sandbox (sandbox.py, docs/untrusted.md "The
// fence"): each point tries one thing and reports what happened as its skip reason, "done: ..."
// or "refused: ...", so the test reads the outcome from pitot run's JSON without trusting
// anything else the program says.
#include <pitot/pitot.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

std::string outcome(bool done, const std::string& what) {
  return (done ? "done: " : "refused: ") + what + (done ? "" : std::string(" (") + std::strerror(errno) + ")");
}

// Creates `path` and writes a line into it.
std::string write_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const bool done = fd >= 0 && ::write(fd, "escaped\n", 8) == 8;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  errno = error;
  return outcome(done, "write " + path);
}

// A UDP socket connected to a non-loopback address: no packet is sent, but the kernel needs a
// route to it, which a network namespace with only its loopback does not have.
std::string connect_out() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return outcome(false, "socket");
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  ::inet_pton(AF_INET, "198.51.100.1", &to.sin_addr);  // TEST-NET-2: routed only by a default route
  const bool done = ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0;
  const int error = errno;
  ::close(fd);
  errno = error;
  return outcome(done, "connect 198.51.100.1:9");
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

void escape(pitot::State& state) {
  const std::string& what = state.get_string("try");
  if (what == "write_outside") state.skip(write_file(env("FENCE_TEST_OUTSIDE") + "/escaped"));
  else if (what == "write_scratch") state.skip(write_file(env("TMPDIR") + "/kept"));
  else if (what == "write_shm") state.skip(write_file("/dev/shm/" + env("FENCE_TEST_SHM_NAME")));
  else if (what == "network") state.skip(connect_out());
}

PITOT_BENCHMARK(escape).axis("try", std::vector<std::string>{"write_outside", "write_scratch", "write_shm", "network"});

}  // namespace

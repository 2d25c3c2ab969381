// See link.hpp.
#include "ranks/link.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "ranks/ranks.hpp"

namespace pitot::ranks {

namespace {

// Non-blocking, not inherited by children, and no Nagle delay: a barrier is a few small frames.
void tune(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

struct Addresses {
  addrinfo* list = nullptr;
  int error = 0;
  Addresses(const std::string& addr, int port, bool passive) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    error = ::getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &list);
  }
  ~Addresses() {
    if (list) ::freeaddrinfo(list);
  }
  Addresses(const Addresses&) = delete;
  Addresses& operator=(const Addresses&) = delete;
};

// One non-blocking connect, waited on until the deadline; the connected fd or -1 and `error`.
int connect_once(const addrinfo& a, Clock::time_point deadline, std::string& error) {
  int fd = ::socket(a.ai_family, a.ai_socktype, a.ai_protocol);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  tune(fd);
  int rc = ::connect(fd, a.ai_addr, a.ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, ms_until(deadline)) == 1) {
      int so_error = 0;
      socklen_t length = sizeof so_error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &length);
      rc = so_error == 0 ? 0 : -1;
      errno = so_error;
    } else {
      errno = ETIMEDOUT;
    }
  }
  if (rc == 0) return fd;
  error = std::strerror(errno);
  close_fd(fd);
  return -1;
}

}  // namespace

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int ms_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left + 1, 1 << 30));
}

Io read_some(Peer& peer) {
  auto* bytes = reinterpret_cast<char*>(&peer.frame);
  while (peer.have < sizeof(Frame)) {
    const ssize_t n = ::recv(peer.fd, bytes + peer.have, sizeof(Frame) - peer.have, 0);
    if (n > 0) {
      peer.have += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return Io::partial;
    } else {
      return Io::closed;  // 0: the peer closed; an error: reset, which is the same to us
    }
  }
  peer.have = 0;
  return Io::whole;
}

Sent send_frame(int fd, const Frame& frame, Clock::time_point deadline) {
  const auto* bytes = reinterpret_cast<const char*>(&frame);
  std::size_t sent = 0;
  while (sent < sizeof(Frame)) {
    const ssize_t n = ::send(fd, bytes + sent, sizeof(Frame) - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return Sent::closed;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, ms_until(deadline)) == 0) return Sent::timeout;
  }
  return Sent::ok;
}

void send_now(int fd, const Frame& frame) {
  if (fd >= 0) (void)::send(fd, &frame, sizeof frame, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int listen_on(const std::string& addr, int port) {
  const Addresses addresses(addr, port, true);
  if (addresses.error != 0)
    throw RankError(fmt::format("rank 0 cannot listen on {}:{}: {}", addr, port, ::gai_strerror(addresses.error)), 0);
  std::string error = "no address";
  for (const addrinfo* a = addresses.list; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // a port in TIME_WAIT from the last run
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      tune(fd);
      return fd;
    }
    error = std::strerror(errno);
    close_fd(fd);
  }
  throw RankError(fmt::format("rank 0 cannot listen on {}:{}: {}", addr, port, error), 0);
}

int accept_one(int listener) {
  const int fd = ::accept(listener, nullptr, nullptr);
  if (fd >= 0) tune(fd);
  return fd;
}

int connect_to(const std::string& addr, int port, Clock::time_point deadline, std::string& error) {
  // Rank 0 may not listen yet: refused connections are tried again until the deadline.
  while (true) {
    const Addresses addresses(addr, port, false);
    if (addresses.error != 0) {
      error = ::gai_strerror(addresses.error);
    } else {
      for (const addrinfo* a = addresses.list; a; a = a->ai_next) {
        const int fd = connect_once(*a, deadline, error);
        if (fd >= 0) return fd;
      }
    }
    if (Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50, ms_until(deadline))));
  }
}

}  // namespace pitot::ranks

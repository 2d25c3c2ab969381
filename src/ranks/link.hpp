// The sockets under ranks::Group (group.cpp): fixed-size frames over TCP, every wait bounded by a
// deadline, every socket non-blocking so that a peer that stops reading or writing cannot stall us.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pitot::ranks {

using Clock = std::chrono::steady_clock;

enum class Kind : std::uint32_t { hello = 1, arrive, release, abort };
enum class Op : std::uint32_t { join = 1, barrier, broadcast, gather };

// Sent as its bytes: every rank of a run is the same build on the same kind of host.
struct Frame {
  static constexpr std::uint32_t magic_value = 0x70697431;  // "pit1": a stray connection is told apart
  std::uint32_t magic = magic_value;
  Kind kind = Kind::hello;
  Op op = Op::join;
  std::uint32_t step = 0;  // the collective's number, counted alike on every rank
  std::int32_t rank = 0, world_size = 0;  // the sender's
  std::int64_t integer = 0;               // a broadcast's value, a gather's slowest rank, an abort's failed rank
  double values[3] = {0, 0, 0};           // a gather's value; its max, min and mean on the way back
  char text[256] = {};                    // an abort's reason
};

// A connection to one other rank, with what has arrived so far of its next frame.
struct Peer {
  int rank = -1;
  int fd = -1;
  Frame frame;
  std::size_t have = 0;
};

enum class Io { whole, partial, closed };
// Reads what has arrived of the peer's next frame, without blocking.
Io read_some(Peer& peer);

enum class Sent { ok, closed, timeout };
// Sends a whole frame, waiting for room in the socket until the deadline.
Sent send_frame(int fd, const Frame& frame, Clock::time_point deadline);
// One try at sending a frame that may be lost (an abort to a rank that may be gone).
void send_now(int fd, const Frame& frame);

// A listening socket on addr:port; throws RankError when it cannot bind.
int listen_on(const std::string& addr, int port);
// A new connection waiting on the listener, or -1.
int accept_one(int listener);
// A connection to addr:port, retried until the deadline while nobody listens; -1 and `error` set
// when the deadline passes.
int connect_to(const std::string& addr, int port, Clock::time_point deadline, std::string& error);

void close_fd(int& fd);
// Milliseconds left until the deadline, for poll(): 0 when it has passed.
int ms_until(Clock::time_point deadline);

}  // namespace pitot::ranks

// See ranks.hpp; the protocol is in docs/ranks.md. A star: every rank talks to rank 0 only, and rank
// 0 answers each collective once every rank has arrived, so ranks never need each other's addresses.
#include "ranks/ranks.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <poll.h>
#include <vector>

#include <fmt/format.h>

#include "ranks/link.hpp"

namespace pitot::ranks {

namespace {

// The others wait this much longer for rank 0 than rank 0 waits for them: when a rank hangs, rank
// 0's report, which names it, then reaches them before their own timeout, which could only name rank 0.
constexpr double member_grace_seconds = 0.5;

const char* op_name(Op op) {
  switch (op) {
    case Op::join: return "join";
    case Op::barrier: return "barrier";
    case Op::broadcast: return "broadcast";
    case Op::gather: return "gather";
  }
  return "unknown collective";
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

class Connections {
 public:
  Connections(RankInfo info, double timeout) : info_(std::move(info)), timeout_(timeout) {}
  ~Connections() {
    for (Peer& p : peers_) close_fd(p.fd);
  }
  Connections(const Connections&) = delete;
  Connections& operator=(const Connections&) = delete;

  const RankInfo& info() const { return info_; }
  void join_as_root();
  void join_as_member();
  void barrier(std::string_view label);
  std::int64_t broadcast(std::int64_t value, std::string_view label);
  Spread gather(double value, std::string_view label);
  std::string broadcast_chunk(std::string_view chunk, std::size_t size, std::string_view label);
  void abort(const std::string& reason) {
    if (failure_) return;
    try {
      fail(fmt::format("rank {} failed: {}", info_.rank, reason), info_.rank);
    } catch (const RankError&) {
    }
  }
  std::string failure() const { return failure_ ? failure_->what() : ""; }

 private:
  Frame frame(Kind kind, Op op) const {
    Frame f;
    f.kind = kind, f.op = op, f.step = step_, f.rank = info_.rank, f.world_size = info_.world_size;
    return f;
  }
  std::string where(Op op, std::string_view label) const {
    if (label.empty()) return fmt::format("the {} (collective {})", op_name(op), step_);
    return fmt::format("the {} '{}' (collective {})", op_name(op), label, step_);
  }
  double wait_seconds() const { return info_.rank == 0 ? timeout_ : timeout_ + member_grace_seconds; }
  void begin() {
    if (failure_) throw *failure_;  // a failed group stays failed: its sockets are closed
    ++step_;
  }
  [[noreturn]] void fail(const std::string& message, int failed_rank);
  void check(const Peer& peer, Op op, std::string_view label);
  void await(Op op, std::string_view label);
  void send_to_all(const Frame& f, std::string_view label);

  RankInfo info_;
  double timeout_;
  std::vector<Peer> peers_;  // rank 0: every other rank, in order; the others: rank 0
  std::uint32_t step_ = 0;
  std::optional<RankError> failure_;
};

// Tells every rank it can still reach why (they would otherwise only see this rank gone), and
// closes the sockets, so that a rank waiting on this one learns it at once.
void Connections::fail(const std::string& message, int failed_rank) {
  Frame f = frame(Kind::abort, Op::join);
  f.integer = failed_rank;
  std::strncpy(f.text, message.c_str(), sizeof f.text - 1);
  for (Peer& p : peers_) {
    send_now(p.fd, f);
    close_fd(p.fd);
  }
  failure_.emplace(message, failed_rank);
  throw *failure_;
}

void Connections::check(const Peer& peer, Op op, std::string_view label) {
  const Frame& f = peer.frame;
  const int me = info_.rank;
  if (f.magic != Frame::magic_value) fail(fmt::format("rank {} sent rank {} something that is not pitot's rank protocol", peer.rank, me), peer.rank);
  if (f.kind == Kind::abort) {
    const std::string reason(f.text, strnlen(f.text, sizeof f.text));
    fail(fmt::format("rank {} stopped the group at {}: {}", peer.rank, where(op, label), reason), static_cast<int>(f.integer));
  }
  const Kind expected = me == 0 ? Kind::arrive : Kind::release;
  if (f.kind != expected || f.op != op || f.step != step_)
    fail(fmt::format("rank {} is at the {} (collective {}) while rank {} is at {}: every rank must call the same collectives in the same order",
                     peer.rank, op_name(f.op), f.step, me, where(op, label)),
         peer.rank);
}

// Waits for the next frame of every peer, until the deadline; fails naming the rank that closed its
// connection, broke the order or did not come.
void Connections::await(Op op, std::string_view label) {
  const auto deadline = after(wait_seconds());
  std::vector<Peer*> pending;
  for (Peer& p : peers_) pending.push_back(&p);
  while (!pending.empty()) {
    std::vector<pollfd> fds;
    for (Peer* p : pending) fds.push_back({p->fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), ms_until(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      std::vector<int> late;
      for (Peer* p : pending) late.push_back(p->rank);
      fail(fmt::format("rank {} timed out after {:g} s waiting for {} at {}", info_.rank, wait_seconds(), rank_list(late), where(op, label)),
           late.front());
    }
    for (std::size_t i = fds.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      Peer& p = *pending[i];
      const Io io = read_some(p);
      if (io == Io::partial) continue;
      if (io == Io::closed)
        fail(fmt::format("rank {} closed its connection (it exited or crashed) while rank {} waited for it at {}", p.rank, info_.rank, where(op, label)),
             p.rank);
      check(p, op, label);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

void Connections::send_to_all(const Frame& f, std::string_view label) {
  const auto deadline = after(timeout_);
  for (Peer& p : peers_) {
    const Sent sent = send_frame(p.fd, f, deadline);
    // A rank that aborted may have said why before closing: its reason beats "closed".
    if (sent == Sent::closed && read_some(p) == Io::whole && p.frame.kind == Kind::abort) check(p, f.op, label);
    if (sent == Sent::closed)
      fail(fmt::format("rank {} closed its connection (it exited or crashed) before rank {} could send it {}", p.rank, info_.rank, where(f.op, label)), p.rank);
    if (sent == Sent::timeout)
      fail(fmt::format("rank {} timed out after {:g} s sending {} to rank {}, which stopped reading", info_.rank, timeout_, where(f.op, label), p.rank), p.rank);
  }
}

// Rank 0: accepts connections until every other rank has said who it is. A connection that closes
// or does not speak the protocol before that is dropped (a port scanner, a stale client).
void Connections::join_as_root() {
  const auto deadline = after(timeout_);
  int listener = listen_on(info_.master_addr, info_.master_port);
  std::vector<Peer> unknown;
  struct Cleanup {
    int& listener;
    std::vector<Peer>& unknown;
    ~Cleanup() {
      close_fd(listener);
      for (Peer& p : unknown) close_fd(p.fd);
    }
  } cleanup{listener, unknown};
  std::vector<bool> joined(static_cast<std::size_t>(info_.world_size), false);
  joined[0] = true;
  while (peers_.size() + 1 < joined.size()) {
    std::vector<pollfd> fds{{listener, POLLIN, 0}};
    for (const Peer& p : unknown) fds.push_back({p.fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), ms_until(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      std::vector<int> missing;
      for (std::size_t r = 0; r < joined.size(); ++r)
        if (!joined[r]) missing.push_back(static_cast<int>(r));
      fail(fmt::format("rank 0 timed out after {:g} s waiting for {} to connect to {}:{}", timeout_, rank_list(missing), info_.master_addr, info_.master_port),
           missing.front());
    }
    for (std::size_t i = unknown.size(); i-- > 0;) {
      if (fds[i + 1].revents == 0) continue;
      const Io io = read_some(unknown[i]);
      if (io == Io::partial) continue;
      Peer p = unknown[i];
      unknown.erase(unknown.begin() + static_cast<std::ptrdiff_t>(i));
      const Frame& f = p.frame;
      if (io == Io::closed || f.magic != Frame::magic_value || f.kind != Kind::hello) {
        close_fd(p.fd);
        continue;
      }
      p.rank = f.rank;
      peers_.push_back(p);  // from here on fail() tells it why, too
      if (f.world_size != info_.world_size)
        fail(fmt::format("rank {} was started for {} ranks, rank 0 for {}", f.rank, f.world_size, info_.world_size), f.rank);
      if (f.rank < 1 || f.rank >= info_.world_size || joined[static_cast<std::size_t>(f.rank)])
        fail(fmt::format("two processes say they are rank {} of {}", f.rank, info_.world_size), f.rank);
      joined[static_cast<std::size_t>(f.rank)] = true;
    }
    if (fds[0].revents != 0)
      for (int fd; (fd = accept_one(listener)) >= 0;) unknown.push_back(Peer{-1, fd, Frame{}, 0});
  }
  std::sort(peers_.begin(), peers_.end(), [](const Peer& a, const Peer& b) { return a.rank < b.rank; });
  send_to_all(frame(Kind::release, Op::join), {});  // every rank has joined
}

void Connections::join_as_member() {
  std::string error;
  Peer root;
  root.rank = 0;
  root.fd = connect_to(info_.master_addr, info_.master_port, after(timeout_), error);
  if (root.fd < 0)
    fail(fmt::format("rank {} could not connect to rank 0 at {}:{} within {:g} s: {}", info_.rank, info_.master_addr, info_.master_port, timeout_, error), 0);
  peers_.push_back(root);
  send_to_all(frame(Kind::hello, Op::join), {});
  await(Op::join, {});  // rank 0's answer: every rank has joined
}

void Connections::barrier(std::string_view label) {
  begin();
  if (info_.rank == 0) {
    await(Op::barrier, label);
    send_to_all(frame(Kind::release, Op::barrier), label);
  } else {
    send_to_all(frame(Kind::arrive, Op::barrier), label);
    await(Op::barrier, label);
  }
}

std::int64_t Connections::broadcast(std::int64_t value, std::string_view label) {
  begin();
  if (info_.rank == 0) {
    Frame f = frame(Kind::release, Op::broadcast);
    f.integer = value;
    send_to_all(f, label);
    return value;
  }
  await(Op::broadcast, label);
  return peers_[0].frame.integer;
}

// One frame of a byte broadcast: rank 0's `chunk`, `size` bytes of the text field on the others.
std::string Connections::broadcast_chunk(std::string_view chunk, std::size_t size, std::string_view label) {
  begin();
  if (info_.rank == 0) {
    Frame f = frame(Kind::release, Op::broadcast);
    f.integer = static_cast<std::int64_t>(chunk.size());
    std::memcpy(f.text, chunk.data(), chunk.size());
    send_to_all(f, label);
    return std::string(chunk);
  }
  await(Op::broadcast, label);
  const Frame& f = peers_[0].frame;
  if (f.integer != static_cast<std::int64_t>(size))
    fail(fmt::format("rank 0 broadcast {} bytes at {} where rank {} expected {}", f.integer, where(Op::broadcast, label), info_.rank, size), 0);
  return std::string(f.text, size);
}

Spread Connections::gather(double value, std::string_view label) {
  begin();
  if (info_.rank != 0) {
    Frame f = frame(Kind::arrive, Op::gather);
    f.values[0] = value;
    send_to_all(f, label);
    await(Op::gather, label);
    const Frame& back = peers_[0].frame;
    return Spread{back.values[0], back.values[1], back.values[2], static_cast<int>(back.integer)};
  }
  await(Op::gather, label);
  Spread s{value, value, value, 0};
  double sum = value;
  for (const Peer& p : peers_) {  // in rank order: on a tie the lowest rank is the slowest
    const double v = p.frame.values[0];
    if (v > s.max) s.max = v, s.slowest = p.rank;
    s.min = std::min(s.min, v);
    sum += v;
  }
  s.mean = sum / info_.world_size;
  Frame f = frame(Kind::release, Op::gather);
  f.values[0] = s.max, f.values[1] = s.min, f.values[2] = s.mean, f.integer = s.slowest;
  send_to_all(f, label);
  return s;
}

Group Group::join(const RankInfo& info, double timeout_seconds) {
  if (!(timeout_seconds > 0)) throw std::invalid_argument("the ranks' timeout must be more than 0 seconds");
  auto connections = std::make_unique<Connections>(info, timeout_seconds);
  if (info.world_size > 1 && info.rank == 0) connections->join_as_root();
  if (info.world_size > 1 && info.rank != 0) connections->join_as_member();
  return Group(std::move(connections));
}

Group::Group(std::unique_ptr<Connections> connections) : connections_(std::move(connections)) {}
Group::Group(Group&&) noexcept = default;
Group& Group::operator=(Group&&) noexcept = default;
Group::~Group() = default;

int Group::rank() const { return connections_->info().rank; }
int Group::world_size() const { return connections_->info().world_size; }

// One rank alone has nobody to wait for.
void Group::barrier(std::string_view label) {
  if (world_size() > 1) connections_->barrier(label);
}

std::int64_t Group::broadcast(std::int64_t value, std::string_view label) {
  return world_size() > 1 ? connections_->broadcast(value, label) : value;
}

Spread Group::gather(double value, std::string_view label) {
  return world_size() > 1 ? connections_->gather(value, label) : Spread{value, value, value, 0};
}

std::string Group::broadcast_bytes(std::string_view bytes, std::string_view label) {
  if (world_size() == 1) return std::string(bytes);
  constexpr std::size_t kChunk = sizeof(Frame::text);
  std::string out;
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const std::string_view chunk = bytes.substr(at, kChunk);
    out += connections_->broadcast_chunk(chunk, chunk.size(), label);
  }
  return out;
}

void Group::abort(const std::string& reason) {
  if (world_size() > 1) connections_->abort(reason);
}

std::string Group::failure() const { return connections_->failure(); }

}  // namespace pitot::ranks

// See ranks.hpp: the ranks' release at one moment of the host's clock.
#include <chrono>
#include <fstream>
#include <functional>
#include <string>

#include <unistd.h>

#include "ranks/ranks.hpp"

namespace pitot::ranks {
namespace {

// Ahead of the meeting's end, the moment leaves rank 0 time to send it to every rank (one message
// after another over loopback TCP: tens of microseconds each on a loaded host).
constexpr std::int64_t kMarginNs = 100'000;
constexpr std::int64_t kMarginPerRankNs = 25'000;
// A moment further ahead than this was not taken on this host's clock: go at once.
constexpr std::int64_t kLongestWaitNs = 5'000'000;

std::int64_t monotonic_ns() {
  // steady_clock is CLOCK_MONOTONIC on Linux: one clock for every process of one kernel.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What names this process's monotonic clock: the kernel's boot (containers of one host share it),
// else the host's name.
std::string clock_identity() {
  std::string id;
  std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), id);
  if (!id.empty()) return "boot " + id;
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? std::string("host ") + host : "unknown";
}

}  // namespace

bool one_clock(Group& group) {
  // A 52-bit hash is exact in the gather's double: one clock when the smallest equals the largest.
  const auto hash = static_cast<double>(std::hash<std::string>{}(clock_identity()) & ((std::uint64_t{1} << 52) - 1));
  const Spread s = group.gather(hash, "whether the ranks share one clock");
  return s.min == s.max;
}

std::int64_t release_together(Group& group, bool shared_clock, std::string_view label) {
  group.barrier(label);
  if (!shared_clock) return monotonic_ns();
  const std::int64_t margin = kMarginNs + kMarginPerRankNs * (group.world_size() - 1);
  const std::int64_t at = group.broadcast(group.rank() == 0 ? monotonic_ns() + margin : 0, label);
  if (at - monotonic_ns() > kLongestWaitNs) return monotonic_ns();
  while (monotonic_ns() < at) {
    // Spin: a sleep wakes tens of microseconds late, the skew this is here to remove.
  }
  return at;
}

}  // namespace pitot::ranks

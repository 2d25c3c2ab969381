// The rank logic of a multi-rank benchmark (issue 36, docs/ranks.md): N processes of one benchmark,
// started by torchrun, mpirun or srun, learn their rank from the launcher's environment and meet
// over TCP (rank 0 listens on MASTER_ADDR:MASTER_PORT, the others connect) for a barrier, a
// broadcast of rank 0's decisions and a gather of one number per rank. Every wait has a timeout,
// and a rank that exits or crashes closes its socket, so no rank ever hangs on another: each
// collective either completes on every rank or throws RankError on every rank still alive.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pitot::ranks {

// Where this process stands among the ranks, and where rank 0 listens.
struct RankInfo {
  int rank = 0;
  int local_rank = 0;  // the rank among those of this host (which GPU it takes)
  int world_size = 1;
  std::string launcher;     // "torchrun", "mpirun", "srun"; empty: no launcher, a single rank
  std::string master_addr;  // rank 0's address and port; empty/0 when world_size is 1
  int master_port = 0;
};

// A variable's value, or nullopt when it is not set.
using Lookup = std::function<std::optional<std::string>(const std::string& name)>;

// The ranks from the launcher's variables: torchrun's (RANK, LOCAL_RANK, WORLD_SIZE), then Open
// MPI's (OMPI_COMM_WORLD_*), then Slurm's (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS), the first
// launcher with any of its variables set. With none set: one rank. MASTER_ADDR and MASTER_PORT are
// needed when there is more than one rank. Throws std::invalid_argument naming the missing or bad
// variable.
RankInfo ranks_from(const Lookup& lookup);
RankInfo ranks_from_environment();  // ranks_from(getenv)

// A collective that could not complete: a rank closed its connection, timed out, or broke the protocol.
class RankError : public std::runtime_error {
 public:
  RankError(const std::string& message, int failed_rank) : std::runtime_error(message), failed_rank_(failed_rank) {}
  int failed_rank() const { return failed_rank_; }  // the rank at fault, -1 when not known

 private:
  int failed_rank_;
};

// One number from every rank, reduced: for a sample's times, max is the sample (the slowest
// rank's) and slowest the straggler.
struct Spread {
  double max = 0, min = 0, mean = 0;
  int slowest = 0;  // the rank that gave max (the lowest such rank on a tie)
};

class Connections;  // group.cpp

// The ranks met: built by join() on every rank; each collective must be called by every rank in
// the same order (a rank that calls another one fails the group with both names).
class Group {
 public:
  // Rank 0 listens and waits for the others to connect; the others connect (retrying while rank 0
  // is not listening yet). timeout_seconds bounds this and every later wait.
  static Group join(const RankInfo& info, double timeout_seconds);
  Group(Group&&) noexcept;
  Group& operator=(Group&&) noexcept;
  ~Group();  // closes the sockets: the others see this rank gone at once

  int rank() const;
  int world_size() const;

  // The label names the wait in error messages ("before sample 3").
  void barrier(std::string_view label = {});
  // Rank 0's value on every rank (the others' `value` is ignored): a sample count, a decision.
  std::int64_t broadcast(std::int64_t value, std::string_view label = {});
  // Every rank's value reduced on rank 0, and the result sent back to every rank.
  Spread gather(double value, std::string_view label = {});
  // Rank 0's bytes on every rank (the others' are ignored), in frames of 256 bytes: an NCCL
  // unique id (128 bytes), a name. Every rank must pass the same size.
  std::string broadcast_bytes(std::string_view bytes, std::string_view label = {});
  // Fails the group on purpose (this rank's benchmark threw): every rank still reachable fails its
  // next or current collective with `reason`, at once rather than at its timeout. Never throws.
  void abort(const std::string& reason);
  // The failure that ended the group ("" while it works).
  std::string failure() const;

 private:
  explicit Group(std::unique_ptr<Connections> connections);
  std::unique_ptr<Connections> connections_;
};

// Whether every rank reads one monotonic clock (they run on one kernel: one host, containers
// included). A gather: every rank calls it at the same place (src/ranks/release.cpp).
bool one_clock(Group& group);
// The ranks meet, then every rank returns at one moment: where they share one clock, rank 0 names
// a moment a margin ahead (100 us and 25 us a rank) and each rank spins until it, so they leave
// within the clock's resolution instead of one message apart; otherwise each leaves as the meeting
// ends. Returns the moment this rank left, in nanoseconds of its monotonic clock.
std::int64_t release_together(Group& group, bool shared_clock, std::string_view label = {});

}  // namespace pitot::ranks

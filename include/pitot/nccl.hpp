// NCCL for a .multi_rank() CUDA benchmark (docs/ranks.md): the communicator of every rank.
//
//   ncclComm_t comm = pitot::nccl_comm(state);  // on every rank, in the body, before exec
//   state.exec([&](pitot::Launch& l) { ncclAllReduce(s, r, n, ncclFloat, ncclSum, comm, l.stream()); });
//
// Header-only: a program that includes it links NCCL itself (pitot_add_benchmark ... LIBRARIES nccl).
#pragma once

#include <nccl.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include <pitot/cuda.hpp>
#include <pitot/detail/ranks.hpp>
#include <pitot/state.hpp>

// Check an NCCL call in benchmark code: PITOT_NCCL_CHECK(ncclGroupEnd());
#define PITOT_NCCL_CHECK(call)                                                                            \
  do {                                                                                                    \
    const ncclResult_t pitot_nccl_status = (call);                                                        \
    if (pitot_nccl_status != ncclSuccess)                                                                 \
      throw std::runtime_error(std::string(#call) + ": " + ncclGetErrorString(pitot_nccl_status) + " (" + \
                               __FILE__ + ":" + std::to_string(__LINE__) + ")");                          \
  } while (0)

namespace pitot {

// This process's NCCL communicator over all ranks, on the point's GPU: made on the first call (rank
// 0's unique id, 128 bytes, sent to the others over pitot's group; then ncclCommInitRank) and kept
// for the process's later points. Every rank must make the first call at the same place of the
// same point. In a world of one rank it is a communicator of one (NCCL runs collectives alone too).
inline ncclComm_t nccl_comm(State& state) {
  static ncclComm_t comm = nullptr;  // one per process: every multi-rank point uses the same ranks
  if (comm) return comm;
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (state.rank() == 0) PITOT_NCCL_CHECK(ncclGetUniqueId(&id));
  const std::string bytes = detail::broadcast_bytes(state, std::string_view(reinterpret_cast<const char*>(&id), sizeof id));
  std::memcpy(&id, bytes.data(), sizeof id);
  ncclComm_t made = nullptr;
  PITOT_NCCL_CHECK(ncclCommInitRank(&made, state.world_size(), id, state.rank()));
  comm = made;
  return comm;
}

}  // namespace pitot

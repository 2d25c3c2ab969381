// A multi-rank program under `pitot run` (docs/ranks.md): one child per rank on this host, with
// torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1, a free MASTER_PORT)
// and, on a GPU machine, its own GPU (CUDA_VISIBLE_DEVICES). The runner sees them as one child:
// rank 0's result channel and end, every rank's stderr; when rank 0 ends, the others are given a
// moment to end on their own, then killed, so no rank outlives its point.
#pragma once

#include "driver/run/program_runner.hpp"

namespace pitot::driver::run {

// How many ranks `program` runs in: 1 unless it has a .multi_rank() benchmark; then `requested`
// (--ranks), or with 0 one per GPU the program reported (1 without a GPU).
int program_ranks(int requested, const ProgramInfo& program);

// Starts `ranks` children per attempt; with `gpus`, rank r sees only GPU r.
StartChild start_ranked_children(int ranks, bool gpus);

}  // namespace pitot::driver::run

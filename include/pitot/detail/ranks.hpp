// pitot's own, not part of the API: what <pitot/nccl.hpp> needs of the ranks' group of a
// multi-rank point (src/core/ranked.cpp). Benchmark code uses State::rank and State::world_size.
#pragma once

#include <string>
#include <string_view>

namespace pitot {

class State;

namespace detail {

// Rank 0's bytes on every rank of the point's group (the bytes themselves in a world of one).
// Every rank must call it at the same place of the same point.
std::string broadcast_bytes(State& state, std::string_view bytes);
// This process's rank on its host (which GPU it takes); 0 without a group.
int local_rank(State& state);

}  // namespace detail
}  // namespace pitot

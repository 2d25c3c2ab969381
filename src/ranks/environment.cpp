// The ranks from a launcher's environment (ranks.hpp).
#include "ranks/ranks.hpp"

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace pitot::ranks {

namespace {

struct Launcher {
  const char* name;
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

// In this order: torchrun inside an srun or mpirun allocation sets its own per-process variables
// beside the allocation's, and mpirun inside a Slurm allocation likewise.
constexpr Launcher launchers[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"srun", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
};

std::string required(const Lookup& lookup, const char* name, const std::string& why) {
  auto value = lookup(name);
  if (!value || value->empty()) throw std::invalid_argument(fmt::format("{} is not set ({})", name, why));
  return *value;
}

int integer(const std::string& value, const char* name, int low, int high) {
  std::size_t used = 0;
  long parsed = -1;
  try {
    parsed = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || parsed < low || parsed > high)
    throw std::invalid_argument(fmt::format("{}={} is not a whole number from {} to {}", name, value, low, high));
  return static_cast<int>(parsed);
}

}  // namespace

RankInfo ranks_from(const Lookup& lookup) {
  RankInfo info;
  for (const Launcher& l : launchers) {
    if (!lookup(l.rank) && !lookup(l.local_rank) && !lookup(l.world_size)) continue;
    const std::string why = fmt::format("{}'s variables are {}, {} and {}; some are set", l.name, l.rank, l.local_rank, l.world_size);
    constexpr int most = 1 << 20;
    info.launcher = l.name;
    info.world_size = integer(required(lookup, l.world_size, why), l.world_size, 1, most);
    info.rank = integer(required(lookup, l.rank, why), l.rank, 0, info.world_size - 1);
    info.local_rank = integer(required(lookup, l.local_rank, why), l.local_rank, 0, info.world_size - 1);
    break;
  }
  if (info.world_size > 1) {
    const std::string why = fmt::format("{} ranks meet at rank 0's MASTER_ADDR:MASTER_PORT; torchrun sets both, under mpirun or srun export them", info.world_size);
    info.master_addr = required(lookup, "MASTER_ADDR", why);
    info.master_port = integer(required(lookup, "MASTER_PORT", why), "MASTER_PORT", 1, 65535);
  }
  return info;
}

RankInfo ranks_from_environment() {
  return ranks_from([](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace pitot::ranks

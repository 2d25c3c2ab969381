// The command line of every benchmark program (see docs/program-cli.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/engine.hpp"
#include "core/protocol.hpp"

namespace pitot::program {

// Exit codes: core/protocol.hpp (kExitOk, kExitPointsFailed, kExitUsage, kExitDeviceLost).

struct AxisOverride {
  std::string benchmark;  // empty: every benchmark that has the axis
  std::string axis;
  std::vector<std::string> values;
};

struct Options {
  bool list = false;
  bool list_json = false;
  std::string filter;  // regex searched in point names
  std::vector<AxisOverride> axis_overrides;
  std::optional<std::vector<int>> point_ids;  // --points 0,3-5
  int shard_index = 0, shard_count = 1;       // --shard k/N (k from 1)
  std::string json_path, csv_path;
  bool table = true;
  std::string asv_dir, machine, commit, env;
  int processes = 1;  // --processes K: the program runs itself K times and pools (replicate.cpp)
  RunConfig run;
  DeviceOptions device;
};

// Parses argv. Throws UsageError with a message naming the problem.
// Returns nullopt when --help or --version printed and the program should exit 0.
std::optional<Options> parse_options(int argc, char** argv, const std::string& program);

// "0,3-5" -> {0,3,4,5}; "2/4" -> {2,4}. Throw UsageError on malformed text.
std::vector<int> parse_id_list(const std::string& text);
std::pair<int, int> parse_shard(const std::string& text);
AxisOverride parse_axis_override(const std::string& text);
// Applies overrides to the registered benchmarks (values parsed by the axis's kind).
void apply_axis_overrides(std::deque<BenchmarkDef>& defs, const std::vector<AxisOverride>& overrides);

}  // namespace pitot::program

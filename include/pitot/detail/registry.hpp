// pitot's own, not part of the API: the registry PITOT_BENCHMARK fills, read by the engine, the
// program's main and the driver. Benchmark code registers through <pitot/benchmark.hpp> only.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <pitot/axis.hpp>
#include <pitot/benchmark.hpp>

namespace pitot {

struct BenchmarkDef {
  std::string name;
  BenchmarkFn fn;
  std::vector<Axis> axes;
  std::string version = "1";
  double timeout_seconds = 60.0;  // the driver kills a point that runs longer
  std::string source_file;
  std::string code;  // shown by asv as a tooltip
  BuildFlags build;
  // What a sample holds, as asv names it: "time" in "seconds", or for the Python module's asv
  // kinds "track" (its unit), "memory" or "peakmemory" (bytes).
  std::string type = "time";
  std::string unit = "seconds";
  // Every axis is a string axis of asv's repr() of each value (Python's asv benchmarks), written
  // to asv as it is rather than quoted.
  bool repr_values = false;
  // The whole asv key when the benchmark names itself (asv's `benchmark_name`, which asv uses as
  // the key as it is); empty: the key is <program>.<name>.
  std::string asv_key;
  bool multi_rank = false;  // runs in every rank of a multi-rank world (docs/ranks.md)
};

// All benchmarks of this program, in registration order (a deque: builders keep pointers).
std::deque<BenchmarkDef>& registry();
// The build of the registered benchmarks taken together (unoptimized if any of their sources
// is); nullopt when none is registered (the driver).
std::optional<BuildFlags> program_build();
// The build type asv's env name records: CMake's, except that an unoptimized build is named
// "unoptimized" (or "Debug") whatever CMake says, and an optimized one without a type "none".
std::string build_type_name(const BuildFlags& build);
// Mistakes found while registering (an empty axis, a duplicate benchmark or axis name, a name asv
// cannot store, a NaN or non-UTF-8 axis value: src/core/text.hpp); main reports them, exit 2.
std::vector<std::string>& registration_errors();

}  // namespace pitot

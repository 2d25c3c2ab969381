// The asv results database writer (format: docs/asv-format.md): merges a run into a results
// folder. The results file's rows and text are in asv/results.hpp, loading in asv/database.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "asv/keys.hpp"
#include "asv/results.hpp"

namespace pitot {

struct AsvRun {
  std::string machine;                               // folder name and params.machine
  std::map<std::string, std::string> machine_facts;  // arch, cpu, num_cpu, os, ram, gpu...
  std::string commit_hash;                           // 40 hex digits
  std::int64_t commit_date_ms = 0;                   // commit date, unix ms
  std::string env_name;                              // e.g. cpp-gcc-12.2-Release
  std::map<std::string, std::string> requirements;   // compiler, build_type, cuda...
};

// Merge these benchmarks and points into results_dir: benchmarks.json, <machine>/machine.json
// and <machine>/<hash8>-<env>.json. Each file is replaced atomically under a lock; rows of other
// benchmarks already there are kept. Throws AsvError (and leaves every file as it was) when an
// existing file is unreadable or of another version, or a name would escape results_dir.
void write_asv(const std::filesystem::path& results_dir, const AsvRun& run,
               const std::vector<BenchmarkInfo>& benchmarks, const std::vector<PointResult>& points);

// The most values a point's `samples` column holds (docs/asv-format.md §5). asv compare runs a
// pure-Python Mann-Whitney test over this column whose cost grows with the product of the two
// sample counts: 1,000 samples a side take 26-41 ms a point, 5,000 up to a second; 101 take
// 0.2-0.5 ms (NOTES.md). pitot's --json output keeps every sample.
inline constexpr std::size_t kAsvMaxSamples = 101;
// A point's `samples` column: every sample when there are at most kAsvMaxSamples, else the 101
// percentiles (0%, 1%, ..., 100%) of the samples, interpolated as the stats are. The subset keeps
// the distribution (min, quartiles, median and max exactly), which is what rank tests and the
// quantile plots need, at a bounded size.
std::vector<double> asv_samples_column(const std::vector<double>& samples);

}  // namespace pitot

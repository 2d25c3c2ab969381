// The package `pitot profile` hands back: one zip under a size budget. Each file is an Artifact
// with a drop rank; when the estimate is over the budget, optional artifacts go first by rank
// (highest first), and within a rank the largest first, until it fits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pitot::driver::profile {

// Drop ranks, in the order they are dropped (documented in docs/profile.md).
enum DropRank : int {
  kCore = 0,          // manifest, summary, results, stream tails: always in the zip
  kEssential = 1,     // the profiler's main report or trace: without it the zip is not the package
  kSummaryData = 2,   // secondary text/CSV summaries (ncu details, nsys stats, rocprof CSV)
  kRawStreams = 3,    // the full stdout/stderr (their tails stay)
  kToolSideData = 4,  // the tool's side files (ncu raw CSV, nsys SQLite export)
  kCodeObjects = 5,   // SASS/PTX listings and HIP code objects
};

struct Artifact {
  std::string name;              // path inside the zip
  std::filesystem::path source;  // the file on disk
  std::string kind;              // report, trace, summary, stream, code-object, ...
  std::string description;
  int rank = kEssential;
  bool store = false;        // already compressed: stored, not deflated
  std::uint64_t bytes = 0;   // on disk
  std::uint64_t packed = 0;  // estimated size inside the zip
};

struct Dropped {
  Artifact artifact;
  std::string reason;
};

struct PackagePlan {
  std::vector<Artifact> kept;
  std::vector<Dropped> dropped;
  std::uint64_t estimate = 0;  // estimated zip size of `kept`
  bool essential_fits = true;  // false: even the essential artifacts exceed the budget
};

// Fills bytes and packed (deflate-compressing the file once to count, or its size when stored).
void measure(Artifact& a);

// Bytes a zip spends on an entry besides its data (headers, central directory).
std::uint64_t entry_overhead(const std::string& name);

// Chooses what goes into a zip of at most `budget` bytes. `reserve` is kept free for files added
// later (the manifest). When the essential part alone does not fit, the plan keeps only the core
// artifacts (rank kCore) and says so; the caller keeps the full folder on disk.
PackagePlan plan_package(std::vector<Artifact> artifacts, std::uint64_t budget, std::uint64_t reserve);

// Writes the zip atomically (a temporary file renamed into place). Returns its size.
// Throws std::runtime_error naming the file on failure; nothing is left half-written.
std::uint64_t write_zip(const std::filesystem::path& zip, const std::vector<Artifact>& files);

// The manifest's "artifacts" and "dropped" lists.
nlohmann::json artifacts_json(const std::vector<Artifact>& kept);
nlohmann::json dropped_json(const std::vector<Dropped>& dropped);

}  // namespace pitot::driver::profile

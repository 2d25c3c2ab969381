// Merging asv results folders (`pitot merge`: shards of one suite, runs of several hosts), as
// functions of the asv module: a folder read as asv walks it, another merged into it, and the
// files a merge changed, to be written together (output/atomic_file.hpp: all or none).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/benchmarks.hpp"
#include "asv/machine.hpp"

namespace pitot {

// One results folder in memory.
struct AsvFolder {
  std::optional<AsvBenchmarks> benchmarks;
  std::map<std::string, MachineJson> machines;            // by machine folder
  std::map<std::filesystem::path, nlohmann::json> results;  // <machine>/<hash8>-<env>.json
};

// benchmarks.json, every machine folder's machine.json and results files. Throws AsvError naming
// a file that does not load (asv/database.hpp) or is no results file.
AsvFolder read_asv_folder(const std::filesystem::path& dir);

// Merges `in` into `out`: benchmarks.json's entries of `in` over those of `out`; machine.json by
// its one rule (update_machine_json: asv's facts `out` recorded are kept); within a results file
// both hold (same machine, commit and env), each point keeps the value of `in` when `in` measured
// it (a result that is not null), the other points are kept; rows of other parameters or version
// are taken from `in` whole. Throws AsvError when two files of one name hold different commits or
// environments.
void merge_asv_folder(AsvFolder& out, const AsvFolder& in);

// The files of `after` whose text differs from `before`'s, with their paths under `dir`.
std::vector<std::pair<std::filesystem::path, std::string>> changed_asv_files(const std::filesystem::path& dir,
                                                                            const AsvFolder& before,
                                                                            const AsvFolder& after);

}  // namespace pitot

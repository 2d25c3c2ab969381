// The asv results database on disk (docs/asv-format.md §1 and §2): its files loaded and walked,
// and a commit's results files found, here only. The writer (asv/write.hpp), `pitot merge`, `pitot machine --record` and
// `pitot compare` all load through load_asv_file, so a file of another version is refused one
// way, with one message, whoever reads it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/error.hpp"

namespace pitot {

// The files of a database: benchmarks.json, <machine>/machine.json and <machine>/<hash8>-<env>.json.
enum class AsvFile { Benchmarks, Machine, Results };

// The `version` pitot reads and writes for each (asv 0.6's, §1).
int asv_file_version(AsvFile kind);

// One file of the database: a results file in asv's dialect (asv/json.hpp), the others as strict
// JSON, bounded like every reader (core/bounded_json.hpp). Throws AsvError naming the file when
// it cannot be read, does not parse, is not a JSON object or has another `version` than
// asv_file_version(kind). Callers add what happens next ("Nothing was written.").
nlohmann::json load_asv_file(const std::filesystem::path& path, AsvFile kind);
// The same check of a file's text already read (`path` names it in the refusal).
nlohmann::json parse_asv_file(const std::string& text, const std::filesystem::path& path, AsvFile kind);
// The same, nullopt when the file does not exist.
std::optional<nlohmann::json> load_asv_file_if_any(const std::filesystem::path& path, AsvFile kind);

// The machine folders of a results folder, as asv walks it: each sub-folder holding a
// machine.json, by name.
std::vector<std::string> asv_machines(const std::filesystem::path& results_dir);

struct AsvResultsFile {
  std::filesystem::path path;
  std::string hash8;  // the name's part before the first '-', lower case (how compare/show match)
  std::string env;    // the rest
};
// The results files of a machine folder, by path: every regular *.json but machine.json whose
// name holds a '-' (asv names them <hash8>-<env>.json, §2).
std::vector<AsvResultsFile> asv_results_files(const std::filesystem::path& machine_dir);
// One path's name read so; nullopt for a name that is not <hash8>-<env>.json.
std::optional<AsvResultsFile> asv_results_file(const std::filesystem::path& path);

// The history of an environment in a machine folder: its results files (leaving out `exclude`)
// ordered by the commit date each records, oldest first, the `limit` most recent kept, each file
// parsed once. A file that does not load or names no date is left out (it only loses its share
// of the history).
struct AsvDatedResults {
  std::filesystem::path path;
  double date = 0;  // the file's commit date, unix ms
  nlohmann::json doc;
};
std::vector<AsvDatedResults> asv_history(const std::filesystem::path& machine_dir, const std::string& env,
                                         const std::filesystem::path& exclude, std::size_t limit);

// Where a reader looks for a commit's results: pitot compare's --results-dir, --machine, --env.
struct AsvQuery {
  std::filesystem::path results_dir;
  std::string machine;         // empty: the only one there
  std::string env;             // empty: every env of the commit
  std::filesystem::path repo;  // git repository that resolves revisions (empty: the current folder)
};
// The results files of `commit` (a hash prefix of 4 or more hex digits, or a git revision resolved
// in the query's repository) in the query's machine folder: one per environment, or only the
// query's env. Throws AsvError naming what is missing or ambiguous, and listing what is there.
std::vector<AsvResultsFile> asv_commit_files(const AsvQuery& query, const std::string& commit);

}  // namespace pitot

// Where the two sides come from: asv results files (as real asv writes them), commits in an asv
// results database, or pitot's own JSON output. Everything becomes a list of points (points.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/benchmarks.hpp"
#include "asv/database.hpp"
#include "asv/results.hpp"
#include "driver/common/errors.hpp"
#include "driver/compare/points.hpp"

namespace pitot::driver::compare {

// Bad input (missing file, unknown commit, malformed file, mismatched units) throws
// driver::InputError: exit code 2.

// asv's dialect of JSON (asv/json.hpp) as compare's input: throws InputError naming
// `what` and the position on malformed text.
nlohmann::json parse_python_json(const std::string& text, const std::string& what);

// Reads one asv results file (version 2): loaded by asv/database.hpp, its rows come from
// asv/results.hpp and become points here. `benchmarks` is benchmarks.json (or null), used for units, parameter names and
// versions.
ResultSet read_asv_results(const std::filesystem::path& file, const AsvBenchmarks* benchmarks);
// The same from the file's text, read once by the caller.
ResultSet asv_results_from_text(const std::string& text, const std::filesystem::path& file,
                                const AsvBenchmarks* benchmarks);
ResultSet asv_results_from_json(const nlohmann::json& results, const AsvBenchmarks* benchmarks,
                                const std::string& label);

// Reads pitot's JSON output: {"program", "benchmarks", "points"}, a list of those, an object
// with "programs", or the driver protocol's JSON lines.
ResultSet read_pitot_json(const std::filesystem::path& file);
ResultSet pitot_json_from_text(const std::string& text, const std::string& label);
// compare's rows of pitot's own results (what the core's reader gives, or pitot ab's points as
// they are): the one way pitot points become rows. Throws InputError on two points with one key.
ResultSet pitot_result_set(const std::vector<BenchmarkInfo>& benchmarks, const std::vector<PointResult>& points,
                           const std::string& label);

// --results-dir, --machine, --env and the config's repository (asv/database.hpp).
using DatabaseQuery = AsvQuery;

// asv_commit_files (asv/database.hpp), its refusals as InputError.
std::vector<AsvResultsFile> commit_results_files(const DatabaseQuery& query, const std::string& commit);

// One environment of the base commit and its counterpart in the head commit.
struct EnvPair {
  AsvResultsFile base, head;
};
// Each env of base with the env of the same name in head; when exactly one env on each side has
// no such counterpart, those two (the same build renamed, say by a compiler update). Envs on one
// side only are left out. Throws InputError when the leftovers cannot be paired, or nothing pairs.
std::vector<EnvPair> pair_environments(const std::vector<AsvResultsFile>& base,
                                       const std::vector<AsvResultsFile>& head);

// The results file of `commit` (a hash prefix, or a git revision resolved in the current
// directory's repository) in an asv database. Throws InputError naming what is missing or
// ambiguous, and listing what is there.
std::filesystem::path find_results_file(const DatabaseQuery& query, const std::string& commit);

// benchmarks.json of a results database (nullopt when absent), loaded by asv/database.hpp.
// Throws InputError when unreadable or of another version.
std::optional<AsvBenchmarks> read_benchmarks_json(const std::filesystem::path& results_dir);

// Loads one side of the comparison: an existing file (asv results or pitot JSON, by content),
// otherwise a commit in the database.
ResultSet load_side(const std::string& arg, const DatabaseQuery& query);

// Both sides when BASE and HEAD are commits of a database: every environment of base with its
// counterpart in head (pair_environments), each head env's points with their history (`history`
// recent commits), pooled into one pair of sets whose `environments` name the pairs. Returns
// nullopt when either argument is a file.
std::optional<std::pair<ResultSet, ResultSet>> load_commits(const std::string& base, const std::string& head,
                                                            const DatabaseQuery& query, int history);

// Both sides of a comparison, as `pitot compare` reads them: two commits of the database
// (load_commits), else each side alone (load_side), a head commit with its recent history
// (read_history, `history` files). Errors name the side ("base: ...", "head: ...").
std::pair<ResultSet, ResultSet> load_sides(const std::string& base, const std::string& head,
                                           const DatabaseQuery& query, int history);

// Run medians of every point over the `limit` most recent results files (by commit date) of the
// folder holding `head_file` with the same environment, leaving out `head_file` itself; oldest
// first. Unreadable files are skipped (they are not the ones compared).
void read_history(ResultSet& set, const std::filesystem::path& head_file, const AsvBenchmarks* benchmarks,
                  int limit = 10);

}  // namespace pitot::driver::compare

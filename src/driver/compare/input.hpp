// What `pitot compare` reads: asv results files (as real asv writes them), a commit in an asv
// results database, or pitot's own JSON output. Everything becomes a list of points.
#pragma once

#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "driver/common/errors.hpp"
#include "asv/database.hpp"
#include "asv/results.hpp"

namespace pitot::driver::compare {

// Bad input (missing file, unknown commit, malformed file, mismatched units) throws
// driver::InputError: exit code 2.

enum class PointState { Ok, Failed, Skipped };

// The card's state while a point ran, from NVML readings (docs/compare.md, "Machine state"): the
// tracks card_sm_clock_mhz, card_temperature_c and card_power_watts beside a point (asv rows
// `<row>.<track>`, or a pitot point's `tracks`), and pitot JSON's backend_info.card. NaN where the
// side recorded none.
struct CardState {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double sm_clock_mhz = kNone;   // median SM clock over the point's readings
  double mem_clock_mhz = kNone;  // median memory clock (backend_info.card only)
  double temperature_c = kNone;  // highest temperature seen during the point
  double power_watts = kNone;    // median power draw
  bool has_throttle = false;     // backend_info.card listed its clock (throttle) reasons, perhaps none
  std::vector<std::string> throttle_reasons;
  bool any() const;
};

// The tracks that record the card's state rather than a performance figure: read into the point's
// CardState, never compared as rows of their own.
bool is_state_track(const std::string& track);

struct PointData {
  // What matches a point between base and head, the same for asv and pitot inputs: asv's unrolled
  // name, `bench_gemm.gemm_bf16(4096, 'bf16')` (the benchmark, then each value's Python repr).
  std::string key;
  std::string display;                                      // the name shown: bench_gemm.gemm_bf16[M=4096, dtype='bf16']
  std::string benchmark;                                    // bench_gemm.gemm_bf16 (the asv row name)
  std::vector<std::pair<std::string, std::string>> params;  // parameter name -> value repr, in axis order
  std::string unit = "seconds";
  std::string version;  // benchmark version; empty when unknown
  PointState state = PointState::Ok;
  std::string reason;                   // why it failed, when known
  double value = 0;                     // the median (time) or the tracked value
  std::vector<double> samples;          // pooled over processes
  std::vector<double> process_medians;  // one per process when the run kept them (pitot run --processes)
  bool has_interval = false;
  double ci_lo = 0, ci_hi = 0;  // stored 99% interval of the median; may be infinite
  // A track beside a time point that is compared instead (a throughput, the kernel clock's busy
  // time, energy): it says nothing the time row does not, or nothing a verdict can use.
  bool derived = false;
  // The kernel clock's records of the point (pitot JSON only): each kernel's device time per launch
  // of the timed work, by name, so a changed point can say which kernel changed.
  std::vector<std::pair<std::string, double>> kernels;
  CardState card;  // the card's state while the point ran (GPU points with NVML)
};

struct ResultSet {
  std::string label;   // how the report names this side: "0d9a5811 (sample-box, cpp-gcc-12.2-Release)"
  std::string commit;  // full hash when known
  std::vector<PointData> points;
  // The point's run medians of recent commits in the same database (oldest first), for the
  // run-to-run noise floor; empty when the side is not a commit in a database.
  std::map<std::string, std::vector<double>> history;
  int history_files = 0;  // results files the history was read from
  // Two commits of a database: the environments compared, "env" or "base env -> head env".
  std::vector<std::string> environments;
};

// asv's dialect of JSON (asv/json.hpp) as compare's input: throws InputError naming
// `what` and the position on malformed text.
nlohmann::json parse_python_json(const std::string& text, const std::string& what);

// Reads one asv results file (version 2): loaded by asv/database.hpp, its rows come from
// asv/results.hpp and become points here. `benchmarks` is benchmarks.json (or null), used for units, parameter names and
// versions.
ResultSet read_asv_results(const std::filesystem::path& file, const nlohmann::json* benchmarks);
ResultSet asv_results_from_json(const nlohmann::json& results, const nlohmann::json* benchmarks,
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
std::optional<nlohmann::json> read_benchmarks_json(const std::filesystem::path& results_dir);

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

// The results file `load_side` would read for a commit, or empty when `arg` is a file.
std::filesystem::path side_results_file(const std::string& arg, const DatabaseQuery& query);

// Run medians of every point over the `limit` most recent results files (by commit date) of the
// folder holding `head_file` with the same environment, leaving out `head_file` itself; oldest
// first. Unreadable files are skipped (they are not the ones compared).
void read_history(ResultSet& set, const std::filesystem::path& head_file, const nlohmann::json* benchmarks,
                  int limit = 10);

// asv's repr of a value as pitot JSON holds it: strings quoted ('random'), numbers as written.
std::string python_repr_of(const nlohmann::json& value);

// Throughput and other higher-is-better units (GB/s, TFLOP/s, items/s, %); seconds and bytes
// are lower-is-better, and so is any unit not recognised (asv's own assumption).
bool unit_higher_is_better(const std::string& unit);

}  // namespace pitot::driver::compare

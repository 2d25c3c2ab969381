// asv's results files (docs/asv-format.md §2 and §5), their format: the columns of a row, a row
// by column name, the file name, the file's text, and the rows unrolled into plain points for
// readers (pitot compare maps them to its own types). Files are found and loaded in
// asv/database.hpp; the writer (asv/write.hpp) and `pitot merge` build their rows on these.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/error.hpp"
#include "asv/json.hpp"
#include "asv/keys.hpp"

namespace pitot {

// The `version` of each file asv reads (§1).
inline constexpr int kAsvResultsVersion = 2;
inline constexpr int kAsvBenchmarksVersion = 2;
inline constexpr int kAsvMachineVersion = 1;

// §5: the columns of a results row, verbatim from asv.
extern const std::vector<std::string> kAsvResultColumns;
// The columns holding one entry per point (the "(N)" columns of §5).
extern const std::vector<std::string> kAsvPointColumns;
// Top-level key of a results file holding each point's per-process medians (pitot run
// --processes K), keyed by asv_point_name; asv ignores it.
inline constexpr const char* kAsvProcessMediansKey = "pitot_process_medians";

// A row's parameters: per axis, the Python repr of each value.
using AsvParams = std::vector<std::vector<std::string>>;
// All parameter tuples in asv's order (itertools.product: last axis fastest).
std::vector<std::vector<std::string>> asv_param_tuples(const AsvParams& params);

// A row as column name -> value, whatever the file's column order; trailing columns a row
// leaves out are absent.
using AsvColumns = std::map<std::string, nlohmann::json>;
AsvColumns asv_row_columns(const nlohmann::json& row, const std::vector<std::string>& columns);
// A row in kAsvResultColumns order, missing columns null, trailing nulls dropped (as asv does).
nlohmann::json asv_row(const AsvColumns& columns);

// `<hash8>-<env>.json` (§2).
std::string asv_results_file_name(const std::string& commit_hash, const std::string& env);

// The text of a results file: asv's dialect, one top-level key per line and one row per line,
// so that a diff of two versions shows which rows changed. benchmarks.json and machine.json are
// strict JSON, indented (asv_file_text).
std::string asv_results_file_text(const nlohmann::json& doc);
std::string asv_file_text(const nlohmann::json& doc);

// One point of a row, as a reader needs it.
enum class AsvPointState { Measured, Skipped, Failed };  // a number, NaN, null
struct AsvPoint {
  std::vector<std::string> params;  // one repr per axis
  AsvPointState state = AsvPointState::Measured;
  double result = 0;  // the median (time) or the tracked value
  std::vector<double> samples;
  bool has_interval = false;
  double ci_lo = 0, ci_hi = 0;          // stats_ci_99_a/b; may be infinite
  std::vector<double> process_medians;  // from kAsvProcessMediansKey, when kept
};
struct AsvRow {
  std::string name;
  AsvParams params;
  std::string version;           // "" when the row has none
  std::vector<AsvPoint> points;  // in asv_param_tuples order
};
struct AsvResults {
  std::string commit_hash, env_name, machine;  // "" when absent
  std::vector<AsvRow> rows;                    // by name
};
// The rows of a parsed results file. Throws AsvError naming what is wrong ("row X is not a
// list"), and lets nlohmann's exceptions through for a value of the wrong type.
AsvResults asv_results_rows(const nlohmann::json& doc);

// The value of one entry of an asv list: the double itself (NaN and ±inf for the bare tokens),
// NaN for null. Throws AsvError for anything else.
double asv_number(const nlohmann::json& j);
// Each entry of a list so; empty when `list` is not a list.
std::vector<double> asv_numbers(const nlohmann::json& list);

}  // namespace pitot

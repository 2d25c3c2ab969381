// pitot compare, as its two users see it: `pitot compare` (command.cpp) runs a comparison from
// its options; `pitot ab` compares pitot's own results and reads the verdicts. Inside: sources
// (where the sides come from), comparison (verdicts, with stats, state and kernels) and render.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "driver/common/errors.hpp"
#include "driver/compare/comparison.hpp"
#include "driver/compare/points.hpp"
#include "driver/compare/render.hpp"

namespace pitot::driver::compare {

enum class Format { Table, Markdown, Json };
enum class Color { Auto, Always, Never };

struct CompareOptions {
  std::string base, head;             // files, or commits in the results database
  std::filesystem::path results_dir;  // empty: the config's results_dir, else ./asv-results
  std::filesystem::path config;       // asv.conf.json or its folder (empty: as pitot run finds one)
  std::string machine, env;
  MethodOptions method;
  Format format = Format::Table;
  std::filesystem::path output;  // write the format here (atomically) and the table to `out`
  bool only_changed = false;
  int history = 10;  // recent results files a point's noise floor is learned from (0: none)
  Color color = Color::Auto;
};

// "2%" -> 0.02, "0.05" -> 0.05. Throws InputError on anything else (negative, "5" meaning 500%).
double parse_threshold(const std::string& text);

// Throws InputError when the method's confidence is not between 0.5 and 1.
void check_confidence(const MethodOptions& method);

// Runs a comparison and writes the report to `out` (errors to `err`). Returns the exit code:
// 0 no confirmed regression, 1 a point slower or newly failing, 2 an input error.
int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err, bool out_is_terminal);

// One side of pitot's own results, as `pitot ab` holds them.
struct PitotSide {
  std::string label;
  std::vector<BenchmarkInfo> benchmarks;
  std::vector<PointResult> points;
};
// The report of two sides of pitot points (rows keyed by point_key). Throws InputError.
Report compare_pitot(const PitotSide& base, const PitotSide& head, const MethodOptions& method);

// What goes to stdout: the report in `format`; with `output`, the format written there
// (atomically) and, for markdown or JSON, the table on stdout, then a line naming the file.
std::string report_text(const Report& report, Format format, const std::filesystem::path& output, bool color,
                        bool only_changed);

}  // namespace pitot::driver::compare

// `pitot compare`'s report: matching points of two runs, one verdict each, and the renderings
// (terminal table, markdown for a pull-request comment, JSON for tools).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/compare/input.hpp"
#include "driver/compare/stats.hpp"

namespace pitot::driver::compare {

// One kernel of a changed point: its device time per launch on each side (NaN where it ran on
// one side only: new or vanished).
struct KernelChange {
  std::string name;
  double base = 0, head = 0;
};

struct Row {
  PointData base, head;
  Comparison comparison;
  bool higher_is_better = false;
  double effect = 0;  // log of the ratio, turned so that positive means slower; NaN if unknown
  // Slower or faster points timed by the kernel clock: their kernels, largest change first.
  std::vector<KernelChange> kernels;
};

// The kernels of two sides of a point matched by name, largest change of time first, new and
// vanished kernels included; empty when either side has no kernel records.
std::vector<KernelChange> kernel_changes(const PointData& base, const PointData& head);

// A point listed apart from the table (failed, new, removed, ...), with why.
struct Listed {
  std::string name;
  std::string detail;
};

struct Report {
  std::string base_label, head_label;
  MethodOptions options;
  std::vector<Row> rows;       // compared points, by severity (slower, inconclusive, faster, unchanged), then effect
  std::vector<Listed> failed;  // ok in base, failed in head: counts as a regression
  std::vector<Listed> fixed;   // failed in base, ok in head
  std::vector<Listed> still_failing;
  std::vector<Listed> added;           // only in head
  std::vector<Listed> removed;         // only in base
  std::vector<Listed> not_comparable;  // benchmark version changed, or skipped on a side
  int derived_tracks = 0;              // throughput tracks folded into their time points
  int dropped = 0;                     // non-positive or non-finite samples and medians ignored
  int history_files = 0;               // results files the noise floors were learned from
  std::vector<std::string> environments;  // two commits of a database: the env pairs compared

  int count(Verdict v) const;
  // Geometric mean over the compared points of head/base time ratios (throughput ratios turned
  // around), so above 1 means slower overall; NaN when nothing was compared.
  double geometric_mean() const;
};

// Matches the points of two runs and compares each. Throws InputError when one point has
// different units on the two sides, or when the two runs share no point at all. The head side's
// `history` (run medians of recent commits) gives each point its noise floor.
Report build_report(const ResultSet& base, const ResultSet& head, const MethodOptions& options);

// 1 when a point is confirmed slower or newly failing, else 0.
int report_exit_code(const Report& report);

std::string summary_line(const Report& report);
std::string render_table(const Report& report, bool color, bool only_changed);
// GitHub refuses a comment over 65,536 characters; the default leaves room for the heading and
// the marker the CI workflow adds. Every newly failing and slower row is kept; the others are
// added while they fit, and the comment says how many were left out.
constexpr std::size_t kMarkdownLimit = 64000;
std::string render_markdown(const Report& report, bool only_changed, std::size_t limit = kMarkdownLimit);
// The JSON report's format; bumped when a field changes meaning or goes away.
constexpr int kJsonSchemaVersion = 2;
nlohmann::json render_json(const Report& report, bool only_changed);

// "4.110 ms", "1.25e+06 items/s": a value in its unit, for people.
std::string format_value(double value, const std::string& unit);

}  // namespace pitot::driver::compare

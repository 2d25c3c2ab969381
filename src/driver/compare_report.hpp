// `pitot compare`'s report: matching points of two runs, one verdict each, and the renderings
// (terminal table, markdown for a pull-request comment, JSON for tools).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/compare_input.hpp"
#include "driver/compare_stats.hpp"

namespace pitot::compare {

struct Row {
  PointData base, head;
  Comparison comparison;
  bool higher_is_better = false;
  double effect = 0;  // log of the ratio, turned so that positive means slower; NaN if unknown
};

// A point listed apart from the table (failed, new, removed, ...), with why.
struct Listed {
  std::string name;
  std::string detail;
};

struct Report {
  std::string base_label, head_label;
  MethodOptions options;
  std::vector<Row> rows;           // compared points, worst effect first
  std::vector<Listed> failed;      // ok in base, failed in head: counts as a regression
  std::vector<Listed> fixed;       // failed in base, ok in head
  std::vector<Listed> still_failing;
  std::vector<Listed> added;       // only in head
  std::vector<Listed> removed;     // only in base
  std::vector<Listed> not_comparable;  // benchmark version changed, or skipped on a side
  int derived_tracks = 0;          // throughput tracks folded into their time points

  int count(Verdict v) const;
  // Geometric mean over the compared points of head/base time ratios (throughput ratios turned
  // around), so above 1 means slower overall; NaN when nothing was compared.
  double geometric_mean() const;
};

// Matches the points of two runs and compares each. Throws InputError when one point has
// different units on the two sides.
Report build_report(const ResultSet& base, const ResultSet& head, const MethodOptions& options);

// 1 when a point is confirmed slower or newly failing, else 0.
int report_exit_code(const Report& report);

std::string summary_line(const Report& report);
std::string render_table(const Report& report, bool color, bool only_changed);
std::string render_markdown(const Report& report, bool only_changed);
nlohmann::json render_json(const Report& report, bool only_changed);

// "4.110 ms", "1.25e+06 items/s": a value in its unit, for people.
std::string format_value(double value, const std::string& unit);

}  // namespace pitot::compare

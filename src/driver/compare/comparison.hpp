// The comparison: matching points of two runs, one verdict each (stats.hpp), the points listed
// apart, the kernel changes and the machine-state check beside them.
#pragma once

#include <string>
#include <vector>

#include "driver/compare/kernels.hpp"
#include "driver/compare/points.hpp"
#include "driver/compare/state.hpp"
#include "driver/compare/stats.hpp"

namespace pitot::driver::compare {

struct Row {
  PointData base, head;
  Comparison comparison;
  bool higher_is_better = false;
  double effect = 0;  // log of the ratio, turned so that positive means slower; NaN if unknown
  // Slower or faster points timed by the kernel clock: their kernels, largest change first.
  std::vector<KernelChange> kernels;
  std::vector<std::string> state_differs;  // state_differences of the two sides' cards
};

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
  int derived_tracks = 0;              // tracks folded into their time points (throughputs, busy time, energy)
  int skipped_both = 0;                // skipped (or not run) on both sides: not listed
  StateCheck state;                    // the card's state of both sides at the compared points
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

// The report's order: by severity (slower, inconclusive, faster, unchanged), then worst first.
void sort_rows(std::vector<Row>& rows);

// 1 when a point is confirmed slower or newly failing, else 0.
int report_exit_code(const Report& report);

// A verdict that counts as a change (slower or faster).
inline bool is_change(Verdict v) { return v == Verdict::Slower || v == Verdict::Faster; }

}  // namespace pitot::driver::compare

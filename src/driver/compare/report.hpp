// `pitot compare`'s report: matching points of two runs, one verdict each, and the renderings
// (terminal table, markdown for a pull-request comment, JSON for tools).
#pragma once

#include <map>
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

// The machine-state check (docs/compare.md, "Machine state"): base and head count as having run
// in different states at a point when their SM clock medians differ by more than 1% and one clock
// step, their highest temperatures by more than 10 °C, or a throttle reason was seen on one side
// only. Idle is no throttling. Power is recorded beside them but not judged (report.cpp says why).
constexpr double kStateClockFraction = 0.01;
constexpr double kStateClockStepMhz = 15;
constexpr double kStateTemperatureC = 10;

// The ways the two sides' states differ at one point: "sm_clock", "temperature", "throttle" (empty when alike, or when a side has no reading).
std::vector<std::string> state_differences(const CardState& base, const CardState& head);

// One way the states differ, over the compared points where it does.
struct StateDifference {
  std::string kind;  // sm_clock, temperature, throttle
  int points = 0;
  double base = 0, head = 0;  // median over those points of each side's reading (not for throttle)
  // The points where it differs most (up to 3), with each side's reading.
  struct Worst {
    std::string name;
    double base = 0, head = 0;
  };
  std::vector<Worst> worst;
  // throttle: the reasons seen at those points on one side only, and at how many points each
  std::map<std::string, int> base_only, head_only;
};

struct StateCheck {
  int judged = 0;     // compared points with readings on both sides
  int differing = 0;  // of those, where base and head ran in different states
  std::vector<StateDifference> differences;  // only the kinds that differ somewhere
};

struct Row {
  PointData base, head;
  Comparison comparison;
  bool higher_is_better = false;
  double effect = 0;  // log of the ratio, turned so that positive means slower; NaN if unknown
  // Slower or faster points timed by the kernel clock: their kernels, largest change first.
  std::vector<KernelChange> kernels;
  std::vector<std::string> state_differs;  // state_differences of the two sides' cards
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

// The state warning, one line a difference after a heading; empty when the states agree.
std::vector<std::string> state_warning(const Report& report);

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

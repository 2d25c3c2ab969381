// What pitot ab spends (ab/plan.hpp).
#include "driver/ab/plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "driver/ab/schedule.hpp"
#include "driver/compare/render.hpp"

namespace pitot::driver::ab {

namespace {

// Points the stop lists by name; the report has every one.
constexpr std::size_t kListedUndecided = 20;

}  // namespace

std::string lean_limits_text() {
  std::string s;
  for (const auto& [flag, value] : kLeanLimits) s += (s.empty() ? "" : " ") + flag + " " + value;
  return s;
}

void apply_lean_limits(std::map<std::string, std::string>& passthrough) {
  const bool min_given = passthrough.count("--min-time") > 0, max_given = passthrough.count("--max-time") > 0;
  for (const auto& [flag, value] : kLeanLimits) passthrough.emplace(flag, value);  // emplace keeps the user's
  // A program refuses --max-time below --min-time: the limit the user gave moves the other.
  const double min = std::stod(passthrough["--min-time"]), max = std::stod(passthrough["--max-time"]);
  if (min <= max) return;
  if (min_given && !max_given) passthrough["--max-time"] = passthrough["--min-time"];
  if (max_given && !min_given) passthrough["--min-time"] = passthrough["--max-time"];
}

std::string AbEstimate::text() const {
  return fmt::format(
      "{} points, {} processes a round (one of every program, each side); first look ({} processes a side): "
      "{} processes, about {}; at most ({} a side, every point undecided to the end): {} processes, about {} ({})",
      round.points / 2, round.processes, first, round.processes * first, run::duration_text(first_look()), max,
      round.processes * max, run::duration_text(worst()), round.source());
}

int first_look_within(const AbEstimate& e, double budget_left) {
  if (!(budget_left > 0) || e.first_look() <= budget_left || !(e.round.seconds > 0)) return e.first;
  // Even: after an even number of ABBA rounds each side has gone first equally often.
  const int fit = 2 * static_cast<int>(std::floor(budget_left / e.round.seconds / 2));
  return std::max(2, std::min(e.first, fit));
}

std::string undecided_summary(const compare::Report& report, const std::string& why) {
  std::vector<const compare::Row*> open;
  for (const auto& row : report.rows)
    if (row.comparison.verdict == compare::Verdict::Inconclusive) open.push_back(&row);
  if (open.empty()) return "";
  std::string s = fmt::format("pitot ab: {} point{} left undecided when {}; the smallest change each could "
                              "have called:\n",
                              open.size(), open.size() == 1 ? "" : "s", why);
  for (std::size_t i = 0; i < open.size() && i < kListedUndecided; ++i) {
    const compare::Comparison& c = open[i]->comparison;
    const double d = detectable_percent(c, report.options);
    s += std::isfinite(d) ? fmt::format("  {}: beyond about {}% (interval ±{}%, {}+{} processes)\n",
                                        open[i]->base.display, compare::percent_text(d),
                                        compare::percent_text(c.noise_percent), c.base_processes, c.head_processes)
                          : fmt::format("  {}: none ({})\n", open[i]->base.display, c.note);
  }
  if (open.size() > kListedUndecided)
    s += fmt::format("  ... and {} more (the report lists them all)\n", open.size() - kListedUndecided);
  // GPU points whose clock was measured: under a power cap most of their spread is the clock each
  // process was given, which ab takes out unless --by-time (docs/compare.md, "Per clock").
  const auto clocked = std::count_if(open.begin(), open.end(), [](const compare::Row* r) {
    return !r->base.process_clocks.empty() && !r->head.process_clocks.empty();
  });
  if (clocked > 0 && !report.options.per_clock)
    s += fmt::format("pitot ab: {} of them had the card's clock measured over every sample: without --by-time "
                     "they are compared at the nominal clock, without the clock each process was given "
                     "(docs/compare.md, \"Per clock\")\n",
                     clocked);
  return s;
}

}  // namespace pitot::driver::ab

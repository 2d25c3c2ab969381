#include "driver/ab/schedule.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "driver/compare/render.hpp"

namespace pitot::driver::ab {

std::vector<int> look_schedule(int first, int max) {
  std::vector<int> looks{first};
  // Half as many again, rounded up to an even step: 4 -> 6 -> 10 -> 16 (capped at max).
  while (looks.back() < max) looks.push_back(std::min(max, looks.back() + 2 * ((looks.back() + 3) / 4)));
  return looks;
}

std::vector<double> look_shares(std::size_t looks) {
  if (looks <= 1) return {1.0};
  std::vector<double> shares(looks, (1 - kFirstLookShare) / static_cast<double>(looks - 1));
  shares[0] = kFirstLookShare;
  return shares;
}

void keep_verdicts(compare::Report& report, Kept& kept, bool complete) {
  std::map<std::string, compare::Row> called;  // changes this look calls that are not yet confirmed
  for (auto& row : report.rows) {
    const std::string& key = row.base.key;
    if (auto it = kept.decided.find(key); it != kept.decided.end()) {
      row = it->second;
      continue;
    }
    const auto pending = kept.to_confirm.find(key);
    if (!complete) {
      if (pending != kept.to_confirm.end()) row = pending->second;  // its confirming step did not finish
      continue;
    }
    const compare::Verdict v = row.comparison.verdict;
    if (v == compare::Verdict::Unchanged ||
        (compare::is_change(v) && pending != kept.to_confirm.end() && pending->second.comparison.verdict == v))
      kept.decided.emplace(key, row);
    else if (compare::is_change(v))
      called.emplace(key, row);
  }
  if (complete) kept.to_confirm = std::move(called);
  compare::sort_rows(report.rows);
  report.state = compare::check_state(report.rows);
}

double detectable_percent(const compare::Comparison& c, const compare::MethodOptions& method) {
  // Slower needs the estimate beyond the threshold and the interval beyond half of it, so with
  // this half-width h a change is called (about half the time) from max(threshold, h + threshold/2).
  const double threshold = 100 * method.threshold;
  if (!std::isfinite(c.noise_percent)) return std::nan("");
  return std::max(threshold, c.noise_percent + threshold / 2);
}

std::string undecided_note(const compare::Comparison& c, const compare::MethodOptions& method, const std::string& stop) {
  const double detectable = detectable_percent(c, method);
  if (!std::isfinite(detectable))
    return fmt::format("undecided when {}; {}", stop, c.note.empty() ? "no interval" : c.note);
  return fmt::format("undecided when {} ({}+{} processes): interval ±{}%, so only a change beyond about "
                     "{}% could be called; more processes or a quieter machine narrow it",
                     stop, c.base_processes, c.head_processes, compare::percent_text(c.noise_percent),
                     compare::percent_text(detectable));
}

std::string unconfirmed_note(const compare::Comparison& c, const std::string& stop) {
  return fmt::format("called at the last look ({}+{} processes), not yet confirmed on new ones: {}{}",
                     c.base_processes, c.head_processes, stop, c.note.empty() ? "" : "; " + c.note);
}

}  // namespace pitot::driver::ab

// A GPU point's time at the card's nominal clock (docs/compare.md, "Per clock"): under a power cap
// the SM clock a process gets moves its times by percents (time x clock stays within a tenth of
// that: docs/results/whole-suite-ab.md), so comparing the time each sample would have taken at the
// nominal clock leaves that noise out. What it cannot see is a change of the clock itself (a build
// that draws more power and is clocked lower): clock_shift says when the two sides' clocks are
// surely apart, and the comparison then stays with the time.
#include <algorithm>
#include <cmath>

#include "driver/compare/stats.hpp"

namespace pitot::driver::compare {

ClockShift clock_shift(const std::vector<double>& base_clocks, const std::vector<double>& head_clocks,
                       const MethodOptions& options) {
  auto logs = [](const std::vector<double>& clocks) {
    std::vector<double> out;
    for (double c : clocks)
      if (std::isfinite(c) && c > 0) out.push_back(std::log(c));
    return out;
  };
  const auto x = logs(base_clocks), y = logs(head_clocks);
  const auto n = static_cast<double>(x.size()), m = static_cast<double>(y.size());
  ClockShift shift;
  if (x.empty() || y.empty() || std::max(n, m) < 2) return shift;
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double a : v) s += a;
    return s / static_cast<double>(v.size());
  };
  const double mx = mean(x), my = mean(y), d = my - mx;
  double ss = 0;
  for (double a : x) ss += (a - mx) * (a - mx);
  for (double a : y) ss += (a - my) * (a - my);
  const double df = n + m - 2;
  const double se = std::sqrt(ss / df) * std::sqrt(1 / n + 1 / m);
  const double alpha = (1 - options.confidence) / std::max(1, options.looks);
  shift.percent = 100 * (std::exp(d) - 1);
  shift.sure = se > 0 ? std::abs(d) > student_t_upper_quantile(alpha / 2, df) * se : d != 0;
  return shift;
}

}  // namespace pitot::driver::compare

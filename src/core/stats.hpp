// Summary statistics of a sample, computed the way asv_runner does (docs/asv-format.md §5).
#pragma once

#include <utility>
#include <vector>

namespace pitot {

struct Stats {
  int n = 0;
  double median = 0, q25 = 0, q75 = 0, min = 0, max = 0, mean = 0, stdev = 0;
  // 99% interval of the median from binomial order statistics; ±infinity when n < 8.
  double ci99_lo = 0, ci99_hi = 0;
};

// Linear-interpolated quantile of sorted data (numpy's default, asv's `quantile`).
double quantile_sorted(const std::vector<double>& sorted, double q);

// The median of the finite values (quantile_sorted at 0.5), NaN when there is none.
double median(std::vector<double> values);

// asv's 99% interval of the median: indices into sorted data, or -1 / n for an open end.
std::pair<double, double> median_ci99_sorted(const std::vector<double>& sorted);

// All statistics of an unsorted sample. Throws std::invalid_argument on an empty sample.
Stats compute_stats(std::vector<double> samples);

}  // namespace pitot

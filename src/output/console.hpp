// Human outputs: the console table and CSV.
#pragma once

#include <ostream>
#include <vector>

#include "core/result.hpp"

namespace pitot {

// `ci_target` (--ci-target): a point that stopped on its time or sample limit with a wider 99%
// interval of the median is marked noisy ("!") and explained under the table.
void print_table(std::ostream& out, const std::vector<PointResult>& points, double ci_target = 0.005);
void write_csv(std::ostream& out, const std::vector<PointResult>& points);
// 1.23 µs, 4.5 ms, 2.0 s
std::string format_seconds(double seconds);
// A sample's value in its unit: seconds as above, bytes with an SI prefix (22.5 MB), anything else
// (an asv track's unit) as it is: "500 floats".
std::string format_value(double value, const std::string& unit);

}  // namespace pitot

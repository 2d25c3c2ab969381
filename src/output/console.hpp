// Human outputs: the console table and CSV.
#pragma once

#include <ostream>
#include <vector>

#include "core/result.hpp"

namespace pitot {

void print_table(std::ostream& out, const std::vector<PointResult>& points);
void write_csv(std::ostream& out, const std::vector<PointResult>& points);
// 1.23 µs, 4.5 ms, 2.0 s
std::string format_seconds(double seconds);

}  // namespace pitot

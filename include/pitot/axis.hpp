// Parameter axes: the values a benchmark is swept over.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace pitot {

enum class AxisKind { Int, Float, String, Pow2 };

// One value of an axis. Pow2 axes store the power (2^e), not the exponent.
using AxisValue = std::variant<std::int64_t, double, std::string>;

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::Int;
  std::vector<AxisValue> values;
};

}  // namespace pitot

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

// Python repr() of a value, as asv stores parameters: 10, 0.5, 'abc'.
std::string python_repr(const AxisValue& value);
// Short human form used in point names: 10, 0.5, abc, 2^10.
std::string display_value(const AxisValue& value, AxisKind kind);
const char* axis_kind_name(AxisKind kind);

}  // namespace pitot

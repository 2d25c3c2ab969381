// pitot's own, not part of the API: how axis values are written, in asv's parameters (Python
// repr) and in point names and listings. Used by the engine, the outputs and the driver.
#pragma once

#include <string>

#include <pitot/axis.hpp>

namespace pitot {

// Python repr() of a value, as asv stores parameters: 10, 0.5, 'abc'.
std::string python_repr(const AxisValue& value);
// Short human form used in point names: 10, 0.5, abc, 2^10.
std::string display_value(const AxisValue& value, AxisKind kind);
const char* axis_kind_name(AxisKind kind);

}  // namespace pitot

// Which kernel changed: the kernel clock's records of a point's two sides, matched by name.
#pragma once

#include <string>
#include <vector>

#include "driver/compare/points.hpp"

namespace pitot::driver::compare {

// One kernel of a changed point: its device time per launch on each side (NaN where it ran on
// one side only: new or vanished).
struct KernelChange {
  std::string name;
  double base = 0, head = 0;
};

// The kernels of two sides of a point matched by name, largest change of time first, new and
// vanished kernels included; empty when either side has no kernel records.
std::vector<KernelChange> kernel_changes(const PointData& base, const PointData& head);

}  // namespace pitot::driver::compare

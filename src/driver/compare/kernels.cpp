#include "driver/compare/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace pitot::driver::compare {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

std::vector<KernelChange> kernel_changes(const PointData& base, const PointData& head) {
  std::vector<KernelChange> out;
  if (base.kernels.empty() || head.kernels.empty()) return out;
  std::map<std::string, KernelChange> by_name;
  for (const auto& [name, seconds] : base.kernels) by_name[name] = {name, seconds, kNaN};
  for (const auto& [name, seconds] : head.kernels) {
    auto [it, fresh] = by_name.try_emplace(name, KernelChange{name, kNaN, seconds});
    if (!fresh) it->second.head = seconds;
  }
  for (auto& [name, k] : by_name) out.push_back(k);
  // New and vanished kernels count their whole time as the change.
  auto delta = [](const KernelChange& k) {
    return std::abs((std::isfinite(k.head) ? k.head : 0) - (std::isfinite(k.base) ? k.base : 0));
  };
  std::stable_sort(out.begin(), out.end(), [&](const KernelChange& a, const KernelChange& b) { return delta(a) > delta(b); });
  return out;
}

}  // namespace pitot::driver::compare

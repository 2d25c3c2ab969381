// What the three renderers of a report share: numbers and notes as people read them, the rows
// shown, the sections of points listed apart.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/compare/comparison.hpp"
#include "driver/compare/render.hpp"

namespace pitot::driver::compare::render {

std::string format_ratio(double r);
std::string format_interval(const Comparison& c);
std::string format_p(double p);
std::string percent(double fraction);  // 0.02 -> "2%"
// "±2.1% (5+5 processes)": the run-to-run noise the row's interval allows for.
std::string format_noise(const Comparison& c);
// The kernels a changed row shows: the few that changed most (the JSON keeps them all).
std::vector<KernelChange> shown_kernels(const Row& row);
// "gemm_kernel 120.3 µs -> 125.1 µs (1.040)", "new: cast_kernel 3.2 µs", "vanished: ...".
std::string kernel_line(const KernelChange& k);
std::string join_environments(const Report& r);
// The note a row shows: why it is inconclusive, or that its change is within the noise.
std::string row_note(const Comparison& c);
std::vector<const Row*> visible_rows(const Report& r, bool only_changed);
std::string count_points(int n);  // "1 point", "3 points"

// The points listed apart from the table, in the order every format shows them.
struct Section {
  const char* title;
  const std::vector<Listed>* items;
};
std::vector<Section> sections(const Report& r);

}  // namespace pitot::driver::compare::render

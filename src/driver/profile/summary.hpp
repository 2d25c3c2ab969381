// The short human summary of a profile (summary.txt): per-kernel key numbers from ncu's raw CSV,
// per-point device work from the CUPTI trace, the head of nsys/rocprofv3 kernel tables.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "driver/profile/trace.hpp"

namespace pitot::driver::profile {

// One CSV record (RFC 4180 quoting) split into fields.
std::vector<std::string> split_csv_line(const std::string& line);

// A table of the key ncu metrics, one line per profiled kernel, from `ncu --page raw --csv`.
// Empty when the CSV has no kernel rows.
std::string ncu_kernel_table(const std::string& raw_csv, std::size_t max_rows = 40);

// Per point: wall time of the range, device activities and the longest of them.
std::string cupti_point_table(const TraceStats& stats, std::size_t max_points = 40);

// The first `max_lines` lines of a CSV file, with a header naming the file.
std::string csv_head(const std::filesystem::path& csv, std::size_t max_lines = 12);

}  // namespace pitot::driver::profile

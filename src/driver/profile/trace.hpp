// Merging per-process traces into one: the CUPTI tracer's Chrome-trace JSON (gzip, one event per
// line so a process that died mid-write still yields its complete lines) and rocprofv3's Perfetto
// protobuf traces (which concatenate byte-wise).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pitot::driver::profile {

// What one point's range held, for the summary.
struct RangeSummary {
  std::string name;  // the point name (without "pitot:")
  int pid = 0;
  double wall_us = 0;  // the range's host duration
  int kernels = 0, memcpys = 0, memsets = 0;
  double gpu_us = 0;                                // summed device time of the work launched inside the range
  std::vector<std::pair<std::string, double>> top;  // longest device activities: name, µs
};

struct TraceStats {
  int files = 0;  // per-process traces read
  int processes = 0;
  std::uint64_t events = 0;
  int kernels = 0, memcpys = 0, memsets = 0, api_calls = 0, ranges = 0;
  std::uint64_t broken_lines = 0;     // lines that were not complete events (a process cut short)
  std::uint64_t dropped_records = 0;  // records CUPTI reported as lost
  std::vector<RangeSummary> points;
  nlohmann::json process_info = nlohmann::json::array();
};

// Reads every input (gzip or plain JSON in the tracer's format), sorts the events by time and
// writes one gzip-compressed Chrome trace. Throws std::runtime_error naming a file it cannot write.
TraceStats merge_cupti_traces(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output);

// Concatenates Perfetto traces into `output`; returns the bytes written.
std::uint64_t merge_perfetto(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output);

// Every regular file under `dir` whose name ends with `suffix`, sorted by path.
std::vector<std::filesystem::path> files_with_suffix(const std::filesystem::path& dir, const std::string& suffix);

}  // namespace pitot::driver::profile

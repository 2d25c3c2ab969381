// See noise.hpp. Each pattern names the tool whose line it matches.
#include "driver/profile/noise.hpp"

#include <regex>
#include <vector>

namespace pitot::driver::profile {

namespace {

const std::vector<std::regex>& noise_patterns() {
  static const std::vector<std::regex> patterns = [] {
    std::vector<std::string> text = {
        // ncu: "==PROF== Connected to process ...", "==PROF== Profiling ...", "==WARNING== ..."
        R"(^==PROF==)",
        R"(^==WARNING==)",
        // ncu's progress when it comes in pieces: "0%....50%....100%", " - 31 passes"
        R"(^\s*\d+%(\.+\d+%)*\s*$)",
        R"(^\s*-\s*\d+ pass(es)?\s*$)",
        // nsys: progress and file notices
        R"(^Collecting data\.\.\.\s*$)",
        R"(^Generating '.*'\s*$)",
        R"(^\[\d+/\d+\]\s)",
        R"(^Generated:\s*$)",
        R"(^\s+\S+\.(nsys-rep|qdstrm|sqlite)\s*$)",
        R"(^Capture range (started|ended) in the application\.?\s*$)",
        R"(^(Processing|Exporting) \[?\d*)",
        R"(^WARNING: CPU (IP/backtrace sampling|context switch tracing) not supported)",
        // Perfetto (inside rocprofv3): "[   12.345] perfetto.cc:123 message", "[libperfetto] ..."
        R"(^\[\s*\d+\.\d+\]\s+\S+\.(cc|h|cpp):\d+)",
        R"(^\[libperfetto\])",
        // rocprofiler-sdk glog lines, info and warning levels only: "W20250101 12:00:00.123456 42 file.cpp:12] ..."
        R"(^[IW]\d{4}(\d{4})? \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\])",
        // rocprofv3's launcher
        R"(^rocprofv3: (info|note):)",
    };
    std::vector<std::regex> out;
    for (const auto& t : text) out.emplace_back(t, std::regex::ECMAScript | std::regex::optimize);
    return out;
  }();
  return patterns;
}

}  // namespace

bool is_profiler_noise(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  for (const auto& re : noise_patterns())
    if (std::regex_search(line.begin(), line.end(), re)) return true;
  return false;
}

std::string filter_noise(std::string_view text, std::size_t* removed) {
  std::string out;
  out.reserve(text.size());
  std::size_t count = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, end - pos);
    std::string_view bare = line;
    if (!bare.empty() && bare.back() == '\n') bare.remove_suffix(1);
    if (is_profiler_noise(bare))
      ++count;
    else
      out.append(line);
    pos = end;
  }
  if (removed) *removed = count;
  return out;
}

std::string last_lines(std::string_view text, std::size_t max_lines) {
  if (text.empty() || max_lines == 0) return {};
  std::size_t end = text.size();
  if (text.back() == '\n') --end;
  std::size_t pos = end;
  std::size_t lines = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++lines == max_lines) break;
    --pos;
  }
  return std::string(text.substr(pos));
}

}  // namespace pitot::driver::profile

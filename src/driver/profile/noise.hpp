// Profiler log noise: the banner and progress lines ncu, nsys, rocprofv3 and Perfetto print around
// a program's own output. They are removed from what the user reads; the raw streams keep them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pitot::driver::profile {

// True for one line (without its newline) that is profiler chatter rather than the program's output
// or a real error. Error lines (==ERROR==, glog E lines) are never noise.
bool is_profiler_noise(std::string_view line);

// `text` without its noise lines; `removed` (if given) receives how many lines were taken out.
std::string filter_noise(std::string_view text, std::size_t* removed = nullptr);

// The last `max_lines` lines of `text` (all of it when shorter).
std::string last_lines(std::string_view text, std::size_t max_lines);

}  // namespace pitot::driver::profile

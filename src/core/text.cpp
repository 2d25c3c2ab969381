#include "core/text.hpp"

#include <cmath>
#include <cstdio>

#include <pitot/detail/axis_repr.hpp>

#include "core/tracks.hpp"
#include "core/utf8.hpp"

namespace pitot {

std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool is_lower_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_non_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned char>(s[i]));
      out += buf;
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string benchmark_name_problem(const std::string& name) {
  if (name.empty()) return "a benchmark name is empty";
  const std::string shown = "'" + escape_non_utf8(name) + "'";
  if (!is_utf8(name))
    return "the benchmark name " + shown + " is not UTF-8 text; asv and JSON hold UTF-8 only: rename it";
  // A '.' is allowed (asv's own names are Class.method), but not before a track's name: asv names a
  // benchmark's throughput tracks <name>.items_per_second..., so `fn.tflops` would be fn's track.
  if (const auto dot = name.rfind('.'); dot != std::string::npos) {
    const std::string last = name.substr(dot + 1);
    for (const TrackKind& track : track_kinds())
      if (last == track.name)
        return "the benchmark name " + shown + " has a '.' before '" + last +
               "': asv names a benchmark's throughput tracks <name>." + last +
               ", so it can be the same asv key as another benchmark's track and one time series would be "
               "lost; rename it (e.g. with '_' for the last '.')";
    if (last.empty() || name.front() == '.' || name.find("..") != std::string::npos)
      return "the benchmark name " + shown + " has an empty part between '.'s; asv's names are parts joined by '.'";
  }
  for (unsigned char c : name) {
    // asv's file names (util.sanitize_filename) replace these with '_', so "a/b" and "a_b" would be one file.
    if (c < 0x20 || c == 0x7f || std::string_view("<>:\"/\\^|?*").find(static_cast<char>(c)) != std::string_view::npos) {
      char buf[8];
      std::snprintf(buf, sizeof buf, c < 0x20 || c == 0x7f ? "\\x%02X" : "%c", c);
      return "the benchmark name " + shown + " has the character '" + buf +
             "', which asv replaces with '_' in its file names (two names could become one file); rename it "
             "with letters, digits and '_'";
    }
  }
  return "";
}

std::string asv_name_length_problem(const std::string& program, const std::string& name, const std::string& own_key) {
  if (!own_key.empty()) {
    if (own_key.size() <= kMaxAsvNameBytes) return "";
    return "the benchmark_name '" + escape_non_utf8(own_key.substr(0, 40)) + "...' is too long for asv: " +
           std::to_string(own_key.size()) + " bytes, over " + std::to_string(kMaxAsvNameBytes) +
           ". asv publish writes one file per name (<name>.<track>.json) and a file name over 255 bytes makes it "
           "fail for the whole database; shorten it to at most " + std::to_string(kMaxAsvNameBytes) + " bytes";
  }
  const std::size_t bytes = program.size() + 1 + name.size();
  if (bytes <= kMaxAsvNameBytes) return "";
  const std::size_t room = program.size() + 1 < kMaxAsvNameBytes ? kMaxAsvNameBytes - program.size() - 1 : 0;
  const std::string shown = escape_non_utf8(name.substr(0, 40));
  return "the benchmark name '" + shown + "...' is too long for asv: its asv name " + program + "." +
         "<name> is " + std::to_string(bytes) + " bytes, over " + std::to_string(kMaxAsvNameBytes) +
         ". asv publish writes one file per name (<name>.<track>.json) and a file name over 255 bytes makes it "
         "fail for the whole database; rename the benchmark to at most " +
         std::to_string(room) +
         " bytes (or shorten the program's name)";
}

std::string axis_value_problem(const AxisValue& value) {
  if (const auto* d = std::get_if<double>(&value); d && !std::isfinite(*d))
    return "is not a finite number: JSON and asv's params hold finite numbers only (pitot run could not read the "
           "program's list); give finite values";
  if (const auto* s = std::get_if<std::string>(&value); s && !is_utf8(*s))
    return "is not UTF-8 text: JSON and asv hold UTF-8 only; give the value as UTF-8 (ASCII is UTF-8)";
  return "";
}

std::string axis_problem(const Axis& axis) {
  if (axis.name.empty()) return "an axis name is empty";
  if (!is_utf8(axis.name))
    return "the axis name '" + escape_non_utf8(axis.name) + "' is not UTF-8 text; JSON and asv hold UTF-8 only: rename it";
  for (const auto& v : axis.values)
    if (const std::string problem = axis_value_problem(v); !problem.empty())
      return "axis '" + axis.name + "': the value " + escape_non_utf8(display_value(v, axis.kind)) + " " + problem;
  return "";
}

}  // namespace pitot

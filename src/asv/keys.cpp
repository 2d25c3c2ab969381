// See keys.hpp.
#include "asv/keys.hpp"

namespace pitot {

std::string asv_time_name(const BenchmarkInfo& b) { return b.full_name(); }

std::string asv_track_name(const BenchmarkInfo& b, const std::string& track) { return b.full_name() + "." + track; }

std::string asv_row_program(const std::string& row) { return row.substr(0, row.find('.')); }

std::string asv_row_name(const std::string& program, const std::string& benchmark, const std::string& own_key) {
  if (!own_key.empty()) return own_key;
  return program.empty() ? benchmark : program + "." + benchmark;
}

std::string asv_point_name(const std::string& row, const std::vector<std::string>& reprs) {
  if (reprs.empty()) return row;
  std::string name = row + "(";
  for (std::size_t a = 0; a < reprs.size(); ++a) name += (a ? ", " : "") + reprs[a];
  return name + ")";
}

std::optional<AsvTrackKey> split_track_key(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return std::nullopt;
  return AsvTrackKey{name.substr(0, dot), name.substr(dot + 1)};
}

PointNameParts split_point_name(const std::string& name) {
  PointNameParts parts;
  const auto open = name.find('[');
  parts.benchmark = name.substr(0, open);
  if (open == std::string::npos || name.back() != ']') return parts;
  const std::string inside = name.substr(open + 1, name.size() - open - 2);
  std::size_t pos = 0;
  while (pos < inside.size()) {
    const auto eq = inside.find('=', pos);
    if (eq == std::string::npos) break;
    std::string axis = inside.substr(pos, eq - pos);
    while (!axis.empty() && axis.front() == ' ') axis.erase(axis.begin());
    parts.axes.push_back(axis);
    const auto comma = inside.find(',', eq);
    parts.values.push_back(inside.substr(eq + 1, comma == std::string::npos ? std::string::npos : comma - eq - 1));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return parts;
}

}  // namespace pitot

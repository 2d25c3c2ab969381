// See options.hpp.
#include "driver/profile/options.hpp"

#include <cctype>
#include <cmath>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace pitot::driver::profile {

std::uint64_t parse_size(const std::string& text) {
  static const std::regex re(R"(^\s*([0-9]+(\.[0-9]+)?)\s*([kKmMgG]i?[bB]?|[bB])?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw std::invalid_argument("'" + text + "' is not a size; write e.g. 8MB, 500kB, 2MiB or a byte count");
  double value = std::stod(m[1].str());
  std::string unit = m[3].str();
  double scale = 1;
  if (!unit.empty() && unit != "b" && unit != "B") {
    const bool binary = unit.size() >= 2 && unit[1] == 'i';
    const double base = binary ? 1024.0 : 1000.0;
    switch (std::tolower(static_cast<unsigned char>(unit[0]))) {
      case 'k': scale = base; break;
      case 'm': scale = base * base; break;
      case 'g': scale = base * base * base; break;
    }
  }
  double bytes = value * scale;
  if (bytes < 1 || bytes > 1e15) throw std::invalid_argument("size '" + text + "' is out of range");
  return static_cast<std::uint64_t>(std::llround(bytes));
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.1f} kB", bytes / 1e3);
  if (bytes < 1000ull * 1000 * 1000) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

std::vector<std::string> selection_args(const Options& o) {
  std::vector<std::string> argv;
  if (!o.filter.empty()) argv.insert(argv.end(), {"--filter", o.filter});
  for (const auto& a : o.axes) argv.insert(argv.end(), {"--axis", a});
  argv.insert(argv.end(), o.program_args.begin(), o.program_args.end());
  return argv;
}

std::vector<std::string> program_command(const Options& o, const ProgramRef& program, const Layout& layout) {
  std::vector<std::string> argv = driver::program_command(program);
  argv.insert(argv.end(), {"--profile", "--quiet", "--json", layout.results_json().string()});
  const auto selection = selection_args(o);
  argv.insert(argv.end(), selection.begin(), selection.end());
  return argv;
}

}  // namespace pitot::driver::profile

// See summary.hpp.
#include "driver/profile/summary.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace pitot::driver::profile {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

namespace {

std::string shorten(std::string s, std::size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 3) + "...";
}

}  // namespace

std::string ncu_kernel_table(const std::string& raw_csv, std::size_t max_rows) {
  // Rows: header, units, then one per kernel. ncu may print "==PROF==" lines first: skip to the header.
  std::istringstream in(raw_csv);
  std::string line;
  std::vector<std::string> header, units;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("==", 0) == 0) continue;
    auto fields = split_csv_line(line);
    if (header.empty()) {
      if (std::find(fields.begin(), fields.end(), "Kernel Name") == fields.end()) continue;
      header = std::move(fields);
    } else if (units.empty()) {
      units = std::move(fields);
    } else if (fields.size() == header.size()) {  // anything else is not a kernel row
      rows.push_back(std::move(fields));
    }
  }
  if (header.empty() || rows.empty()) return {};
  auto column = [&](const std::string& name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  };
  // The point a kernel ran in: whichever NVTX column mentions a pitot range.
  std::vector<int> nvtx_columns;
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i].find("NVTX") != std::string::npos || header[i].find("Push/Pop") != std::string::npos ||
        header[i].find("nvtx") != std::string::npos)
      nvtx_columns.push_back(static_cast<int>(i));
  struct Metric {
    const char* column;
    const char* title;
  };
  const Metric metrics[] = {
      {"gpu__time_duration.sum", "duration"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM %"},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "mem %"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy %"},
      {"launch__registers_per_thread", "regs"},
  };
  const int name_col = column("Kernel Name"), id_col = column("ID"), grid_col = column("Grid Size"),
            block_col = column("Block Size");
  auto unit_of = [&](int c) {
    std::string u = c >= 0 && c < static_cast<int>(units.size()) ? units[c] : "";
    if (u == "nsecond") return std::string(" ns");
    if (u == "usecond") return std::string(" us");
    if (u == "msecond") return std::string(" ms");
    if (u == "second") return std::string(" s");
    if (u == "%") return std::string("%");
    if (u.empty() || u.size() > 3) return std::string();  // register/thread and the like
    return " " + u;
  };
  // Numbers to 4 significant digits; anything else as it is.
  auto number = [](const std::string& text) {
    try {
      std::size_t used = 0;
      double v = std::stod(text, &used);
      if (used == text.size()) return fmt::format("{:.4g}", v);
    } catch (const std::exception&) {
    }
    return text;
  };
  std::ostringstream out;
  out << fmt::format("{:>4}  {:<48}", "id", "kernel");
  std::vector<int> cols;
  for (const auto& m : metrics) {
    int c = column(m.column);
    cols.push_back(c);
    if (c >= 0) out << fmt::format("  {:>11}", m.title);
  }
  out << "  grid x block  point\n";
  std::size_t shown = 0;
  for (const auto& r : rows) {
    if (shown++ == max_rows) {
      out << fmt::format("... {} more kernels in ncu-raw.csv\n", rows.size() - max_rows);
      break;
    }
    auto at = [&](int c) { return c >= 0 && c < static_cast<int>(r.size()) ? r[c] : std::string(); };
    out << fmt::format("{:>4}  {:<48}", shorten(at(id_col), 6), shorten(at(name_col), 48));
    for (int c : cols)
      if (c >= 0) out << fmt::format("  {:>11}", shorten(number(at(c)) + unit_of(c), 11));
    out << "  " << shorten(at(grid_col), 16) << " x " << shorten(at(block_col), 16);
    for (int c : nvtx_columns) {
      auto v = at(c);
      auto p = v.find("pitot:");
      if (p == std::string::npos) continue;
      // "<domain>:pitot:copy[n=1024]:none..." -> "copy[n=1024]"
      auto name = v.substr(p + 6);
      auto close = name.find(']');
      name = close != std::string::npos ? name.substr(0, close + 1) : name.substr(0, name.find(':'));
      out << "  " << shorten(name, 80);
      break;
    }
    out << "\n";
  }
  return out.str();
}

std::string cupti_point_table(const TraceStats& stats, std::size_t max_points) {
  std::ostringstream out;
  std::size_t shown = 0;
  for (const auto& p : stats.points) {
    if (shown++ == max_points) {
      out << fmt::format("... {} more points in the trace\n", stats.points.size() - max_points);
      break;
    }
    out << fmt::format("{}  (pid {}): range {:.1f} us, device busy {:.1f} us in {} kernel(s), {} memcpy, {} memset\n",
                       p.name, p.pid, p.wall_us, p.gpu_us, p.kernels, p.memcpys, p.memsets);
    for (const auto& [name, us] : p.top) out << fmt::format("    {:>10.2f} us  {}\n", us, shorten(name, 90));
  }
  return out.str();
}

std::string csv_head(const std::filesystem::path& csv, std::size_t max_lines) {
  std::ifstream in(csv);
  if (!in) return {};
  std::ostringstream out;
  out << csv.filename().string() << ":\n";
  std::string line;
  std::size_t n = 0;
  while (n < max_lines && std::getline(in, line)) {
    out << "  " << shorten(line, 160) << "\n";
    ++n;
  }
  return out.str();
}

}  // namespace pitot::driver::profile

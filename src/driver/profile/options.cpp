// See profile_tools.hpp.
#include "driver/profile/tools.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace pitot::driver::profile {

std::optional<Tool> parse_tool(const std::string& name) {
  if (name == "ncu") return Tool::Ncu;
  if (name == "nsys") return Tool::Nsys;
  if (name == "cupti") return Tool::Cupti;
  if (name == "rocprofv3") return Tool::Rocprofv3;
  return std::nullopt;
}

std::string tool_name(Tool tool) {
  switch (tool) {
    case Tool::Ncu: return "ncu";
    case Tool::Nsys: return "nsys";
    case Tool::Cupti: return "cupti";
    case Tool::Rocprofv3: return "rocprofv3";
  }
  return "?";
}

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

namespace {

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

const char* kCuptiLibrary = "libpitot_cupti.so";

std::string executable_name(Tool tool) { return tool == Tool::Cupti ? kCuptiLibrary : tool_name(tool); }

}  // namespace

fs::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    fs::path candidate = fs::path(dir) / name;
    if (is_executable_file(candidate)) return fs::absolute(candidate);
  }
  return {};
}

fs::path find_tool(Tool tool, const std::string& tool_path, const fs::path& self) {
  const std::string name = executable_name(tool);
  std::error_code ec;
  if (!tool_path.empty()) {
    fs::path p = tool_path;
    if (fs::is_directory(p, ec)) p /= name;
    bool usable = tool == Tool::Cupti ? fs::is_regular_file(p, ec) : is_executable_file(p);
    if (!usable)
      throw ToolError(fmt::format("{}: --tool-path {} {}", tool_name(tool), tool_path,
                                  fs::exists(p, ec) ? "is not an executable file" : "does not exist"));
    return fs::absolute(p);
  }
  if (tool == Tool::Cupti) {
    // The tracer library: an explicit variable, then next to pitot in the build tree or install.
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("PITOT_CUPTI_LIBRARY"); env && *env) candidates.emplace_back(env);
    fs::path dir = self.parent_path();
    candidates.push_back(dir / name);
    candidates.push_back(dir.parent_path() / "lib" / "pitot" / name);  // bin/pitot -> lib/pitot/
    candidates.push_back(dir.parent_path() / "lib" / name);
    candidates.push_back(dir.parent_path() / "cupti" / name);  // build tree: src/driver/pitot -> src/cupti/
    for (const auto& c : candidates)
      if (fs::is_regular_file(c, ec)) return fs::absolute(c);
    std::string looked;
    for (const auto& c : candidates) looked += "\n  " + c.string();
    throw ToolError("cupti: pitot's CUPTI tracer (" + name + ") was not found; it is built with the CUDA backend. "
                    "Give its path with --tool-path or PITOT_CUPTI_LIBRARY. Looked in:" + looked);
  }
  fs::path found = find_on_path(name);
  if (found.empty()) {
    std::string hint = tool == Tool::Ncu    ? " (Nsight Compute; often in /usr/local/cuda/bin)"
                       : tool == Tool::Nsys ? " (Nsight Systems)"
                                            : " (ROCm; often in /opt/rocm/bin)";
    throw ToolError(fmt::format("{}: not found on PATH{}; install it or give its path with --tool-path", name, hint));
  }
  return found;
}

std::vector<std::string> list_command(const Options& o, const fs::path& program) {
  std::vector<std::string> argv{program.string(), "--list", "--json"};
  if (!o.filter.empty()) argv.insert(argv.end(), {"--filter", o.filter});
  for (const auto& a : o.axes) argv.insert(argv.end(), {"--axis", a});
  argv.insert(argv.end(), o.program_args.begin(), o.program_args.end());
  return argv;
}

std::vector<std::string> program_command(const Options& o, const fs::path& program, const Layout& layout) {
  std::vector<std::string> argv{program.string(), "--profile", "--quiet", "--json", layout.results_json().string()};
  if (!o.filter.empty()) argv.insert(argv.end(), {"--filter", o.filter});
  for (const auto& a : o.axes) argv.insert(argv.end(), {"--axis", a});
  argv.insert(argv.end(), o.program_args.begin(), o.program_args.end());
  return argv;
}

ToolCommand tool_command(const Options& o, const fs::path& tool_exe, const std::vector<std::string>& program_argv,
                         const Layout& layout) {
  ToolCommand c;
  auto& a = c.argv;
  switch (o.tool) {
    case Tool::Ncu:
      a = {tool_exe.string(),
           "--target-processes", "all",          // child processes too
           "--profile-from-start", "off",        // nothing before the first cudaProfilerStart
           "--nvtx", "--nvtx-include", kNcuNvtxInclude,  // only launches inside pitot's point ranges
           "--set", o.ncu_set,
           "--clock-control", o.clock_control,
           "--force-overwrite",
           "--export", (layout.profile_dir() / "report").string()};
      break;
    case Tool::Nsys:
      a = {tool_exe.string(), "profile",
           "--trace", "cuda,nvtx,osrt",
           "--capture-range", "cudaProfilerApi",
           "--capture-range-end", "none",  // one report from the first point to the end
           "--force-overwrite", "true",
           "--output", (layout.profile_dir() / "report").string()};
      break;
    case Tool::Rocprofv3:
      a = {tool_exe.string(), "--kernel-trace", "--hip-trace", "--marker-trace", "--memory-copy-trace",
           "--scratch-memory-trace"};
      if (o.hsa_trace) a.push_back("--hsa-trace");
      a.insert(a.end(), {"--output-format", "pftrace", "csv",  // ROCm 7 would default to SQLite
                         "--output-directory", (layout.profile_dir() / "rocprof").string(),
                         "--output-file", "%pid%"});  // one set of files per process
      if (o.code_objects) c.env.emplace_back("GPU_DUMP_CODE_OBJECT", "1");
      break;
    case Tool::Cupti:
      // The tracer rides in the program itself: the CUDA driver loads it at cuInit.
      c.env = {{"CUDA_INJECTION64_PATH", tool_exe.string()},
               {"PITOT_CUPTI_DIR", (layout.profile_dir() / "cupti").string()},
               {"PITOT_CUPTI_CAPTURE", "profiler-api"}};
      a = program_argv;
      return c;
  }
  a.insert(a.end(), o.tool_args.begin(), o.tool_args.end());
  a.push_back("--");
  a.insert(a.end(), program_argv.begin(), program_argv.end());
  // HIP writes code objects into its working directory.
  if (o.tool == Tool::Rocprofv3 && o.code_objects) c.cwd = layout.code_dir();
  return c;
}

std::vector<std::string> version_command(Tool tool, const fs::path& tool_exe) {
  if (tool == Tool::Cupti) return {};
  return {tool_exe.string(), "--version"};
}

std::string version_from_output(const std::string& text) {
  static const std::regex number(R"(\d+\.\d+)");
  std::stringstream lines(text);
  std::string line, first;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (std::regex_search(line, number)) return line;
  }
  return first;
}

std::vector<Followup> followup_commands(Tool tool, const fs::path& tool_exe, const Layout& layout) {
  const fs::path dir = layout.profile_dir();
  std::vector<Followup> f;
  if (tool == Tool::Ncu) {
    const std::string report = (dir / "report.ncu-rep").string();
    f.push_back({{tool_exe.string(), "--import", report, "--page", "details", "--print-details", "body"},
                 dir / "ncu-details.txt", "ncu details page (section tables per kernel)"});
    f.push_back({{tool_exe.string(), "--import", report, "--page", "raw", "--csv"},
                 dir / "ncu-raw.csv", "ncu raw metrics, one row per kernel (CSV)"});
  } else if (tool == Tool::Nsys) {
    f.push_back({{tool_exe.string(), "stats", "--force-export", "true", "--format", "csv",
                  "--report", "cuda_gpu_kern_sum", "--report", "cuda_gpu_mem_time_sum",
                  "--report", "cuda_api_sum", "--report", "nvtx_sum",
                  "--output", (dir / "stats").string(), (dir / "report.nsys-rep").string()},
                 dir / "nsys-stats.log", "nsys stats (CSV per report)"});
  }
  return f;
}

}  // namespace pitot::driver::profile

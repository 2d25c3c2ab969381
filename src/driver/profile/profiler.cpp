// See profiler.hpp: the list of plug-ins, what most of them share, and the helpers they use.
#include "driver/profile/profiler.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace pitot::driver::profile {

const std::vector<const Profiler*>& profilers() {
  static const std::vector<const Profiler*> all = {&ncu_profiler(), &nsys_profiler(), &cupti_profiler(),
                                                   &rocprofv3_profiler()};
  return all;
}

const Profiler* profiler_named(std::string_view name) {
  for (const Profiler* p : profilers())
    if (p->name() == name) return p;
  return nullptr;
}

std::vector<std::string> profiler_names() {
  std::vector<std::string> names;
  for (const Profiler* p : profilers()) names.push_back(p->name());
  return names;
}

std::string Profiler::version(const fs::path& exe) const {
  auto v = run_captured({exe.string(), "--version"}, 60);
  std::string version = version_from_output(v.out.empty() ? v.err : v.out);
  if (!v.end.ok() && version.empty()) version = "unknown (" + v.end.describe() + ")";
  return version;
}

namespace {

fs::path find_cuobjdump(const fs::path& tool_exe) {
  fs::path p = find_on_path("cuobjdump");
  if (!p.empty()) return p;
  std::error_code ec;
  for (fs::path c : {fs::path("/usr/local/cuda/bin/cuobjdump"), tool_exe.parent_path() / "cuobjdump"})
    if (fs::is_regular_file(c, ec)) return c;
  return {};
}

}  // namespace

Collected Profiler::code_objects(const fs::path& program, const fs::path& exe, const Layout& layout) const {
  Collected c;
  const fs::path dump = find_cuobjdump(exe);
  if (dump.empty()) {
    c.notes.push_back("--code-objects: cuobjdump not found on PATH or in /usr/local/cuda/bin; no SASS/PTX listing");
    return c;
  }
  for (const std::string what : {"sass", "ptx"}) {
    ProcessSpec d;
    d.argv = {dump.string(), "-" + what, program.string()};
    d.stdout_path = layout.code_dir() / (what + ".txt");
    d.stderr_path = layout.code_dir() / (what + ".stderr");
    d.timeout_seconds = 300;
    auto end = run_process(d);
    if (!end.ok()) c.notes.push_back(fmt::format("cuobjdump -{} {}: {}", what, program.filename().string(), end.describe()));
    add_if_exists(c.artifacts, d.stdout_path, "code-objects/" + what + ".txt", "code-object",
                  fmt::format("cuobjdump -{} of the program", what), kCodeObjects);
  }
  return c;
}

fs::path from_tool_path(const std::string& tool, const std::string& file_name, const std::string& tool_path,
                        bool executable) {
  std::error_code ec;
  fs::path p = tool_path;
  if (fs::is_directory(p, ec)) p /= file_name;
  const bool usable = executable ? is_executable_file(p) : fs::is_regular_file(p, ec);
  if (!usable)
    throw ToolError(fmt::format("{}: --tool-path {} {}", tool, tool_path,
                                fs::exists(p, ec) ? "is not an executable file" : "does not exist"));
  return fs::absolute(p);
}

fs::path find_executable(const std::string& name, const std::string& hint, const std::string& tool_path) {
  if (!tool_path.empty()) return from_tool_path(name, name, tool_path, true);
  fs::path found = find_on_path(name);
  if (found.empty())
    throw ToolError(fmt::format("{}: not found on PATH ({}); install it or give its path with --tool-path", name, hint));
  return found;
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

void add_if_exists(std::vector<Artifact>& list, const fs::path& file, const std::string& name, const std::string& kind,
                   const std::string& description, int rank, bool store) {
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) list.push_back({name, file, kind, description, rank, store});
}

}  // namespace pitot::driver::profile

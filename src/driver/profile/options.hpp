// The profilers `pitot profile` drives: how each is found, the command line it gets, and the
// follow-up commands that turn its report into text. Command lines are built fresh on every call
// from the options (nothing shared is appended to), so runs never leak flags into each other.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/profile/process.hpp"

namespace pitot::driver::profile {

enum class Tool { Ncu, Nsys, Cupti, Rocprofv3 };

std::optional<Tool> parse_tool(const std::string& name);
std::string tool_name(Tool tool);

// Everything the user chose on the command line.
struct Options {
  std::string program;                 // a path, or a program name from <build-dir>/pitot-manifest.json
  std::vector<std::string> program_args;  // given after `--`, passed to the program as they are
  std::string build_dir = ".";
  std::string filter;
  std::vector<std::string> axes;
  Tool tool = Tool::Cupti;
  std::string output;                  // the zip; default <program>-<tool>.zip
  std::uint64_t max_bytes = 8'000'000;
  std::string tool_path;
  std::string ncu_set = "full";
  std::string clock_control = "base";
  bool code_objects = false;
  bool hsa_trace = false;
  std::string keep_dir;
  double timeout_seconds = 1800;
  std::vector<std::string> tool_args;  // extra options for the profiler, before the program
};

// Where the run's files go, all under one working folder.
struct Layout {
  std::filesystem::path work;
  std::filesystem::path profile_dir() const { return work / "profile"; }
  std::filesystem::path results_json() const { return work / "results.json"; }
  std::filesystem::path code_dir() const { return work / "code-objects"; }
  std::filesystem::path stdout_file() const { return work / "stdout.txt"; }
  std::filesystem::path stderr_file() const { return work / "stderr.txt"; }
};

// A missing or unusable profiler: exit code 2, the message names the tool.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "8MB", "500kB", "2MiB", "1000000" -> bytes (kB = 1000, KiB = 1024). Throws std::invalid_argument.
std::uint64_t parse_size(const std::string& text);
std::string format_bytes(std::uint64_t bytes);  // "7.6 MB"

// The profiler's executable (or, for cupti, the tracer library): --tool-path (a file, or a folder
// holding it), else PATH (ncu, nsys, rocprofv3) or the places pitot installs the tracer.
// `self` is the pitot executable. Throws ToolError naming the tool and where it looked.
std::filesystem::path find_tool(Tool tool, const std::string& tool_path, const std::filesystem::path& self);

// An executable named `name` on PATH, or empty.
std::filesystem::path find_on_path(const std::string& name);

// The benchmark program's own command line in profile mode.
std::vector<std::string> program_command(const Options& o, const std::filesystem::path& program, const Layout& layout);

// `PROGRAM --list --json` with the same selection, to learn the points before profiling.
std::vector<std::string> list_command(const Options& o, const std::filesystem::path& program);

struct ToolCommand {
  std::vector<std::string> argv;
  EnvList env;
  std::filesystem::path cwd;  // empty: the user's working directory
};

// The profiler's command line around `program_argv`.
ToolCommand tool_command(const Options& o, const std::filesystem::path& tool_exe,
                         const std::vector<std::string>& program_argv, const Layout& layout);

// The command that prints the tool's version (empty for cupti).
std::vector<std::string> version_command(Tool tool, const std::filesystem::path& tool_exe);
// The first line of a --version answer that carries a version number.
std::string version_from_output(const std::string& text);

// Follow-up commands that turn the tool's report into text/CSV next to it (ncu --import, nsys stats).
struct Followup {
  std::vector<std::string> argv;
  std::filesystem::path output;  // where its stdout goes
  std::string description;
};
std::vector<Followup> followup_commands(Tool tool, const std::filesystem::path& tool_exe, const Layout& layout);

// The NVTX range filter given to ncu: every range pitot opens is named "pitot:<point>".
inline constexpr const char* kNcuNvtxInclude = "regex:pitot:.*/";

}  // namespace pitot::driver::profile

// What the user asked of `pitot profile`, where a run's files go, and the benchmark program's own
// command lines. Command lines are built fresh on every call from the options (nothing shared is
// appended to), so runs never leak flags into each other.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "driver/common/manifest.hpp"

namespace pitot::driver::profile {

class Profiler;  // profiler.hpp

// Everything the user chose on the command line.
struct Options {
  std::string program;                    // a path, or a program name from <build-dir>/pitot-manifest.json
  std::vector<std::string> program_args;  // given after `--`, passed to the program as they are
  std::string build_dir = ".";
  std::string filter;
  std::vector<std::string> axes;
  const Profiler* tool = nullptr;  // --tool, parsed into its plug-in (profiler_named)
  std::string output;              // the zip; default <program>-<tool>.zip
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

// "8MB", "500kB", "2MiB", "1000000" -> bytes (kB = 1000, KiB = 1024). Throws std::invalid_argument.
std::uint64_t parse_size(const std::string& text);
std::string format_bytes(std::uint64_t bytes);  // "7.6 MB"

// The benchmark program's own command line in profile mode: started as `pitot run` starts it
// (common/manifest.hpp: a Python file under its interpreter).
std::vector<std::string> program_command(const Options& o, const ProgramRef& program, const Layout& layout);

// The selection (--filter, --axis) and the user's own arguments: the same for the program's
// --list (common/manifest.hpp, list_program) and for the profiled run.
std::vector<std::string> selection_args(const Options& o);

}  // namespace pitot::driver::profile

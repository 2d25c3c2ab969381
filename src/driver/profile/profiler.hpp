// A profiler `pitot profile` drives, as a plug-in: how the tool is found, its version, the command
// line it gets around the program, the follow-up commands that turn its report into text, and the
// files and summary lines it leaves. One class per tool, one file each in tools/ (ncu, nsys, cupti,
// rocprofv3); the orchestrator (command.cpp, steps.cpp) asks the plug-in and never names a tool.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/process.hpp"
#include "driver/profile/options.hpp"
#include "driver/profile/package.hpp"

namespace pitot::driver::profile {

// A missing or unusable profiler: exit code 2, the message names the tool.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The profiled run: the profiler's command line around the program's, and what it adds.
struct ToolCommand {
  std::vector<std::string> argv;
  EnvList env;
  std::filesystem::path cwd;  // empty: the user's working directory
};

// A command run after the profiled run, e.g. `ncu --import report --page raw --csv`. It runs only
// when `input` exists; its stdout goes to `output`. Each may fail on its own (a note, not a failure).
struct Followup {
  std::vector<std::string> argv;
  std::filesystem::path input;   // the report it reads
  std::filesystem::path output;  // where its stdout goes
  std::string description;
};

// What a tool left in the working folder, for the zip, the summary and the manifest.
struct Collected {
  std::vector<Artifact> artifacts;
  std::string summary;                                 // the tool's lines in summary.txt (may be empty)
  std::vector<std::string> notes;                      // for the manifest's and the summary's notes
  nlohmann::json manifest = nlohmann::json::object();  // extra manifest.json keys (cupti: "trace")
};

class Profiler {
 public:
  virtual ~Profiler() = default;

  // The --tool name; also the default zip's suffix.
  virtual std::string name() const = 0;
  // The process that ran, in messages: the tool, or "the program" for a tracer that rides inside it.
  virtual std::string what_runs() const { return name(); }

  // The executable (or the tracer library): --tool-path (a file, or a folder holding it), else the
  // tool's own places. `self` is the pitot executable. Throws ToolError naming the tool.
  virtual std::filesystem::path find(const std::string& tool_path, const std::filesystem::path& self) const = 0;
  // Its version, for the manifest: by default the line of `exe --version` with a number in it.
  virtual std::string version(const std::filesystem::path& exe) const;

  // Folders the tool needs before it runs (besides the layout's own).
  virtual std::vector<std::filesystem::path> folders(const Layout&) const { return {}; }
  // The profiled run around `program_argv` (program_command).
  virtual ToolCommand command(const Options& o, const std::filesystem::path& exe,
                              const std::vector<std::string>& program_argv, const Layout& layout) const = 0;
  virtual std::vector<Followup> followups(const std::filesystem::path&, const Layout&) const { return {}; }

  // The files the run and its follow-ups left, and the summary read from them.
  virtual Collected collect(const Options& o, const Layout& layout) const = 0;
  // With --code-objects: the program's code. By default (CUDA) cuobjdump's SASS and PTX listings.
  virtual Collected code_objects(const std::filesystem::path& program, const std::filesystem::path& exe,
                                 const Layout& layout) const;
};

// Every plug-in, in --tool's order; the one named `name`, or nullptr.
const std::vector<const Profiler*>& profilers();
const Profiler* profiler_named(std::string_view name);
std::vector<std::string> profiler_names();

// The plug-ins (tools/<name>.cpp).
const Profiler& ncu_profiler();
const Profiler& nsys_profiler();
const Profiler& cupti_profiler();
const Profiler& rocprofv3_profiler();

// --- helpers for the plug-ins (and process/process.hpp's find_on_path) ---

// `file_name` given by --tool-path (the file, or a folder holding it); throws ToolError for `tool`
// when it is missing or (with `executable`) not executable.
std::filesystem::path from_tool_path(const std::string& tool, const std::string& file_name,
                                     const std::string& tool_path, bool executable);
// A profiler executable: --tool-path, else PATH; the ToolError says where it is usually found (`hint`).
std::filesystem::path find_executable(const std::string& name, const std::string& hint, const std::string& tool_path);

// The first line of a --version answer that carries a version number.
std::string version_from_output(const std::string& text);

// Appends an artifact when its file exists.
void add_if_exists(std::vector<Artifact>& list, const std::filesystem::path& file, const std::string& name,
                   const std::string& kind, const std::string& description, int rank, bool store = false);

// The NVTX range filter given to ncu: every range pitot opens is named "pitot:<point>".
inline constexpr const char* kNcuNvtxInclude = "regex:pitot:.*/";

}  // namespace pitot::driver::profile

// The steps of one `pitot profile`, in the order command.cpp runs them: resolve the program, select
// its points, prepare the folders, run the tool, run its follow-ups, collect the artifacts,
// summarize, pack. Each reads what the earlier ones left in the Session and adds its own part;
// none names a tool (the plug-in, profiler.hpp, answers for it).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/common/manifest.hpp"
#include "process/process.hpp"
#include "driver/profile/options.hpp"
#include "driver/profile/package.hpp"
#include "driver/profile/profiler.hpp"

namespace pitot::driver::profile {

// The profiler's and the program's output as the user reads it: without the profiler's noise.
struct Streams {
  std::string out_filtered, err_filtered;
  std::size_t removed = 0;  // noise lines taken out
};

// What one run learns as it goes.
struct Session {
  Session(const Options& options, const Profiler& profiler) : o(options), tool(profiler) {}
  const Options& o;
  const Profiler& tool;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  ProgramRef program;  // its path is absolute
  std::filesystem::path tool_exe, zip;
  ProgramInfo list;  // the program's --list --json answer for the selection
  Layout layout;
  bool keep_work = false;  // the working folder stays on disk
  std::string version;     // the tool's
  ToolCommand command;     // the profiled run
  ProcessEnd end;
  std::vector<Artifact> artifacts;
  Collected collected;  // the tool's summary lines and manifest keys (its artifacts are in `artifacts`)
  nlohmann::json notes = nlohmann::json::array();
  nlohmann::json results;                           // the program's --json results, or null
  nlohmann::json points = nlohmann::json::array();  // as reported, else as selected
  Streams streams;

  bool failed() const { return !end.ok(); }
  bool essential_missing() const;  // no report or trace among the artifacts
};

// What pack wrote.
struct Packed {
  std::uint64_t zip_bytes = 0;
  std::optional<std::filesystem::path> kept_dir;  // the full folder, when the zip cannot hold the report
  std::string summary;                            // summary.txt as written
};

// 1. PROGRAM as given: a path as `pitot run` takes one, or a name from
//    <build-dir>/pitot-manifest.json (common/manifest.hpp, find_program). Throws InputError.
ProgramRef resolve_program(const Options& o);
// The zip to write (-o, or <program>-<tool>.zip), checked before anything runs. Throws InputError.
std::filesystem::path zip_path(const Options& o, const Profiler& tool, const ProgramRef& program);
// 2. The points, asked of the program (common/manifest.hpp, list_program) before anything runs
//    under the profiler: a filter that matches nothing is a usage error (InputError).
ProgramInfo select_points(const Options& o, const ProgramRef& program);
// 3. A fresh working folder (--keep-dir, or a hidden one next to the zip) with the tool's folders.
Layout prepare_folders(const Options& o, const Profiler& tool, const std::filesystem::path& zip);
// 4. The profiled run, with Ctrl-C and SIGTERM ending it like a timeout.
void run_tool(Session& s);
// 5. The tool's follow-up commands; a failure is a note.
void run_followups(Session& s);
// 6. The tool's files, the code objects, the program's results and the streams, measured.
void collect_artifacts(Session& s);
// 7. The points, the filtered streams and the notes that the manifest and summary report.
void summarize(Session& s);
// The two texts of the package.
nlohmann::json manifest_json(const Session& s, const PackagePlan& plan, const std::filesystem::path* kept_dir);
std::string summary_text(const Session& s, const PackagePlan& plan, const std::filesystem::path* kept_dir);
// 8. The zip under the budget (planned again when the estimate was short); when the report does
//    not fit, the working folder stays on disk next to the zip.
Packed pack(Session& s);
// 9. The summary on stdout, the zip's place on stderr, the working folder removed unless kept.
//    Returns the exit code.
int finish(Session& s, const Packed& packed);
// The working folder removed unless it is kept (also when a step throws).
void remove_work(const Session& s);

}  // namespace pitot::driver::profile

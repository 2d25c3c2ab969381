// Finding benchmark programs (the build's pitot-manifest.json, paths or folders) and asking
// each what it holds (`PROGRAM --list --json`).
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/protocol.hpp"
#include "core/result.hpp"
#include "driver/common/errors.hpp"

namespace pitot::driver {

struct ProgramRef {
  std::string name;
  std::filesystem::path path;
  // What runs `path` when it is not executable itself: a Python benchmark file is imported by
  // `$PITOT_PYTHON -m pitot [--root DIR] FILE` (manifest.cpp). Empty: the file is executed.
  std::vector<std::string> interpreter;
};

// The argv that starts a program: its interpreter, if any, then its path.
std::vector<std::string> program_command(const ProgramRef& ref);

// Programs named by `inputs` (executables, Python files, folders holding either, asv.conf.json
// files: the modules of their benchmark_dir), or when empty the programs of
// <build_dir>/pitot-manifest.json. Throws InputError naming what is missing.
std::vector<ProgramRef> find_programs(const std::vector<std::string>& inputs, const std::filesystem::path& build_dir);

// Whether a program input is an asv.conf.json (a .json file): it stands for the modules of its
// benchmark_dir, and pitot run takes its results_dir and repo as from --config.
bool is_asv_config_input(const std::string& input);

// The one program `given` names (pitot profile): a bare name that is not a file here is looked up
// in <build_dir>/pitot-manifest.json (only that program need be built), anything else is taken
// as find_programs takes it and must name exactly one program. Its path is made absolute.
// Throws InputError naming what is missing.
ProgramRef find_program(const std::string& given, const std::filesystem::path& build_dir);

// One point of a program as the driver plans it, with enough to record it as failed.
struct PlannedPoint {
  int id = 0;
  std::string name;
  std::size_t benchmark = 0;  // index into ProgramInfo::benchmarks
  std::vector<std::size_t> index;
  std::vector<AxisValue> values;
  double timeout_seconds = 60;
};

struct ProgramInfo {
  ProgramRef ref;
  std::string program;  // the name the program reports (asv names start with it)
  std::vector<BenchmarkInfo> benchmarks;
  std::vector<PlannedPoint> points;  // every listed point, in id order
  ListAnswer list;                   // the whole --list --json answer, as read
};

// A program that could not be listed (`--list --json` failed: a Python module that does not
// import, a binary that crashes): pitot run records it with the reason and runs the others.
struct ProgramFailure {
  ProgramRef ref;
  std::string reason;
};
// The name a program's asv keys would start with, from its path alone (it could not say): the
// file's name, or a Python module's dotted name within its suite.
std::string expected_program_name(const ProgramRef& ref);

// Runs `PROGRAM --list --json [extra_args]` and reads the answer. Throws InputError with the
// program's stderr when it fails or answers something that is not a pitot list.
ProgramInfo list_program(const ProgramRef& ref, const std::vector<std::string>& extra_args);

// The facts of GPU `device` (its name, memory, clocks: what names the asv machine), as the first
// of `programs` that has a GPU describes them. Programs are listed for device 0, so for another
// device that program is asked again with `--device N`. Null when none has a GPU. Throws
// InputError when the program cannot describe that device.
nlohmann::json device_facts(const std::vector<ProgramInfo>& programs, int device);
// The same with the machine name that program's backend gives that GPU (its listing's `machine`).
struct ListedDevice {
  nlohmann::json facts;
  std::string machine;
};
ListedDevice listed_device(const std::vector<ProgramInfo>& programs, int device);

// Parses a --list --json answer (exposed for tests).
ProgramInfo parse_list(const ProgramRef& ref, const nlohmann::json& j);

// A point skeleton (program, benchmark, id, name, axis values) for results the driver writes itself.
PointResult skeleton(const ProgramInfo& program, const PlannedPoint& point);

}  // namespace pitot::driver

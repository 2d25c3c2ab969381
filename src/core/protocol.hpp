// The contract between a benchmark program and the driver (docs/protocol.md), in code: the
// answer to `PROGRAM --list --json` and the messages of the result channel. Both ends use these
// structs, each with one to_json and one from_json; the doc's key lists are checked against
// them (tests/core/test_protocol.cpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace pitot {

// ---- How a program ends, and how the driver reaches it ------------------------------------

// A benchmark program's exit codes (docs/program-cli.md). The driver reads them
// (run/program_runner.cpp: exit 2 before any message is a refused command line, exit 3 a lost
// device) and its own commands end with the first three (driver/common/errors.hpp).
enum ProgramExit : int {
  kExitOk = 0,            // every selected point ran (or was skipped)
  kExitPointsFailed = 1,  // some point failed
  kExitUsage = 2,         // bad flag, axis, value or file
  kExitDeviceLost = 3,    // a sticky device error: restart after the last reported point
};

// The environment variable the driver sets to the fd number of a child's result channel; a
// program that finds it writes the channel's messages (below) to that fd.
inline constexpr const char* kResultFdVariable = "PITOT_RESULT_FD";
// The fd number the driver gives that channel in the child.
inline constexpr int kResultFd = 3;

// The bytes every C++ benchmark program carries in its file (src/program/entry.cpp, beside
// main()): `pitot run FOLDER` runs only the executables of a folder that hold them, HEAD then
// TAIL, side by side. Two halves, so that the driver, which must not pass for a program, never
// holds the whole marker (it joins them at run time).
#define PITOT_PROGRAM_MARKER_HEAD "pitot-benchmark-program:"
#define PITOT_PROGRAM_MARKER_TAIL "main-of-pitot_main/1"

// ---- `PROGRAM --list --json` -------------------------------------------------------------

// One point of the listing: ids number the points of all benchmarks in declaration order,
// cartesian within a benchmark, last axis fastest.
struct ListedPoint {
  int id = 0;
  std::string name;       // e.g. gemm_bf16[M=4096,N=4096]
  std::string benchmark;  // the benchmark's name, one of ListAnswer::benchmarks
};

// The program's own build (a build without optimization gets a warning).
struct ListedBuild {
  std::string build_type;  // CMake's build type of the benchmarks
  bool optimized = true;
  bool ndebug = true;
  std::string env_build_type;  // as the asv env names it ("Release", "unoptimized")
};

struct ListAnswer {
  std::string program;
  std::string backend = "cpu";  // "cpu", "cuda", "hip": the device backend linked in
  // Facts of the selected GPU, all recorded as asv machine facts (null without a GPU). `gpu`, the
  // product name, gives the default machine name. Keys: docs/protocol.md, "Device facts".
  nlohmann::json device = nullptr;
  int device_count = 0;  // GPUs the program can see (--devices all)
  std::string machine;   // the default asv machine name from the GPU ("" without one)
  std::optional<ListedBuild> build;
  // The program's build for asv's `requirements` (compiler, build_type, cuda...); the driver
  // names the env from it. Absent: the driver's own build is assumed.
  std::optional<std::map<std::string, std::string>> requirements;
  std::vector<BenchmarkInfo> benchmarks;
  std::vector<ListedPoint> points;  // the selected points (after --filter, --axis)
};

// The facts of GPU `index` as a listing gives them: a program lists the device it would run on
// by default, GPU 0 (null for another index, and without a GPU).
nlohmann::json listed_device_facts(const ListAnswer& answer, int index);

nlohmann::json to_json(const ListedPoint& point);
nlohmann::json to_json(const ListedBuild& build);
nlohmann::json to_json(const ListAnswer& answer);
// Throws nlohmann::json::exception for an answer that is not a pitot list.
ListAnswer list_answer_from_json(const nlohmann::json& j);

// ---- The result channel: one JSON object per line ---------------------------------------

// {"type":"start","id":7}: the point with id 7 begins (its setup and first batch hold the turn).
struct StartMessage {
  int id = 0;
};
// {"type":"sampling","id":7}: under --untrusted, a turn of the sampling of the point with id 7
// begins (the first right after its warm-up; with interleaving, one per turn). The driver times
// the phase itself (docs/untrusted.md).
struct SamplingMessage {
  int id = 0;
};
// {"type":"sampled","id":7,"harness":0.04}: under --untrusted, that turn ends; `harness`: the
// seconds of the harness's own work in it between the timed spans (a problem's staging and checks;
// 0 for a plain benchmark, and when an older program leaves it out).
struct SampledMessage {
  int id = 0;
  double harness = 0;
};
// {"type":"point",...}: a point finished (reported, failed or skipped): to_json(PointResult).
struct PointMessage {
  PointResult point;
};
// {"type":"done"}: every asked point was reported; the program is about to exit.
struct DoneMessage {};
// A type a newer program may send: read and ignored.
struct OtherMessage {
  std::string type;
};
using ChannelMessage =
    std::variant<StartMessage, SamplingMessage, SampledMessage, PointMessage, DoneMessage, OtherMessage>;

inline constexpr const char* kStartType = "start";
inline constexpr const char* kSamplingType = "sampling";
inline constexpr const char* kSampledType = "sampled";
inline constexpr const char* kPointType = "point";
inline constexpr const char* kDoneType = "done";

nlohmann::json to_json(const StartMessage& m);
nlohmann::json to_json(const SamplingMessage& m);
nlohmann::json to_json(const SampledMessage& m);
nlohmann::json to_json(const PointMessage& m);
nlohmann::json to_json(const DoneMessage& m);
// Throws nlohmann::json::exception for an object that is not a message (no string `type`, a
// start without an integer id, a point that point_from_json refuses).
ChannelMessage channel_message_from_json(const nlohmann::json& j);

}  // namespace pitot

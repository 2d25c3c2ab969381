#include "program/replicate.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>

#include "core/bounded_json.hpp"
#include "core/protocol.hpp"
#include "process/process.hpp"

namespace pitot::program {
namespace {

constexpr const char* kReplicateVariable = "PITOT_REPLICATE_JSON";

// Runs this program again with argv[1..] and PITOT_REPLICATE_JSON=json_path; says how it ended.
// Its output goes to this program's own stdout and stderr, and it stays in this process group,
// so a Ctrl-C ends both.
ExitStatus run_one(char** argv, const std::string& json_path) {
  SpawnSpec spec;
  spec.env = child_environment({{kReplicateVariable, json_path}});
  // /proc/self/exe: the same binary, however it was started; a program run by an interpreter
  // (a Python file) names its own command instead, which replaces argv[0].
  spec.argv = self_command();
  if (spec.argv.empty()) {
    spec.argv.emplace_back(argv[0]);
    spec.executable = "/proc/self/exe";
  }
  for (char** a = argv + 1; *a; ++a) spec.argv.emplace_back(*a);
  spec.capture_output = false;
  spec.own_group = false;
  const Spawned started = spawn(spec);
  if (started.failed != SpawnFailure::none)
    throw std::runtime_error(std::string("cannot start a replicate process: ") + std::strerror(started.error));
  const ExitStatus end = wait_for_exit(started.pid);
  if (started.error != 0)
    throw std::runtime_error(fmt::format("cannot start a replicate process ({}): {}", spec.executable.empty() ? spec.argv[0] : spec.executable, std::strerror(started.error)));
  return end;
}

}  // namespace

std::vector<std::string>& self_command() {
  static std::vector<std::string> command;
  return command;
}

std::string replicate_json_path() {
  const char* path = std::getenv(kReplicateVariable);
  return path ? path : "";
}

std::vector<PointResult> run_replicates(const std::string& program, char** argv, int processes,
                                        const std::vector<PlannedPoint>& points, bool progress) {
  char dir_template[] = "/tmp/pitot-processes-XXXXXX";
  if (!mkdtemp(dir_template)) throw std::runtime_error(std::string("cannot make a temporary folder: ") + std::strerror(errno));
  const std::filesystem::path dir = dir_template;
  std::map<int, std::vector<PointResult>> runs;  // point id -> its result in each process
  try {
    for (int k = 1; k <= processes; ++k) {
      if (progress) std::cerr << fmt::format("{}: process {} of {}\n", program, k, processes);
      const std::string json_path = (dir / fmt::format("process-{}.json", k)).string();
      const ExitStatus status = run_one(argv, json_path);
      if (status.exited && status.code == kExitUsage)
        throw UsageError(fmt::format("process {} of {} refused its command line (its message is above)", k, processes));
      std::map<int, PointResult> reported;
      try {
        const nlohmann::json doc = parse_json_bounded(read_text_file(json_path));
        for (const auto& p : doc.at("points")) {
          PointResult r = point_from_json(p);
          reported[r.id] = std::move(r);
        }
      } catch (const ReadError&) {
        // The process ended before writing its points: they count as not reported.
      } catch (const nlohmann::json::exception&) {
        // A process killed while writing: likewise.
      }
      for (const auto& point : points) {
        auto it = reported.find(point.id);
        if (it != reported.end()) {
          runs[point.id].push_back(std::move(it->second));
          continue;
        }
        PointResult lost = skipped_result(program, point, "");
        lost.status = PointStatus::Failed;
        lost.reason = fmt::format("the process {}{} before this point finished", status.exited ? "" : "was ", status.describe());
        runs[point.id].push_back(std::move(lost));
      }
    }
  } catch (...) {
    std::filesystem::remove_all(dir);
    throw;
  }
  std::filesystem::remove_all(dir);
  std::vector<PointResult> pooled;
  for (const auto& point : points) pooled.push_back(merge_processes(runs[point.id]));
  return pooled;
}

}  // namespace pitot::program

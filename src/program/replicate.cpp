#include "program/replicate.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>

#include "core/protocol.hpp"

extern char** environ;

namespace pitot::program {
namespace {

constexpr const char* kReplicateVariable = "PITOT_REPLICATE_JSON";

// Runs argv[0]'s executable with `argv` and PITOT_REPLICATE_JSON=json_path; returns its wait status.
int run_one(char** argv, const std::string& json_path) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, kReplicateVariable, std::strlen(kReplicateVariable)) != 0) env_text.emplace_back(*e);
  env_text.push_back(std::string(kReplicateVariable) + "=" + json_path);
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  // /proc/self/exe: the same binary, however it was started; a program run by an interpreter
  // (a Python file) names its own command instead, which replaces argv[0].
  std::vector<std::string> command_text = self_command();
  std::vector<char*> command;
  if (!command_text.empty()) {
    for (char** a = argv + 1; *a; ++a) command_text.emplace_back(*a);
    for (auto& a : command_text) command.push_back(a.data());
    command.push_back(nullptr);
    argv = command.data();
  }
  const char* exe = command.empty() ? "/proc/self/exe" : command[0];
  if (int rc = posix_spawn(&pid, exe, nullptr, nullptr, argv, env.data()); rc != 0)
    throw std::runtime_error(std::string("cannot start a replicate process: ") + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  return status;
}

std::string ending(int status) {
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("exited {}", WEXITSTATUS(status));
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
      const int status = run_one(argv, json_path);
      if (WIFEXITED(status) && WEXITSTATUS(status) == kExitUsage)
        throw UsageError(fmt::format("process {} of {} refused its command line (its message is above)", k, processes));
      std::map<int, PointResult> reported;
      if (std::ifstream f(json_path); f) {
        try {
          const auto doc = nlohmann::json::parse(f);
          for (const auto& p : doc.at("points")) {
            PointResult r = point_from_json(p);
            reported[r.id] = std::move(r);
          }
        } catch (const nlohmann::json::exception&) {
          // A process killed while writing: its points count as not reported.
        }
      }
      for (const auto& point : points) {
        auto it = reported.find(point.id);
        if (it != reported.end()) {
          runs[point.id].push_back(std::move(it->second));
          continue;
        }
        PointResult lost = skipped_result(program, point, "");
        lost.status = PointStatus::Failed;
        lost.reason = fmt::format("the process {} before this point finished", ending(status));
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

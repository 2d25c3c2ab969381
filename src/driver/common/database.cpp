#include "driver/common/database.hpp"

#include "core/bounded_json.hpp"
#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver {

CommitInfo resolve_commit(const std::string& commit, const fs::path& repo) {
  auto info = git_commit(repo.empty() ? fs::path(".") : repo, commit.empty() ? "HEAD" : commit);
  if (info) return *info;
  if (commit.empty())
    throw InputError("cannot find the commit being measured: " + fs::absolute(repo).string() +
                     " is not in a git repository with a commit; pass --commit HASH");
  throw InputError("--commit " + commit + " is not a commit of the git repository at " + repo.string() +
                   " (asv publish needs the commit in the repository named by asv.conf.json)");
}

void fill_machine(AsvRun& run, const std::string& machine_option, const json& device) {
  run.machine_facts = host_facts();
  if (device.is_object()) {
    for (const auto& [k, v] : device.items()) {
      if (v.is_null() || v.is_object() || v.is_array()) continue;
      run.machine_facts[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  // The same rule as a program's own --asv-dir: the GPU product the backend reports as "gpu".
  std::string name = machine_option;
  if (name.empty() && device.is_object() && device.contains("gpu") && device["gpu"].is_string())
    name = machine_name_from_gpu(device["gpu"].get<std::string>());
  if (name.empty()) name = machine_name_from_cpu(run.machine_facts["cpu"]);
  try {
    run.machine = checked_name("machine", name);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string(e.what()) + " (choose one with --machine)");
  }
}

}  // namespace pitot::driver

#include "driver/common/database.hpp"

#include "core/bounded_json.hpp"
#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver {

std::optional<AsvConfig> find_asv_config(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  if (path.empty()) {
    // ./asv.conf.json, else the one `pitot init --dir asv-results` writes: results must land in
    // its results_dir (asv-results/results), where asv looks, not in asv-results itself.
    for (const char* candidate : {"asv.conf.json", "asv-results/asv.conf.json"})
      if (fs::exists(candidate, ec)) {
        p = candidate;
        break;
      }
    if (p.empty()) return std::nullopt;
  } else if (fs::is_directory(p, ec) && fs::exists(p / "asv.conf.json", ec)) {
    p /= "asv.conf.json";  // a folder holding asv.conf.json stands for it
  } else if (!fs::exists(p, ec)) {
    throw InputError("no asv config at " + path + " (pitot init --dir FOLDER writes FOLDER/asv.conf.json)");
  }
  return read_asv_config(p);
}

AsvConfig read_asv_config(const fs::path& file) {
  json j;
  try {
    j = parse_json_bounded(read_file(file), /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    throw InputError(file.string() + " cannot be read as JSON (" + e.what() +
                     "); pitot reads comments but not the rest of JSON5 (trailing commas, single quotes)");
  }
  if (!j.is_object()) throw InputError(file.string() + " is not a JSON object: is it an asv.conf.json?");
  for (const char* key : {"results_dir", "repo"})
    if (j.contains(key) && !j[key].is_string())
      throw InputError(file.string() + ": \"" + key + "\" is " + j[key].type_name() + ", not a string (a folder)");
  AsvConfig c;
  c.path = file;
  const fs::path base = file.parent_path();
  c.results_dir = base / j.value("results_dir", "results");
  c.repo = base / j.value("repo", ".");
  return c;
}

void write_asv_config(const fs::path& file, const NewAsvConfig& config) {
  const nlohmann::ordered_json j = {{"version", 1},
                                    {"project", config.project},
                                    {"repo", config.repo},
                                    {"dvcs", "git"},
                                    {"branches", config.branches},
                                    {"environment_type", "existing"},
                                    {"results_dir", config.results_dir},
                                    {"html_dir", config.html_dir},
                                    {"hash_length", 8}};
  replace_file(file, j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

fs::path results_dir(const std::string& asv_dir, const std::optional<AsvConfig>& config) {
  std::error_code ec;
  // A folder holding asv.conf.json (what `pitot init --dir` made) stands for its results_dir.
  if (!asv_dir.empty() && fs::exists(fs::path(asv_dir) / "asv.conf.json", ec))
    return read_asv_config(fs::path(asv_dir) / "asv.conf.json").results_dir;
  if (!asv_dir.empty()) return asv_dir;
  if (config) return config->results_dir;
  return "asv-results";
}

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

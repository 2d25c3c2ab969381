// See config.hpp.
#include "asv/config.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/bounded_json.hpp"
#include "core/rethrow.hpp"
#include "output/atomic_file.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot {

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
    throw AsvError("no asv config at " + path + " (pitot init --dir FOLDER writes FOLDER/asv.conf.json)");
  }
  return read_asv_config(p);
}

json read_asv_config_json(const fs::path& file) {
  const std::string text = rethrow_as<ReadError, AsvError>([&] { return read_text_file(file); });
  json j;
  try {
    j = parse_json_bounded(text, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    throw AsvError(file.string() + " cannot be read as JSON (" + e.what() +
                   "); pitot reads comments but not the rest of JSON5 (trailing commas, single quotes)");
  }
  if (!j.is_object()) throw AsvError(file.string() + " is not a JSON object: is it an asv.conf.json?");
  return j;
}

namespace {

// asv's matrix (0.6: {"req": {...}, "env": {...}, "env_nobuild": {...}}, or the older form where
// every key is a requirement): each requirement's one version, or nullopt when a requirement has
// several (several environments). A null version means "not installed": no param; an empty list
// is asv's [""]. Environment variables name asv's env but are not params. `include` adds
// environments, except to an existing one (asv run --python=same leaves it out).
std::optional<std::map<std::string, std::string>> matrix_requirements(const fs::path& file, const json& conf, bool existing) {
  std::map<std::string, std::string> reqs;
  if (!existing && conf.contains("include") && conf["include"].is_array() && !conf["include"].empty())
    return std::nullopt;  // environments beyond the matrix
  if (!conf.contains("matrix") || conf["matrix"].is_null()) return reqs;
  const json& matrix = conf["matrix"];
  if (!matrix.is_object()) throw AsvError(file.string() + ": \"matrix\" is " + matrix.type_name() + ", not an object");
  bool new_form = !matrix.empty();
  for (const auto& [key, value] : matrix.items()) new_form = new_form && (key == "req" || key == "env" || key == "env_nobuild");
  const json& req = new_form ? matrix.value("req", json::object()) : matrix;
  if (!req.is_object()) throw AsvError(file.string() + ": the matrix's \"req\" is not an object");
  for (const auto& [name, versions] : req.items()) {
    const json list = !versions.is_array() ? json::array({versions}) : versions.empty() ? json::array({""}) : versions;
    if (list.size() != 1) return std::nullopt;
    if (list[0].is_null()) continue;
    if (!list[0].is_string())
      throw AsvError(file.string() + ": the matrix's version of " + name + " is " + list[0].type_name() + ", not a string");
    reqs[name] = list[0].get<std::string>();
  }
  return reqs;
}

}  // namespace

std::string take_asv_env_params(std::map<std::string, std::string>& requirements, const AsvEnvironments& envs) {
  const auto version = requirements.find("python_version");
  if (version == requirements.end() || envs.type.empty()) return "";
  if (envs.type == "existing") {
    // `asv run --python=same`, the way asv runs in the current interpreter, records the matrix's
    // requirements beside the interpreter's path (asv 0.6.6; `-E existing:same` records none).
    if (!envs.requirements)
      return "asv.conf.json's matrix makes several environments and pitot runs in one interpreter: its rows start a "
             "graph line of their own (a matrix of one version per requirement continues asv's)";
    for (const auto& [name, v] : *envs.requirements) requirements.emplace(name, v);
    return "";
  }
  if (!envs.pythons.empty() &&
      std::find(envs.pythons.begin(), envs.pythons.end(), version->second) == envs.pythons.end())
    return "asv.conf.json makes " + envs.type + " environments for Python " + fmt::format("{}", fmt::join(envs.pythons, ", ")) +
           ", not for this interpreter's " + version->second + ": its rows start a graph line of their own";
  if (!envs.requirements)
    return "asv.conf.json's matrix makes several " + envs.type +
           " environments and pitot runs in one interpreter: its rows start a graph line of their own (a matrix of one "
           "version per requirement continues asv's)";
  requirements["python"] = version->second;
  for (const auto& [name, v] : *envs.requirements) requirements.emplace(name, v);
  return "";
}

AsvConfig read_asv_config(const fs::path& file) {
  const json j = read_asv_config_json(file);
  for (const char* key : {"results_dir", "repo"})
    if (j.contains(key) && !j[key].is_string())
      throw AsvError(file.string() + ": \"" + key + "\" is " + j[key].type_name() + ", not a string (a folder)");
  AsvConfig c;
  c.path = file;
  const fs::path base = file.parent_path();
  c.results_dir = base / j.value("results_dir", "results");
  c.repo = base / j.value("repo", ".");
  if (j.contains("environment_type") && j["environment_type"].is_string())
    c.environments.type = j["environment_type"].get<std::string>();
  if (j.contains("pythons") && j["pythons"].is_array())
    for (const auto& v : j["pythons"])
      if (v.is_string()) c.environments.pythons.push_back(v.get<std::string>());
  c.environments.requirements = matrix_requirements(file, j, c.environments.type == "existing");
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
  try {
    replace_file(file, j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  } catch (const FileError& e) {
    throw AsvError(e.what());
  }
}

fs::path asv_results_dir(const std::string& dir, const std::optional<AsvConfig>& config) {
  std::error_code ec;
  // A folder holding asv.conf.json (what `pitot init --dir` made) stands for its results_dir.
  if (!dir.empty() && fs::exists(fs::path(dir) / "asv.conf.json", ec))
    return read_asv_config(fs::path(dir) / "asv.conf.json").results_dir;
  if (!dir.empty()) return dir;
  if (config) return config->results_dir;
  return "asv-results";
}

}  // namespace pitot

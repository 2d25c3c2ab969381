// asv.conf.json, found, read and written here only (docs/asv-format.md §1): `pitot init` writes
// it; run, machine, merge and compare find it and read where the results go.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/error.hpp"

namespace pitot {

// The environments asv makes for a suite (asv.conf.json's environment_type, pythons, matrix):
// what its rows' params hold, so that rows pitot writes for the same suite go on in asv's graphs.
struct AsvEnvironments {
  std::string type;                  // "virtualenv", "conda", "existing", ... ("" when unset)
  std::vector<std::string> pythons;  // the Python versions asv makes envs for ("3.11"); empty: any
  // Each requirement of the matrix and its one version ("" for the newest, as asv writes it);
  // nullopt when the matrix makes several environments (pitot cannot tell which one it runs in).
  std::optional<std::map<std::string, std::string>> requirements = std::map<std::string, std::string>{};
};

// An asv.conf.json as far as pitot needs it. Read with comments allowed (asv uses json5).
struct AsvConfig {
  std::filesystem::path path;         // the file
  std::filesystem::path results_dir;  // resolved against the file's folder
  std::filesystem::path repo;         // likewise
  AsvEnvironments environments;
};
// The file's JSON object, comments allowed. Throws AsvError when it cannot be read or is not a
// JSON object.
nlohmann::json read_asv_config_json(const std::filesystem::path& file);
// The config in `file`. Throws AsvError when it cannot be read, is not a JSON object or names
// a folder with something else than a string.
AsvConfig read_asv_config(const std::filesystem::path& file);
// The config at `path` (a file, or a folder holding asv.conf.json), or when `path` is empty
// ./asv.conf.json, else ./asv-results/asv.conf.json; nullopt when there is none.
// Throws AsvError when the file exists but cannot be read.
std::optional<AsvConfig> find_asv_config(const std::string& path);

// A Python program's requirements (host/machine.hpp: "python" the interpreter's path,
// "python_version") made the params asv gives the rows of an environment it makes itself
// (virtualenv, conda, ...): "python" the version, and the matrix's requirements, so that an asv
// history goes on in the same graphs. For an "existing" environment the path stays (asv records
// it too) and the matrix's requirements are added, as `asv run --python=same` records them.
// Nothing changes for a C++ program. Returns why the params stay pitot's own when they cannot be
// asv's (a matrix of several environments, another Python version), else "".
std::string take_asv_env_params(std::map<std::string, std::string>& requirements, const AsvEnvironments& envs);

// What `pitot init` puts in a new asv.conf.json (relative folders, as asv reads them).
struct NewAsvConfig {
  std::string project, repo;
  std::vector<std::string> branches;
  std::string results_dir, html_dir;
};
// Writes `file` atomically; throws AsvError.
void write_asv_config(const std::filesystem::path& file, const NewAsvConfig& config);

// The results folder: `dir` when given (the results_dir of the asv.conf.json it holds, if any),
// else the config's results_dir, else ./asv-results.
std::filesystem::path asv_results_dir(const std::string& dir, const std::optional<AsvConfig>& config);

}  // namespace pitot

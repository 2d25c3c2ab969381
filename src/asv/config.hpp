// asv.conf.json, found, read and written here only (docs/asv-format.md §1): `pitot init` writes
// it; run, machine, merge and compare find it and read where the results go.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/error.hpp"

namespace pitot {

// An asv.conf.json as far as pitot needs it. Read with comments allowed (asv uses json5).
struct AsvConfig {
  std::filesystem::path path;         // the file
  std::filesystem::path results_dir;  // resolved against the file's folder
  std::filesystem::path repo;         // likewise
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

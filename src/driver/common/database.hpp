// Where `pitot run` writes (the asv results folder) and what it records about the run:
// commit, commit date, environment name, machine name and facts.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/asv.hpp"
#include "host/machine.hpp"

namespace pitot::driver {

// asv.conf.json, read and written here only (docs/asv-format.md §1): `pitot init` writes it,
// run, machine, merge and compare read it.

// An asv.conf.json as far as pitot needs it. Read with comments allowed (asv uses json5).
struct AsvConfig {
  std::filesystem::path path;         // the file
  std::filesystem::path results_dir;  // resolved against the file's folder
  std::filesystem::path repo;         // likewise
};
// The config in `file`. Throws InputError when it cannot be read, is not a JSON object or names
// a folder with something else than a string.
AsvConfig read_asv_config(const std::filesystem::path& file);
// The config at `path` (a file, or a folder holding asv.conf.json), or when `path` is empty
// ./asv.conf.json, else ./asv-results/asv.conf.json; nullopt when there is none.
// Throws InputError when the file exists but cannot be read.
std::optional<AsvConfig> find_asv_config(const std::string& path);

// What `pitot init` puts in a new asv.conf.json (relative folders, as asv reads them).
struct NewAsvConfig {
  std::string project, repo;
  std::vector<std::string> branches;
  std::string results_dir, html_dir;
};
// Writes `file` atomically; throws InputError.
void write_asv_config(const std::filesystem::path& file, const NewAsvConfig& config);

// --asv-dir when given (the results_dir of the asv.conf.json it holds, if any), else the config's
// results_dir, else ./asv-results.
std::filesystem::path results_dir(const std::string& asv_dir, const std::optional<AsvConfig>& config);

// The commit and its date: --commit (any git revision) resolved in `repo`, else HEAD of `repo`.
// Throws InputError when neither works, saying to pass --commit.
CommitInfo resolve_commit(const std::string& commit, const std::filesystem::path& repo);

// Machine name and facts for a device: --machine when given, else from the device facts the
// program reported (its GPU product, "gpu"), else the CPU model.
// `device` is the program's fact object for that device (may be null).
void fill_machine(AsvRun& run, const std::string& machine_option, const nlohmann::json& device);

}  // namespace pitot::driver

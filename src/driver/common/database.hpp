// What `pitot run` records about the run in the asv database: commit, commit date, machine name
// and facts. Where it writes (asv.conf.json, the results folder) is the asv module's
// (asv/config.hpp).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/write.hpp"
#include "host/machine.hpp"

namespace pitot::driver {

// The commit and its date: --commit (any git revision) resolved in `repo`, else HEAD of `repo`.
// Throws InputError when neither works, saying to pass --commit.
CommitInfo resolve_commit(const std::string& commit, const std::filesystem::path& repo);

// Machine name and facts for a device: --machine when given, else from the device facts the
// program reported (its GPU product, "gpu"), else the CPU model.
// `device` is the program's fact object for that device (may be null).
void fill_machine(AsvRun& run, const std::string& machine_option, const nlohmann::json& device);

}  // namespace pitot::driver

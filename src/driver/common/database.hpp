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

// A machine asv recorded in ~/.asv-machine.json: its name and every fact of its entry, as asv
// wrote them (asv puts them all in its rows' params: "os": "Linux 6.1.0-18-amd64", "ram":
// "25276203008").
struct AsvMachine {
  std::string name;
  std::map<std::string, std::string> facts;  // without "machine" and "version"
};
// The machine of asv's machine file (its JSON, {"version": 1, "<name>": {...}}) that a run on
// the host `host` continues, as asv itself chooses: the entry named `host`, else the only entry.
// nullopt, with `note` saying why, when there are several and none is this host's.
std::optional<AsvMachine> choose_asv_machine(const nlohmann::json& machine_file, const std::string& host, std::string& note);
// The entry `name` of asv's machine file, if it has one.
std::optional<AsvMachine> asv_machine_named(const nlohmann::json& machine_file, const std::string& name);
// asv's machine file: $HOME/.asv-machine.json, as asv finds it.
std::filesystem::path asv_machine_file_path();

// Machine name and facts for a device (docs/asv-database.md, "The machine"): --machine when
// given; else the machine asv recorded for this host in ~/.asv-machine.json (choose_asv_machine);
// else from the device facts the program reported (its GPU product, "gpu"), else the CPU model.
// A machine asv recorded keeps its facts exactly and gets no GPU facts: asv's rows have none,
// and a param they lack would put pitot's rows on another graph line. `device` is the program's
// fact object for that device (may be null). Notes (a machine file it cannot use) go to stderr,
// once per process.
void fill_machine(AsvRun& run, const std::string& machine_option, const nlohmann::json& device);

}  // namespace pitot::driver

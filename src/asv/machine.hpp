// asv's two machine files, as asv's machine.py reads them: asv's own record of the hosts it ran on
// (~/.asv-machine.json, written by `asv machine`) and a results folder's <machine>/machine.json
// (docs/asv-format.md §3), with the one rule for updating the latter (docs/asv-database.md,
// "machine.json").
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pitot {

using AsvFacts = std::map<std::string, std::string>;

// The facts asv itself records about a machine (`asv machine`), in its own spelling ("ram":
// "25275973632", "os": "Linux 6.1.0-18-amd64"); every other fact in a machine.json is pitot's.
extern const std::vector<std::string> kAsvOwnMachineFacts;

// ---------------------------------------------------------------------------------------------
// ~/.asv-machine.json: {"version": 1, "<name>": {"arch": ..., "machine": "<name>", ...}}.

// A machine asv recorded: its name and every fact of its entry, as asv wrote them.
struct AsvMachine {
  std::string name;
  AsvFacts facts;  // without "machine" and "version"
};
// The machine a run on the host `host` continues, as asv itself chooses: the entry named `host`,
// else the only entry. nullopt, with `note` saying why, when there are several and none is this
// host's.
std::optional<AsvMachine> choose_asv_machine(const nlohmann::json& machine_file, const std::string& host, std::string& note);
// The entry `name` of asv's machine file, if it has one.
std::optional<AsvMachine> asv_machine_named(const nlohmann::json& machine_file, const std::string& name);
// asv's machine file: $HOME/.asv-machine.json, as asv finds it.
std::filesystem::path asv_machine_file_path();
// Its JSON, or null when there is none; a file that cannot be read is said in `note` and is null.
nlohmann::json read_asv_machine_file(std::string& note);
// This host's name as asv names it (the uname node name).
std::string asv_host_name();

// ---------------------------------------------------------------------------------------------
// <machine>/machine.json of a results folder.

struct MachineJson {
  std::string machine;  // "machine"
  AsvFacts facts;       // every other key but "version"; a value that is not a string, as JSON text
};
// Throws AsvError as load_asv_file does (asv/database.hpp); an absent file is an empty record.
MachineJson load_machine_json(const std::filesystem::path& path);
MachineJson machine_json_from(const nlohmann::json& doc);
// The file's text (strict JSON, indented, keys sorted, version 1).
std::string machine_json_text(const MachineJson& m);

// The one rule for updating machine.json, for the writer, `pitot machine --record` and `pitot
// merge`: asv's own facts (kAsvOwnMachineFacts) already recorded are kept, whoever wrote them
// (asv, the user, an earlier run): earlier results carry them as params, so a history goes on in
// the same graphs; every other fact takes the new value (pitot's GPU facts follow the card).
// Returns the facts the machine now has; `kept` (when given) names the recorded facts that won.
AsvFacts update_machine_json(MachineJson& recorded, const std::string& machine, const AsvFacts& facts,
                             std::vector<std::string>* kept = nullptr);

}  // namespace pitot

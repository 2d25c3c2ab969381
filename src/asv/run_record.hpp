// The asv run record (AsvRun: machine and facts, commit and date, env and requirements) that a
// benchmark program's own --asv-dir and `pitot run` both hand to write_asv, built by one function
// from what each knows, so that the same point lands in the same row, file and params whichever
// executable wrote it (docs/asv-database.md, "Writing").
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/machine.hpp"
#include "asv/write.hpp"
#include "host/machine.hpp"

namespace pitot {

// The commit a run belongs to: `option` (any git revision; empty: HEAD) resolved in `repo`, with
// its commit date. A full 40-digit hash that git does not know there (results made outside the
// checkout) is taken as given and dated now, and `note` says so: asv publish needs the commit in
// the repository. Throws AsvError for anything else.
CommitInfo asv_commit(const std::string& option, const std::filesystem::path& repo, std::string& note);

// A GPU's facts as machine facts: each scalar of the program's device object (a string as it is,
// another as its JSON text); null, objects and lists are left out.
AsvFacts device_machine_facts(const nlohmann::json& device);

// What either executable knows of the machine.
struct MachineInputs {
  std::string option;                // --machine ("": chosen below)
  nlohmann::json asv_machine_file;   // ~/.asv-machine.json (read_asv_machine_file), or null
  std::string host;                  // asv_host_name()
  AsvFacts host_facts;               // host_facts()
  nlohmann::json device;             // the GPU's facts (null without one)
  std::string device_machine;        // the backend's name for that GPU ("": from device["gpu"])
};
struct MachineRecord {
  std::string name;
  AsvFacts facts;
};
// The machine: --machine; else the machine asv recorded for this host (choose_asv_machine), which
// keeps asv's facts exactly and gets no GPU facts (asv's rows have none, and a param they lack
// would start another graph line); else named after the GPU, else the CPU model, with the host's
// facts and the GPU's. A --machine that asv's file names takes asv's facts too. Throws AsvError
// for a name that cannot name a folder (checked_name); `note` says why asv's machine file was
// passed over, if it was.
MachineRecord asv_machine_record(const MachineInputs& in, std::string& note);

// What either executable knows when it writes a run.
struct RunRecordInputs {
  MachineInputs machine;
  CommitInfo commit;  // asv_commit
  std::string env;    // the env name, suffixes included
  AsvFacts requirements;
  const AsvEnvironments* environments = nullptr;  // the asv.conf.json found (find_asv_config), if any
};
// The run record: asv_machine_record's machine, the commit, the env (checked as a name, else
// AsvError) and the requirements, with the params asv.conf.json's environments give a Python
// program's rows (take_asv_env_params). Each note (why asv's machine file or environment params
// were passed over) is added to `notes`.
AsvRun asv_run_record(const RunRecordInputs& in, std::set<std::string>& notes);

}  // namespace pitot

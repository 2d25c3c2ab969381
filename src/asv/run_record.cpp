// See run_record.hpp.
#include "asv/run_record.hpp"

#include <chrono>
#include <stdexcept>

#include "asv/error.hpp"
#include "core/text.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

CommitInfo asv_commit(const std::string& option, const fs::path& repo, std::string& note) {
  const fs::path where = repo.empty() ? fs::path(".") : repo;
  if (auto info = git_commit(where, option.empty() ? "HEAD" : option)) return *info;
  if (option.empty())
    throw AsvError("cannot find the commit being measured: " + fs::absolute(where).string() +
                   " is not in a git repository with a commit; pass --commit HASH");
  const std::string hash = ascii_lower(option);
  if (hash.size() != 40 || !is_lower_hex(hash))
    throw AsvError("--commit " + option + " is not a commit of the git repository at " + where.string() +
                   "; give a revision of it, or the full 40-digit hash of a commit made elsewhere");
  note = "commit " + hash.substr(0, 8) + " is not in the git repository at " + where.string() +
         ": its rows are dated now, and asv publish shows them only once the commit is there";
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return {hash, std::chrono::duration_cast<std::chrono::milliseconds>(now).count()};
}

AsvFacts device_machine_facts(const json& device) {
  AsvFacts facts;
  if (!device.is_object()) return facts;
  for (const auto& [k, v] : device.items())
    if (!v.is_null() && !v.is_object() && !v.is_array()) facts[k] = v.is_string() ? v.get<std::string>() : json_text(v);
  return facts;
}

namespace {

std::string checked(const std::string& what, const std::string& name, const std::string& hint) {
  try {
    return checked_name(what, name);
  } catch (const std::invalid_argument& e) {
    throw AsvError(std::string(e.what()) + hint);
  }
}

}  // namespace

MachineRecord asv_machine_record(const MachineInputs& in, std::string& note) {
  const std::optional<AsvMachine> asv = in.option.empty() ? choose_asv_machine(in.asv_machine_file, in.host, note)
                                                          : asv_machine_named(in.asv_machine_file, in.option);
  if (asv)
    return {checked("machine", asv->name, " (the name ~/.asv-machine.json gives; choose another with --machine)"),
            asv->facts};
  MachineRecord m{"", in.host_facts};
  for (const auto& [k, v] : device_machine_facts(in.device)) m.facts[k] = v;
  std::string name = in.option;
  if (name.empty()) name = in.device_machine;
  if (name.empty() && in.device.is_object() && in.device.contains("gpu") && in.device["gpu"].is_string())
    name = machine_name_from_gpu(in.device["gpu"].get<std::string>());
  if (name.empty()) name = machine_name_from_cpu(m.facts["cpu"]);
  m.name = checked("machine", name, " (choose one with --machine)");
  return m;
}

AsvRun asv_run_record(const RunRecordInputs& in, std::set<std::string>& notes) {
  AsvRun run;
  std::string note;
  MachineRecord machine = asv_machine_record(in.machine, note);
  if (!note.empty()) notes.insert(note);
  run.machine = std::move(machine.name);
  run.machine_facts = std::move(machine.facts);
  run.commit_hash = in.commit.hash;
  run.commit_date_ms = in.commit.date_ms;
  run.env_name = checked("environment", in.env, " (choose one with --env)");
  run.requirements = in.requirements;
  if (in.environments)
    if (std::string why = take_asv_env_params(run.requirements, *in.environments); !why.empty()) notes.insert(why);
  return run;
}

}  // namespace pitot

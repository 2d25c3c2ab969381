// pitot machine: shows the facts asv records about this machine, and records them by the one rule
// for machine.json (asv/machine.hpp: asv's facts already recorded are kept).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/machine.hpp"
#include "asv/results.hpp"
#include "asv/run_record.hpp"
#include "core/rethrow.hpp"
#include "driver/common/command.hpp"
#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::run {
namespace {

struct MachineOptions {
  std::vector<std::string> inputs;
  std::string build_dir = ".";
  std::string machine, asv_dir, config;
  int device = 0;
  bool record = false, json = false;
};

// The facts, as a table or as machine.json's JSON.
int show(const MachineJson& m, bool as_json) {
  json facts = json::object();
  for (const auto& [k, v] : m.facts) facts[k] = v;
  facts["machine"] = m.machine;
  facts["version"] = kAsvMachineVersion;
  if (as_json) std::printf("%s\n", facts.dump(2).c_str());
  else
    for (const auto& [k, v] : facts.items())
      std::printf("%-10s %s\n", k.c_str(), v.is_string() ? v.get<std::string>().c_str() : v.dump().c_str());
  return kOk;
}

int machine_command(const MachineOptions& o) {
  // Device facts come from a benchmark program (the driver itself loads no GPU library).
  ListedDevice device{nullptr, ""};
  std::vector<ProgramRef> refs;
  try {
    refs = find_programs(o.inputs, o.build_dir);
  } catch (const InputError&) {
    if (!o.inputs.empty()) throw;  // named programs must exist; without a manifest: host facts only
  }
  for (const auto& r : refs) {
    ProgramInfo info = list_program(r, {});
    if (info.list.device.is_null()) continue;
    device = listed_device({info}, o.device);
    break;
  }
  // The machine pitot run would file rows under (asv/run_record.hpp).
  std::string note;
  const MachineInputs in{o.machine, read_asv_machine_file(note), asv_host_name(), host_facts(), device.facts, device.machine};
  MachineRecord m = rethrow_as<AsvError, InputError>([&] { return asv_machine_record(in, note); });
  if (!note.empty()) std::fprintf(stderr, "pitot machine: note: %s\n", note.c_str());
  MachineJson shown{m.name, m.facts};
  if (!o.record) return show(shown, o.json);

  const fs::path dir = asv_results_dir(o.asv_dir, find_asv_config(o.config));
  const fs::path path = dir / m.name / "machine.json";
  FolderLock lock(dir);
  MachineJson recorded = rethrow_as<AsvError, InputError>([&] { return load_machine_json(path); });
  std::vector<std::string> kept;
  update_machine_json(recorded, m.name, m.facts, &kept);  // the one rule (asv/machine.hpp)
  replace_file(path, machine_json_text(recorded));
  show(recorded, o.json);
  std::fprintf(stderr, "recorded %s\n", path.string().c_str());
  for (const auto& key : kept)
    std::fprintf(stderr, "pitot machine: kept %s as recorded (%s), as earlier results carry it\n", key.c_str(),
                 recorded.facts[key].c_str());
  return kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("machine", "Show the machine facts asv records (host and GPU), and record them");
  auto o = std::make_shared<MachineOptions>();
  cmd->add_option("programs", o->inputs, "A benchmark program to ask for the GPU facts (default: the build's manifest)");
  add_build_dir_option(cmd, o->build_dir);
  cmd->add_option("--machine", o->machine, "Machine name (default: from the GPU product, else the CPU model)");
  cmd->add_option("--device", o->device, "Which GPU's facts")->capture_default_str();
  cmd->add_flag("--record", o->record, "Write <results>/<machine>/machine.json");
  cmd->add_option("--asv-dir", o->asv_dir, "asv results folder (default: results_dir of ./asv.conf.json, else ./asv-results)");
  cmd->add_option("--config", o->config, "asv.conf.json to take results_dir from");
  cmd->add_flag("--json", o->json, "Print the facts as JSON");
  cmd->callback([o] { run_guarded("machine", [&] { return machine_command(*o); }); });
}

}  // namespace

void add_machine_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

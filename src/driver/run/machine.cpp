// pitot machine: shows the facts asv records about this machine, and records them.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "asv/database.hpp"
#include "driver/common/command.hpp"
#include "driver/common/database.hpp"
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

int machine_command(const MachineOptions& o) {
  // Device facts come from a benchmark program (the driver itself loads no GPU library).
  json device = nullptr;
  std::vector<ProgramRef> refs;
  try {
    refs = find_programs(o.inputs, o.build_dir);
  } catch (const InputError&) {
    if (!o.inputs.empty()) throw;  // named programs must exist; without a manifest: host facts only
  }
  for (const auto& r : refs) {
    ProgramInfo info = list_program(r, {});
    if (info.list.device.is_null()) continue;
    device = device_facts({info}, o.device);
    break;
  }
  AsvRun run;
  fill_machine(run, o.machine, device);
  json facts = json::object();
  for (const auto& [k, v] : run.machine_facts) facts[k] = v;
  facts["machine"] = run.machine;
  facts["version"] = kAsvMachineVersion;

  if (o.json) std::printf("%s\n", facts.dump(2).c_str());
  else
    for (const auto& [k, v] : facts.items()) std::printf("%-10s %s\n", k.c_str(), v.is_string() ? v.get<std::string>().c_str() : v.dump().c_str());

  if (!o.record) return kOk;
  fs::path dir = asv_results_dir(o.asv_dir, find_asv_config(o.config));
  fs::path path = dir / run.machine / "machine.json";
  FolderLock lock(dir);
  json doc = json::object();
  try {
    doc = load_asv_file_if_any(path, AsvFile::Machine).value_or(json::object());
  } catch (const AsvError& e) {
    throw InputError(std::string(e.what()) + "; left as it is");
  }
  for (const auto& [k, v] : facts.items()) doc[k] = v;
  replace_file(path, asv_file_text(doc));
  std::fprintf(stderr, "recorded %s\n", path.string().c_str());
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

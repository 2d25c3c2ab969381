#include "driver/common/database.hpp"

#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "core/bounded_json.hpp"
#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver {

CommitInfo resolve_commit(const std::string& commit, const fs::path& repo) {
  auto info = git_commit(repo.empty() ? fs::path(".") : repo, commit.empty() ? "HEAD" : commit);
  if (info) return *info;
  if (commit.empty())
    throw InputError("cannot find the commit being measured: " + fs::absolute(repo).string() +
                     " is not in a git repository with a commit; pass --commit HASH");
  throw InputError("--commit " + commit + " is not a commit of the git repository at " + repo.string() +
                   " (asv publish needs the commit in the repository named by asv.conf.json)");
}

namespace {

// asv names a machine by its entry's "machine", which `asv machine` sets to the entry's key.
std::string entry_machine_name(const std::string& key, const json& entry) {
  const auto named = entry.find("machine");
  return named != entry.end() && named->is_string() ? named->get<std::string>() : key;
}

}  // namespace

std::optional<AsvMachine> asv_machine_named(const json& machine_file, const std::string& name) {
  if (!machine_file.is_object()) return std::nullopt;
  for (const auto& [key, entry] : machine_file.items()) {
    if (key == "version" || !entry.is_object()) continue;
    const std::string entry_name = entry_machine_name(key, entry);
    if (entry_name != name) continue;
    AsvMachine m{entry_name, {}};
    for (const auto& [k, v] : entry.items())
      if (k != "machine" && k != "version" && !v.is_null() && !v.is_object() && !v.is_array())
        m.facts[k] = v.is_string() ? v.get<std::string>() : v.dump();
    return m;
  }
  return std::nullopt;
}

std::optional<AsvMachine> choose_asv_machine(const json& machine_file, const std::string& host, std::string& note) {
  if (!machine_file.is_object()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [key, entry] : machine_file.items())
    if (key != "version" && entry.is_object())
      names.push_back(entry_machine_name(key, entry));
  if (const auto own = asv_machine_named(machine_file, host)) return own;
  if (names.size() == 1) return asv_machine_named(machine_file, names.front());
  if (names.size() > 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    note = "~/.asv-machine.json records the machines " + list + ", none named after this host (" + host +
           "): pitot names the machine itself; pass --machine NAME to continue one of them";
  }
  return std::nullopt;
}

fs::path asv_machine_file_path() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    const passwd* pw = getpwuid(getuid());
    home = pw != nullptr ? pw->pw_dir : nullptr;
  }
  return home == nullptr ? fs::path() : fs::path(home) / ".asv-machine.json";
}

namespace {

// asv's machine file, or null when there is none; a file pitot cannot read is said in `note`.
json read_asv_machine_file(std::string& note) {
  const fs::path path = asv_machine_file_path();
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) return nullptr;
  try {
    return parse_json_bounded(read_text_file(path));
  } catch (const std::exception& e) {
    note = "cannot read asv's machine file " + path.string() + " (" + e.what() + "): pitot names the machine itself";
    return nullptr;
  }
}

void say_once(const std::string& note) {
  static std::set<std::string> said;
  if (!note.empty() && said.insert(note).second) std::fprintf(stderr, "pitot: note: %s\n", note.c_str());
}

std::string host_name() {
  struct utsname u {};
  return uname(&u) == 0 ? u.nodename : "";
}

}  // namespace

void fill_machine(AsvRun& run, const std::string& machine_option, const json& device) {
  std::string note;
  const json machine_file = read_asv_machine_file(note);
  const std::optional<AsvMachine> asv = machine_option.empty() ? choose_asv_machine(machine_file, host_name(), note)
                                                               : asv_machine_named(machine_file, machine_option);
  say_once(note);
  if (asv) {
    run.machine_facts = asv->facts;
    try {
      run.machine = checked_name("machine", asv->name);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string(e.what()) + " (the name ~/.asv-machine.json gives; choose another with --machine)");
    }
    return;
  }
  run.machine_facts = host_facts();
  if (device.is_object()) {
    for (const auto& [k, v] : device.items()) {
      if (v.is_null() || v.is_object() || v.is_array()) continue;
      run.machine_facts[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  // The same rule as a program's own --asv-dir: the GPU product the backend reports as "gpu".
  std::string name = machine_option;
  if (name.empty() && device.is_object() && device.contains("gpu") && device["gpu"].is_string())
    name = machine_name_from_gpu(device["gpu"].get<std::string>());
  if (name.empty()) name = machine_name_from_cpu(run.machine_facts["cpu"]);
  try {
    run.machine = checked_name("machine", name);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string(e.what()) + " (choose one with --machine)");
  }
}

}  // namespace pitot::driver

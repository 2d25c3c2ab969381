// See machine.hpp; section numbers refer to docs/asv-format.md.
#include "asv/machine.hpp"

#include <pwd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "asv/database.hpp"
#include "asv/results.hpp"
#include "core/bounded_json.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

const std::vector<std::string> kAsvOwnMachineFacts = {"arch", "cpu", "num_cpu", "os", "ram"};

namespace {

// asv names a machine by its entry's "machine", which `asv machine` sets to the entry's key.
std::string entry_machine_name(const std::string& key, const json& entry) {
  const auto named = entry.find("machine");
  return named != entry.end() && named->is_string() ? named->get<std::string>() : key;
}

// A fact as asv's params hold it: a string, or the JSON text of another scalar.
std::string fact_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::optional<AsvMachine> asv_machine_named(const json& machine_file, const std::string& name) {
  if (!machine_file.is_object()) return std::nullopt;
  for (const auto& [key, entry] : machine_file.items()) {
    if (key == "version" || !entry.is_object()) continue;
    const std::string entry_name = entry_machine_name(key, entry);
    if (entry_name != name) continue;
    AsvMachine m{entry_name, {}};
    for (const auto& [k, v] : entry.items())
      if (k != "machine" && k != "version" && !v.is_null() && !v.is_object() && !v.is_array()) m.facts[k] = fact_text(v);
    return m;
  }
  return std::nullopt;
}

std::optional<AsvMachine> choose_asv_machine(const json& machine_file, const std::string& host, std::string& note) {
  if (!machine_file.is_object()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [key, entry] : machine_file.items())
    if (key != "version" && entry.is_object()) names.push_back(entry_machine_name(key, entry));
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

std::string asv_host_name() {
  struct utsname u {};
  return uname(&u) == 0 ? u.nodename : "";
}

MachineJson machine_json_from(const json& doc) {
  MachineJson m;
  if (!doc.is_object()) return m;
  for (const auto& [k, v] : doc.items()) {
    if (k == "version" || v.is_null() || v.is_object() || v.is_array()) continue;
    if (k == "machine") m.machine = fact_text(v);
    else m.facts[k] = fact_text(v);
  }
  return m;
}

MachineJson load_machine_json(const fs::path& path) {
  return machine_json_from(load_asv_file_if_any(path, AsvFile::Machine).value_or(json::object()));
}

std::string machine_json_text(const MachineJson& m) {
  json doc = json::object();
  for (const auto& [k, v] : m.facts) doc[k] = v;
  doc["machine"] = m.machine;
  doc["version"] = kAsvMachineVersion;
  return asv_file_text(doc);
}

AsvFacts update_machine_json(MachineJson& recorded, const std::string& machine, const AsvFacts& facts,
                             std::vector<std::string>* kept) {
  AsvFacts now = facts;
  for (const std::string& key : kAsvOwnMachineFacts) {
    const auto old = recorded.facts.find(key);
    if (old == recorded.facts.end()) continue;
    const auto fresh = now.find(key);
    if (kept && fresh != now.end() && fresh->second != old->second) kept->push_back(key);
    now[key] = old->second;
  }
  for (const auto& [k, v] : now) recorded.facts[k] = v;
  recorded.machine = machine;
  return now;
}

}  // namespace pitot

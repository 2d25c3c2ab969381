// pitot merge OUT IN...: combines asv results folders (shards of one suite, runs of several hosts)
// into OUT. Within a results file that several inputs hold (same machine, commit, env), each
// point keeps the value of the last input that measured it (non-null); other points are kept.
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/database.hpp"
#include "asv/results.hpp"
#include "driver/common/command.hpp"
#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::run {
namespace {

// One asv database in memory: relative path -> document.
struct Folder {
  std::map<fs::path, json> files;  // benchmarks.json, <m>/machine.json, <m>/<hash>-<env>.json
};

// One asv file, loaded by the asv module (asv/database.hpp).
json load(const fs::path& path, AsvFile kind) {
  try {
    return load_asv_file(path, kind);
  } catch (const AsvError& e) {
    throw InputError(std::string(e.what()) + "; nothing was merged");
  }
}

// Reads a results folder the way asv walks it: benchmarks.json and every machine folder.
Folder read_folder(const fs::path& dir) {
  Folder f;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + " is not a folder");
  if (fs::exists(dir / "benchmarks.json")) f.files["benchmarks.json"] = load(dir / "benchmarks.json", AsvFile::Benchmarks);
  for (const auto& machine : asv_machines(dir)) {
    f.files[fs::path(machine) / "machine.json"] = load(dir / machine / "machine.json", AsvFile::Machine);
    for (const auto& file : asv_results_files(dir / machine)) {
      json doc = load(file.path, AsvFile::Results);
      if (!doc.contains("results") || !doc["results"].is_object() || !doc.contains("result_columns"))
        throw InputError(file.path.string() + " is not an asv results file; nothing was merged");
      f.files[fs::path(machine) / file.path.filename()] = doc;
    }
  }
  return f;
}

json cell(const AsvColumns& cols, const std::string& name, std::size_t k) {
  auto it = cols.find(name);
  if (it == cols.end() || !it->second.is_array() || k >= it->second.size()) return nullptr;
  return it->second[k];
}

// Merges row `in` into row `out` point by point.
AsvColumns merge_row(const AsvColumns& out, const AsvColumns& in) {
  auto get = [](const AsvColumns& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? json(nullptr) : it->second;
  };
  // Different parameters or version: the two rows do not describe the same points; take the newer.
  if (get(out, "params") != get(in, "params") || get(out, "version") != get(in, "version")) return in;
  std::size_t n = 1;
  for (const auto& axis : get(in, "params")) n *= axis.size();
  AsvColumns merged = in;  // the whole-row columns not merged below (profile) are the newer's
  for (const auto& c : kAsvPointColumns) {
    json list = json::array();
    bool any = false;
    for (std::size_t k = 0; k < n; ++k) {
      bool take_in = !cell(in, "result", k).is_null();
      json v = cell(take_in ? in : out, c, k);
      any = any || !v.is_null();
      list.push_back(v);
    }
    merged[c] = any ? list : json(nullptr);
  }
  json sa = get(out, "started_at"), sb = get(in, "started_at");
  merged["started_at"] = sa.is_null() ? sb : sb.is_null() ? sa
                                                          : json(std::min(sa.get<std::int64_t>(), sb.get<std::int64_t>()));
  json da = get(out, "duration"), db = get(in, "duration");
  merged["duration"] = da.is_null() ? db : db.is_null() ? da
                                                        : json(da.get<double>() + db.get<double>());
  return merged;
}

void merge_into(Folder& out, const Folder& in) {
  for (const auto& [rel, doc] : in.files) {
    auto it = out.files.find(rel);
    if (it == out.files.end()) {
      out.files[rel] = doc;
      continue;
    }
    json& o = it->second;
    if (rel == "benchmarks.json" || rel.filename() == "machine.json") {
      for (const auto& [k, v] : doc.items()) o[k] = v;
      continue;
    }
    if (o.value("commit_hash", "") != doc.value("commit_hash", "") || o.value("env_name", "") != doc.value("env_name", ""))
      throw InputError("two results files named " + rel.string() + " hold different commits or environments; nothing was merged");
    const auto out_columns = o["result_columns"].get<std::vector<std::string>>();
    const auto in_columns = doc["result_columns"].get<std::vector<std::string>>();
    std::map<std::string, AsvColumns> rows;
    for (const auto& [name, row] : o["results"].items()) rows[name] = asv_row_columns(row, out_columns);
    for (const auto& [name, row] : doc["results"].items()) {
      AsvColumns r = asv_row_columns(row, in_columns);
      auto it = rows.find(name);
      rows[name] = it == rows.end() ? r : merge_row(it->second, r);
    }
    json results = json::object();
    for (const auto& [name, columns] : rows) results[name] = asv_row(columns);
    o["results"] = results;
    o["result_columns"] = kAsvResultColumns;
    json durations = o.value("durations", json::object());
    // A named copy: iterating items() of a temporary would dangle (the loop keeps only the proxy).
    const json incoming = doc.value("durations", json::object());
    for (const auto& [k, v] : incoming.items()) durations[k] = v;
    o["durations"] = durations;
    for (const auto& [k, v] : doc["params"].items()) o["params"][k] = v;
  }
}

int merge_command(const std::string& out_arg, const std::vector<std::string>& in_args) {
  // A folder holding asv.conf.json stands for its results_dir.
  const auto resolve = [](const std::string& arg) { return asv_results_dir(arg, std::nullopt); };
  fs::path out_dir = resolve(out_arg);
  std::vector<Folder> inputs;
  for (const auto& a : in_args) inputs.push_back(read_folder(resolve(a)));  // all read before anything is written

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  FolderLock lock(out_dir);
  Folder merged = fs::exists(out_dir) ? read_folder(out_dir) : Folder{};
  Folder before = merged;
  for (const auto& in : inputs) merge_into(merged, in);
  std::size_t written = 0;
  for (const auto& [rel, doc] : merged.files) {
    auto it = before.files.find(rel);
    if (it != before.files.end() && it->second == doc) continue;
    bool results_file = rel != "benchmarks.json" && rel.filename() != "machine.json";
    replace_file(out_dir / rel, results_file ? asv_results_file_text(doc) : asv_file_text(doc));
    ++written;
  }
  std::printf("merged %zu folder(s) into %s: %zu file(s) written\n", inputs.size(), out_dir.string().c_str(), written);
  return kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("merge", "Combine asv results folders (shards, hosts) into one");
  auto out = std::make_shared<std::string>();
  auto ins = std::make_shared<std::vector<std::string>>();
  cmd->add_option("OUT", *out, "Results folder to merge into (created when missing)")->required();
  cmd->add_option("IN", *ins, "Results folders to merge from")->required();
  cmd->callback([out, ins] { run_guarded("merge", [&] { return merge_command(*out, *ins); }); });
}

}  // namespace

void add_merge_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

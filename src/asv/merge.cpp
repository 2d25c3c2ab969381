// See merge.hpp; section numbers refer to docs/asv-format.md.
#include "asv/merge.hpp"

#include <algorithm>

#include "asv/database.hpp"
#include "asv/error.hpp"
#include "asv/results.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

AsvFolder read_asv_folder(const fs::path& dir) {
  AsvFolder f;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw AsvError(dir.string() + " is not a folder");
  f.benchmarks = AsvBenchmarks::load_if_any(dir);
  for (const auto& machine : asv_machines(dir)) {
    f.machines[machine] = load_machine_json(dir / machine / "machine.json");
    for (const auto& file : asv_results_files(dir / machine)) {
      json doc = load_asv_file(file.path, AsvFile::Results);
      if (!doc.contains("results") || !doc["results"].is_object() || !doc.contains("result_columns"))
        throw AsvError(file.path.string() + " is not an asv results file");
      f.results[fs::path(machine) / file.path.filename()] = std::move(doc);
    }
  }
  return f;
}

namespace {

json cell(const AsvColumns& cols, const std::string& name, std::size_t k) {
  auto it = cols.find(name);
  if (it == cols.end() || !it->second.is_array() || k >= it->second.size()) return nullptr;
  return it->second[k];
}

json column(const AsvColumns& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? json(nullptr) : it->second;
}

// Merges row `in` into row `out` point by point (§5).
AsvColumns merge_row(const AsvColumns& out, const AsvColumns& in) {
  // Different parameters or version: the two rows do not describe the same points; take the newer.
  if (column(out, "params") != column(in, "params") || column(out, "version") != column(in, "version")) return in;
  std::size_t n = 1;
  for (const auto& axis : column(in, "params")) n *= axis.size();
  AsvColumns merged = in;  // the whole-row columns not merged below (profile) are the newer's
  for (const auto& c : kAsvPointColumns) {
    json list = json::array();
    bool any = false;
    for (std::size_t k = 0; k < n; ++k) {
      const bool take_in = !cell(in, "result", k).is_null();
      json v = cell(take_in ? in : out, c, k);
      any = any || !v.is_null();
      list.push_back(v);
    }
    merged[c] = any ? list : json(nullptr);
  }
  const json sa = column(out, "started_at"), sb = column(in, "started_at");
  merged["started_at"] = sa.is_null() ? sb : sb.is_null() ? sa : json(std::min(sa.get<std::int64_t>(), sb.get<std::int64_t>()));
  const json da = column(out, "duration"), db = column(in, "duration");
  merged["duration"] = da.is_null() ? db : db.is_null() ? da : json(da.get<double>() + db.get<double>());
  return merged;
}

// One results file of `in` merged into the same file of `out`.
void merge_results(json& o, const json& doc, const fs::path& rel) {
  if (o.value("commit_hash", "") != doc.value("commit_hash", "") || o.value("env_name", "") != doc.value("env_name", ""))
    throw AsvError("two results files named " + rel.string() + " hold different commits or environments");
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

}  // namespace

void merge_asv_folder(AsvFolder& out, const AsvFolder& in) {
  if (in.benchmarks) {
    if (out.benchmarks) out.benchmarks->merge(*in.benchmarks);
    else out.benchmarks = in.benchmarks;
  }
  for (const auto& [name, machine] : in.machines) {
    auto it = out.machines.find(name);
    if (it == out.machines.end()) out.machines[name] = machine;
    else update_machine_json(it->second, machine.machine, machine.facts);
  }
  for (const auto& [rel, doc] : in.results) {
    auto it = out.results.find(rel);
    if (it == out.results.end()) out.results[rel] = doc;
    else merge_results(it->second, doc, rel);
  }
}

std::vector<std::pair<fs::path, std::string>> changed_asv_files(const fs::path& dir, const AsvFolder& before,
                                                                const AsvFolder& after) {
  std::vector<std::pair<fs::path, std::string>> files;
  if (after.benchmarks && (!before.benchmarks || !(*before.benchmarks == *after.benchmarks)))
    files.emplace_back(AsvBenchmarks::path_in(dir), after.benchmarks->text());
  for (const auto& [name, machine] : after.machines) {
    const std::string text = machine_json_text(machine);
    const auto old = before.machines.find(name);
    if (old == before.machines.end() || machine_json_text(old->second) != text)
      files.emplace_back(dir / name / "machine.json", text);
  }
  for (const auto& [rel, doc] : after.results) {
    const auto old = before.results.find(rel);
    if (old == before.results.end() || old->second != doc) files.emplace_back(dir / rel, asv_results_file_text(doc));
  }
  return files;
}

}  // namespace pitot

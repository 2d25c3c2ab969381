// See results.hpp; section numbers refer to docs/asv-format.md.
#include "asv/results.hpp"

#include <cmath>
#include <limits>

#include "core/text.hpp"

namespace pitot {

using nlohmann::json;

const std::vector<std::string> kAsvResultColumns = {
    "result", "params", "version", "started_at", "duration",
    "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number",
    "stats_repeat", "samples", "profile"};
const std::vector<std::string> kAsvPointColumns = {"result", "stats_ci_99_a", "stats_ci_99_b",
                                                   "stats_q_25", "stats_q_75", "stats_number",
                                                   "stats_repeat", "samples"};

namespace {

const json& null_json() {
  static const json null_value;
  return null_value;
}

// Element k of a "(N)" column: the column may be null as a whole, or shorter than N.
const json& element(const json& column, std::size_t k) {
  if (column.is_array() && k < column.size()) return column[k];
  return null_json();
}

}  // namespace

std::vector<std::vector<std::string>> asv_param_tuples(const AsvParams& params) {
  std::vector<std::vector<std::string>> tuples = {{}};
  for (const auto& axis : params) {
    std::vector<std::vector<std::string>> next;
    for (const auto& t : tuples)
      for (const auto& v : axis) {
        next.push_back(t);
        next.back().push_back(v);
      }
    tuples = std::move(next);
  }
  return tuples;
}

AsvColumns asv_row_columns(const json& row, const std::vector<std::string>& columns) {
  AsvColumns out;
  if (!row.is_array()) return out;
  for (std::size_t i = 0; i < row.size() && i < columns.size(); ++i) out[columns[i]] = row[i];
  return out;
}

json asv_row(const AsvColumns& columns) {
  json out = json::array();
  for (const auto& column : kAsvResultColumns) {
    auto it = columns.find(column);
    out.push_back(it == columns.end() ? json(nullptr) : it->second);
  }
  while (!out.empty() && out.back().is_null()) out.erase(out.size() - 1);  // as asv does
  return out;
}

std::string asv_results_file_name(const std::string& commit_hash, const std::string& env) {
  return commit_hash.substr(0, 8) + "-" + env + ".json";
}

std::string asv_results_file_text(const json& doc) {
  std::string out = "{\n";
  bool first = true;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += json_text(json(it.key())) + ": ";
    if (it.key() == "results" && it.value().is_object() && !it.value().empty()) {
      out += "{\n";
      bool first_row = true;
      for (auto row = it.value().begin(); row != it.value().end(); ++row) {
        if (!first_row) out += ",\n";
        first_row = false;
        out += "  " + json_text(json(row.key())) + ": " + dump_python_json(row.value());
      }
      out += "\n}";
    } else {
      out += dump_python_json(it.value());
    }
  }
  out += "\n}\n";
  return out;
}

std::string asv_file_text(const json& doc) { return json_text(doc, 2) + "\n"; }

double asv_number(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  throw AsvError("expected a number, found " + json_text(j));
}

std::vector<double> asv_numbers(const json& list) {
  std::vector<double> out;
  if (!list.is_array()) return out;
  out.reserve(list.size());
  for (const auto& x : list) out.push_back(asv_number(x));
  return out;
}

AsvResults asv_results_rows(const json& doc) {
  if (!doc.is_object()) throw AsvError("not a JSON object");
  const json& columns_json = doc.at("result_columns");
  const json& rows = doc.at("results");
  AsvResults out;
  out.commit_hash = doc.value("commit_hash", "");
  out.env_name = doc.contains("env_name") && doc["env_name"].is_string() ? doc["env_name"].get<std::string>() : "";
  if (doc.contains("params") && doc["params"].is_object() && doc["params"].contains("machine") &&
      doc["params"]["machine"].is_string())
    out.machine = doc["params"]["machine"].get<std::string>();
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < columns_json.size(); ++i) column[columns_json.at(i).get<std::string>()] = i;
  if (!column.count("result")) throw AsvError("result_columns has no \"result\"");
  auto cell = [&](const json& row, const char* name) -> const json& {
    auto it = column.find(name);
    // Trailing null columns may be dropped from a row: asv drops them itself.
    if (it == column.end() || !row.is_array() || it->second >= row.size()) return null_json();
    return row[it->second];
  };
  const json* process_medians = nullptr;
  if (doc.contains(kAsvProcessMediansKey) && doc[kAsvProcessMediansKey].is_object())
    process_medians = &doc[kAsvProcessMediansKey];
  for (const auto& [name, row] : rows.items()) {
    if (!row.is_array()) throw AsvError("row " + name + " is not a list");
    AsvRow r;
    r.name = name;
    const json& params = cell(row, "params");
    if (params.is_array())
      for (const auto& axis : params) r.params.push_back(axis.get<std::vector<std::string>>());
    const json& version = cell(row, "version");
    r.version = version.is_string() ? version.get<std::string>() : "";
    const json& result = cell(row, "result");
    const json& samples = cell(row, "samples");
    const json& ci_a = cell(row, "stats_ci_99_a");
    const json& ci_b = cell(row, "stats_ci_99_b");
    const auto tuples = asv_param_tuples(r.params);
    for (std::size_t k = 0; k < tuples.size(); ++k) {
      AsvPoint p;
      p.params = tuples[k];
      const json& v = element(result, k);
      if (v.is_number_float() && std::isnan(v.get<double>())) {
        p.state = AsvPointState::Skipped;
      } else if (v.is_null()) {
        p.state = AsvPointState::Failed;
      } else {
        p.result = asv_number(v);
        p.samples = asv_numbers(element(samples, k));
        const std::string key = asv_point_name(name, p.params);
        if (process_medians && process_medians->contains(key)) p.process_medians = asv_numbers((*process_medians)[key]);
        const json &lo = element(ci_a, k), &hi = element(ci_b, k);
        if (!lo.is_null() && !hi.is_null()) {
          p.has_interval = true;
          p.ci_lo = asv_number(lo);
          p.ci_hi = asv_number(hi);
        }
      }
      r.points.push_back(std::move(p));
    }
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace pitot

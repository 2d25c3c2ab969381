// See config.hpp.
#include "asv/config.hpp"

#include "core/bounded_json.hpp"
#include "output/atomic_file.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot {

std::optional<AsvConfig> find_asv_config(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  if (path.empty()) {
    // ./asv.conf.json, else the one `pitot init --dir asv-results` writes: results must land in
    // its results_dir (asv-results/results), where asv looks, not in asv-results itself.
    for (const char* candidate : {"asv.conf.json", "asv-results/asv.conf.json"})
      if (fs::exists(candidate, ec)) {
        p = candidate;
        break;
      }
    if (p.empty()) return std::nullopt;
  } else if (fs::is_directory(p, ec) && fs::exists(p / "asv.conf.json", ec)) {
    p /= "asv.conf.json";  // a folder holding asv.conf.json stands for it
  } else if (!fs::exists(p, ec)) {
    throw AsvError("no asv config at " + path + " (pitot init --dir FOLDER writes FOLDER/asv.conf.json)");
  }
  return read_asv_config(p);
}

json read_asv_config_json(const fs::path& file) {
  std::string text;
  try {
    if (!read_file_bounded(file, text))
      throw AsvError("cannot read " + file.string() + ": no such file, or not readable");
  } catch (const std::length_error& e) {
    throw AsvError(e.what());
  }
  json j;
  try {
    j = parse_json_bounded(text, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    throw AsvError(file.string() + " cannot be read as JSON (" + e.what() +
                   "); pitot reads comments but not the rest of JSON5 (trailing commas, single quotes)");
  }
  if (!j.is_object()) throw AsvError(file.string() + " is not a JSON object: is it an asv.conf.json?");
  return j;
}

AsvConfig read_asv_config(const fs::path& file) {
  const json j = read_asv_config_json(file);
  for (const char* key : {"results_dir", "repo"})
    if (j.contains(key) && !j[key].is_string())
      throw AsvError(file.string() + ": \"" + key + "\" is " + j[key].type_name() + ", not a string (a folder)");
  AsvConfig c;
  c.path = file;
  const fs::path base = file.parent_path();
  c.results_dir = base / j.value("results_dir", "results");
  c.repo = base / j.value("repo", ".");
  return c;
}

void write_asv_config(const fs::path& file, const NewAsvConfig& config) {
  const nlohmann::ordered_json j = {{"version", 1},
                                    {"project", config.project},
                                    {"repo", config.repo},
                                    {"dvcs", "git"},
                                    {"branches", config.branches},
                                    {"environment_type", "existing"},
                                    {"results_dir", config.results_dir},
                                    {"html_dir", config.html_dir},
                                    {"hash_length", 8}};
  try {
    replace_file(file, j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  } catch (const FileError& e) {
    throw AsvError(e.what());
  }
}

fs::path asv_results_dir(const std::string& dir, const std::optional<AsvConfig>& config) {
  std::error_code ec;
  // A folder holding asv.conf.json (what `pitot init --dir` made) stands for its results_dir.
  if (!dir.empty() && fs::exists(fs::path(dir) / "asv.conf.json", ec))
    return read_asv_config(fs::path(dir) / "asv.conf.json").results_dir;
  if (!dir.empty()) return dir;
  if (config) return config->results_dir;
  return "asv-results";
}

}  // namespace pitot

// See database.hpp; section numbers refer to docs/asv-format.md.
#include "asv/database.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "asv/json.hpp"
#include "asv/results.hpp"
#include "core/bounded_json.hpp"
#include "core/text.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

int asv_file_version(AsvFile kind) {
  switch (kind) {
    case AsvFile::Benchmarks: return kAsvBenchmarksVersion;
    case AsvFile::Machine: return kAsvMachineVersion;
    case AsvFile::Results: return kAsvResultsVersion;
  }
  return 0;
}

json load_asv_file(const fs::path& path, AsvFile kind) {
  std::string text;
  try {
    if (!read_file_bounded(path, text)) throw AsvError("cannot read " + path.string() + ": " + std::strerror(errno));
  } catch (const std::length_error& e) {
    throw AsvError(e.what());
  }
  json doc;
  try {
    doc = kind == AsvFile::Results ? parse_python_json(text) : parse_json_bounded(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw AsvError(path.string() + " is not valid JSON (" + e.what() + "); fix or remove it");
  }
  if (!doc.is_object()) throw AsvError(path.string() + " is not a JSON object; fix or remove it");
  const int version = asv_file_version(kind);
  const auto v = doc.find("version");
  if (v == doc.end() || !v->is_number_integer() || v->get<int>() != version) {
    // asv refuses the file too ("old file format, run `asv update`"); writing over it would lose it.
    const bool newer = v != doc.end() && v->is_number() && v->get<double>() > version;
    throw AsvError(path.string() + " has " + (v == doc.end() ? "no version" : "version " + json_text(*v)) +
                   ", but pitot reads and writes version " + std::to_string(version) + " (asv 0.6); " +
                   (newer ? "it was written by a newer asv: move it away"
                          : "convert it with `asv update` or move it away"));
  }
  return doc;
}

std::optional<json> load_asv_file_if_any(const fs::path& path, AsvFile kind) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  return load_asv_file(path, kind);
}

std::vector<std::string> asv_machines(const fs::path& results_dir) {
  std::vector<std::string> machines;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(results_dir, ec))
    if (entry.is_directory() && fs::is_regular_file(entry.path() / "machine.json"))
      machines.push_back(entry.path().filename().string());
  std::sort(machines.begin(), machines.end());
  return machines;
}

std::vector<AsvResultsFile> asv_results_files(const fs::path& machine_dir) {
  std::vector<AsvResultsFile> files;
  for (const auto& entry : fs::directory_iterator(machine_dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || entry.path().extension() != ".json" || name == "machine.json") continue;
    const std::string stem = entry.path().stem().string();
    // compare/show match a commit on the part before the first '-'.
    const auto dash = stem.find('-');
    if (dash == std::string::npos) continue;
    std::string hash8 = stem.substr(0, dash);
    for (auto& c : hash8) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    files.push_back({entry.path(), hash8, stem.substr(dash + 1)});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

}  // namespace pitot

// See benchmarks.hpp.
#include "asv/benchmarks.hpp"

#include "asv/database.hpp"
#include "asv/results.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

AsvBenchmarks::AsvBenchmarks(json doc) {
  if (doc.is_object()) doc_ = std::move(doc);
}

fs::path AsvBenchmarks::path_in(const fs::path& results_dir) { return results_dir / "benchmarks.json"; }

std::optional<AsvBenchmarks> AsvBenchmarks::load_if_any(const fs::path& results_dir) {
  std::optional<json> doc = load_asv_file_if_any(path_in(results_dir), AsvFile::Benchmarks);
  if (!doc) return std::nullopt;
  return AsvBenchmarks(std::move(*doc));
}

std::optional<AsvBenchmark> AsvBenchmarks::find(const std::string& name) const {
  const auto it = doc_.find(name);
  if (name == "version" || it == doc_.end() || !it->is_object()) return std::nullopt;
  auto text = [&](const char* key) {
    const auto v = it->find(key);
    return v != it->end() && v->is_string() ? v->get<std::string>() : std::string();
  };
  AsvBenchmark b{text("type"), text("unit"), {}};
  if (const auto names = it->find("param_names"); names != it->end() && names->is_array())
    for (const auto& n : *names)
      if (n.is_string()) b.param_names.push_back(n.get<std::string>());
  return b;
}

void AsvBenchmarks::set(const std::string& name, json entry) { doc_[name] = std::move(entry); }

void AsvBenchmarks::merge(const AsvBenchmarks& other) {
  for (const auto& [k, v] : other.doc_.items()) doc_[k] = v;
}

std::string AsvBenchmarks::text() const {
  json doc = doc_;
  doc["version"] = kAsvBenchmarksVersion;
  return asv_file_text(doc);
}

}  // namespace pitot

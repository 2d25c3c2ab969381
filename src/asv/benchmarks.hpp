// benchmarks.json (docs/asv-format.md §4), as asv's benchmarks.py holds it: what each row of the
// results files is, by row name. Readers ask it for a row's type, unit and parameter names;
// the writer sets whole entries. Entries keep every key they were read with, so a rewrite
// changes only the entries set.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pitot {

// What a reader needs of one entry ("" or empty where the entry does not say).
struct AsvBenchmark {
  std::string type, unit;
  std::vector<std::string> param_names;
};

class AsvBenchmarks {
 public:
  AsvBenchmarks() = default;
  // From the parsed file (load_asv_file's checks already made); anything but an object is empty.
  explicit AsvBenchmarks(nlohmann::json doc);
  // <results_dir>/benchmarks.json, nullopt when absent. Throws AsvError as load_asv_file does.
  static std::optional<AsvBenchmarks> load_if_any(const std::filesystem::path& results_dir);
  static std::filesystem::path path_in(const std::filesystem::path& results_dir);

  // The entry of row `name`, nullopt when there is none (or it is not an object).
  std::optional<AsvBenchmark> find(const std::string& name) const;
  // Replaces the entry of row `name`.
  void set(const std::string& name, nlohmann::json entry);
  // Every entry of `other` over this one's (pitot merge: the later input's entry wins).
  void merge(const AsvBenchmarks& other);
  // The file's text: strict JSON, indented, with asv's version.
  std::string text() const;
  bool operator==(const AsvBenchmarks& other) const { return doc_ == other.doc_; }

 private:
  nlohmann::json doc_ = nlohmann::json::object();
};

}  // namespace pitot

// See database.hpp; section numbers refer to docs/asv-format.md.
#include "asv/database.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "asv/json.hpp"
#include "asv/results.hpp"
#include "core/bounded_json.hpp"
#include "core/rethrow.hpp"
#include "core/text.hpp"
#include "host/machine.hpp"

namespace pitot {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& parts) { return fmt::format("{}", fmt::join(parts, ", ")); }

// The full hash of a revision in `repo` (empty: the current directory's), or "" when it is none.
std::string git_resolve(const std::string& rev, const fs::path& repo) {
  const auto commit = git_commit(repo.empty() ? fs::path(".") : repo, rev);
  return commit ? commit->hash : "";
}

// The commit a results file names. A file that does not load is reported as corrupt, with
// where: "unknown commit" would send the user looking for the wrong problem.
std::string commit_of_file(const fs::path& file) {
  json j;
  try {
    j = load_asv_file(file, AsvFile::Results);
  } catch (const AsvError& e) {
    throw AsvError(fmt::format("results file {} is corrupt: {}", file.string(), e.what()));
  }
  if (!j.contains("commit_hash") || !j["commit_hash"].is_string())
    throw AsvError(fmt::format("results file {} is corrupt: it names no commit_hash", file.string()));
  return ascii_lower(j["commit_hash"].get<std::string>());
}

// Files of one machine whose commit starts with `prefix` (lower-case hex).
std::vector<AsvResultsFile> matching_files(const std::vector<AsvResultsFile>& files, const std::string& prefix) {
  std::vector<AsvResultsFile> out;
  for (const auto& f : files) {
    if (prefix.size() <= 8) {
      if (f.hash8.starts_with(prefix)) out.push_back(f);
    } else if (f.hash8 == prefix.substr(0, 8) && commit_of_file(f.path).starts_with(prefix)) {
      out.push_back(f);
    }
  }
  return out;
}

}  // namespace

int asv_file_version(AsvFile kind) {
  switch (kind) {
    case AsvFile::Benchmarks: return kAsvBenchmarksVersion;
    case AsvFile::Machine: return kAsvMachineVersion;
    case AsvFile::Results: return kAsvResultsVersion;
  }
  return 0;
}

json load_asv_file(const fs::path& path, AsvFile kind) {
  return parse_asv_file(rethrow_as<ReadError, AsvError>([&] { return read_text_file(path); }), path, kind);
}

json parse_asv_file(const std::string& text, const fs::path& path, AsvFile kind) {
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

std::optional<AsvResultsFile> asv_results_file(const fs::path& path) {
  if (path.extension() != ".json" || path.filename() == "machine.json") return std::nullopt;
  const std::string stem = path.stem().string();
  // compare/show match a commit on the part before the first '-'.
  const auto dash = stem.find('-');
  if (dash == std::string::npos) return std::nullopt;
  return AsvResultsFile{path, ascii_lower(stem.substr(0, dash)), stem.substr(dash + 1)};
}

std::vector<AsvResultsFile> asv_results_files(const fs::path& machine_dir) {
  std::vector<AsvResultsFile> files;
  for (const auto& entry : fs::directory_iterator(machine_dir))
    if (entry.is_regular_file())
      if (auto file = asv_results_file(entry.path())) files.push_back(std::move(*file));
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

std::vector<AsvResultsFile> asv_commit_files(const AsvQuery& query, const std::string& commit) {
  const fs::path& dir = query.results_dir;
  if (!fs::is_directory(dir))
    throw AsvError(fmt::format("results folder {} not found; name it with --results-dir (the asv results_dir)",
                               dir.string()));
  const std::vector<std::string> machines = asv_machines(dir);
  std::string machine = query.machine;
  if (machine.empty()) {
    if (machines.empty()) throw AsvError(fmt::format("no machine folders (with machine.json) in {}", dir.string()));
    if (machines.size() > 1)
      throw AsvError(fmt::format("{} holds several machines ({}); pick one with --machine", dir.string(), join(machines)));
    machine = machines.front();
  } else if (std::find(machines.begin(), machines.end(), machine) == machines.end()) {
    throw AsvError(fmt::format("no machine '{}' in {} (machines there: {})", machine, dir.string(),
                               machines.empty() ? "none" : join(machines)));
  }
  auto files = asv_results_files(dir / machine);
  if (!query.env.empty()) {
    std::vector<AsvResultsFile> kept;
    for (const auto& f : files)
      if (f.env == query.env) kept.push_back(f);
    files = std::move(kept);
  }
  const std::string wanted = ascii_lower(commit);
  std::vector<AsvResultsFile> found;
  if (wanted.size() >= 4 && is_lower_hex(wanted)) found = matching_files(files, wanted);
  if (found.empty()) {
    // Not a hash we hold: perhaps a branch, tag or HEAD~1 of the repository we are in.
    if (std::string hash = git_resolve(commit, query.repo); !hash.empty()) found = matching_files(files, hash);
  }
  if (found.empty()) {
    std::set<std::string> held;
    for (const auto& f : files) held.insert(f.hash8);
    std::vector<std::string> list(held.begin(), held.end());
    if (list.size() > 12) {
      list.resize(12);
      list.push_back("...");
    }
    throw AsvError(fmt::format("unknown commit '{}': no results for it in {}{} (commits there: {})", commit,
                               (dir / machine).string(), query.env.empty() ? "" : " with env " + query.env,
                               list.empty() ? "none" : join(list)));
  }
  std::set<std::string> hashes;
  for (const auto& f : found) hashes.insert(f.hash8);
  if (hashes.size() > 1)
    throw AsvError(fmt::format("commit '{}' is ambiguous: {}; give more digits", commit, join({hashes.begin(), hashes.end()})));
  return found;
}

std::vector<AsvDatedResults> asv_history(const fs::path& machine_dir, const std::string& env, const fs::path& exclude,
                                         std::size_t limit) {
  std::vector<AsvDatedResults> kept;  // oldest first, at most `limit`
  std::error_code ec;
  for (const auto& f : asv_results_files(machine_dir)) {
    if (f.env != env || fs::equivalent(f.path, exclude, ec)) continue;
    AsvDatedResults r{f.path, 0, nullptr};
    try {
      r.doc = load_asv_file(f.path, AsvFile::Results);
    } catch (const AsvError&) {
      continue;
    }
    if (!r.doc.contains("date") || !r.doc["date"].is_number() || r.doc["date"].get<double>() < 0) continue;
    r.date = r.doc["date"].get<double>();
    const auto at = std::upper_bound(kept.begin(), kept.end(), r.date,
                                     [](double d, const AsvDatedResults& k) { return d < k.date; });
    kept.insert(at, std::move(r));
    if (kept.size() > limit) kept.erase(kept.begin());
  }
  return kept;
}

}  // namespace pitot

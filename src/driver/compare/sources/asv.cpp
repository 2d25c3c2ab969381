#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/rethrow.hpp"
#include "core/text.hpp"
#include "driver/compare/sources.hpp"
#include "driver/compare/sources/rows.hpp"

namespace pitot::driver::compare {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rows;

namespace {

// A results file, loaded by the asv module (asv/database.hpp); its refusal is bad input.
json load_results_file(const fs::path& file) {
  return rethrow_as<AsvError, InputError>([&] { return load_asv_file(file, AsvFile::Results); });
}

// The ranks a results file's points spanned: its requirements' "ranks" (pitot run writes it for a
// multi-rank program in N > 1 ranks), else "1". A file that does not load says "1" here and fails
// later, where it is read.
std::string ranks_of(const AsvResultsFile& file) {
  try {
    const json doc = load_results_file(file.path);
    if (const auto r = doc.find("requirements"); r != doc.end() && r->is_object())
      if (const auto n = r->find("ranks"); n != r->end() && n->is_string()) return n->get<std::string>();
  } catch (const InputError&) {
  }
  return "1";
}

}  // namespace

json parse_python_json(const std::string& text, const std::string& what) {
  try {
    return pitot::parse_python_json(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw InputError(fmt::format("{} is not valid JSON: {}", what, e.what()));
  }
}

ResultSet asv_results_from_json(const json& results, const AsvBenchmarks* benchmarks, const std::string& label) {
  ResultSet set;
  set.label = label;
  try {
    const AsvResults file = asv_results_rows(results);  // the rows, read by the asv module
    set.commit = ascii_lower(file.commit_hash);
    auto describe = [&](const std::string& name) {
      return benchmarks ? benchmarks->find(name) : std::optional<AsvBenchmark>();
    };
    auto unit_of = [&](const std::string& name) {
      if (const auto b = describe(name); b && !b->unit.empty()) return b->unit;
      // Without benchmarks.json: pitot's track names say their unit.
      if (auto known = known_track_unit(name)) return *known;
      return std::string("seconds");
    };
    auto type_of = [&](const std::string& name) {
      const auto b = describe(name);
      return b ? b->type : std::string();
    };
    std::set<std::string> row_names;
    for (const auto& row : file.rows) {
      row_names.insert(row.name);
      std::vector<std::string> param_names;
      if (const auto b = describe(row.name)) param_names = b->param_names;
      if (param_names.size() != row.params.size()) param_names.clear();
      const std::string unit = unit_of(row.name);
      for (const auto& point : row.points) {
        PointData p;
        set_key(p, row.name, param_names, point.params);
        if (param_names.empty()) p.display = p.key;
        p.unit = unit;
        p.version = row.version;
        if (point.state == AsvPointState::Skipped) {
          p.state = PointState::Skipped;
          p.reason = "skipped (NaN result)";
        } else if (point.state == AsvPointState::Failed) {
          p.state = PointState::Failed;
          p.reason = "failed (null result)";
        } else {
          p.value = point.result;
          p.samples = point.samples;
          p.process_medians = point.process_medians;
          p.has_interval = point.has_interval;
          p.ci_lo = point.ci_lo;
          p.ci_hi = point.ci_hi;
        }
        set.points.push_back(std::move(p));
      }
    }
    // A track beside its time row (<row>.<track>, no samples) is compared through the time row:
    // a throughput is the same median turned around, and the kernel clock's busy time and energy
    // per call are single values that no verdict can rest on. A row in seconds is such a track
    // only when benchmarks.json calls it one, or (without it) by pitot's name for it: a time row
    // is never folded into another.
    for (auto& p : set.points) {
      const std::string& row = p.benchmark;
      const std::optional<AsvTrackKey> split = split_track_key(row);
      if (!split || !p.samples.empty()) continue;
      if (!row_names.contains(split->row) || unit_of(split->row) != "seconds") continue;
      const std::string type = type_of(row);
      if (p.unit != "seconds" || type == "track" || (type.empty() && known_track_unit(row))) p.derived = true;
    }
    // The card's state tracks (<row>.card_sm_clock_mhz, ...) go into their time point's CardState
    // and are no rows of their own, wherever they stand.
    std::map<std::string, PointData*> by_key;
    for (auto& p : set.points) by_key[p.key] = &p;
    for (auto& p : set.points) {
      const std::optional<AsvTrackKey> split = split_track_key(p.benchmark);
      if (!split || !is_state_track(split->track)) continue;
      std::vector<std::string> reprs;
      for (const auto& [name, repr] : p.params) reprs.push_back(repr);
      auto parent = by_key.find(asv_point_name(split->row, reprs));
      if (parent != by_key.end() && p.state == PointState::Ok) set_state(parent->second->card, split->track, p.value);
      p.key.clear();  // marks it for removal below
    }
    std::erase_if(set.points, [](const PointData& p) { return p.key.empty(); });
  } catch (const AsvError& e) {
    throw InputError(fmt::format("{}: {}", label, e.what()));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not an asv results file of version 2 ({})", label, e.what()));
  }
  check_unique_keys(set);
  return set;
}

namespace {

// A results file's rows, labelled "0d9a5811 (machine, env)" (or by its path without a commit).
ResultSet asv_results_of(const json& j, const fs::path& file, const AsvBenchmarks* benchmarks) {
  const std::string hash = j.value("commit_hash", "");
  const std::string machine = j.contains("params") && j["params"].is_object() ? j["params"].value("machine", "") : "";
  std::string label = file.string();
  if (!hash.empty()) label = fmt::format("{} ({}, {})", hash.substr(0, 8), machine, j.value("env_name", ""));
  return asv_results_from_json(j, benchmarks, label);
}

}  // namespace

ResultSet read_asv_results(const fs::path& file, const AsvBenchmarks* benchmarks) {
  return asv_results_of(load_results_file(file), file, benchmarks);
}

ResultSet asv_results_from_text(const std::string& text, const fs::path& file, const AsvBenchmarks* benchmarks) {
  return asv_results_of(rethrow_as<AsvError, InputError>([&] { return parse_asv_file(text, file, AsvFile::Results); }),
                        file, benchmarks);
}

std::optional<AsvBenchmarks> read_benchmarks_json(const fs::path& results_dir) {
  return rethrow_as<AsvError, InputError>([&] { return AsvBenchmarks::load_if_any(results_dir); });
}

std::vector<AsvResultsFile> commit_results_files(const DatabaseQuery& query, const std::string& commit) {
  return rethrow_as<AsvError, InputError>([&] { return asv_commit_files(query, commit); });
}

fs::path find_results_file(const DatabaseQuery& query, const std::string& commit) {
  const std::vector<AsvResultsFile> found = commit_results_files(query, commit);
  if (found.size() > 1) {
    std::vector<std::string> envs;
    for (const auto& f : found) envs.push_back(f.env);
    throw InputError(fmt::format("commit '{}' has results for several environments ({}); pick one with --env",
                                 commit, join(envs, ", ")));
  }
  return found.front().path;
}

std::vector<EnvPair> pair_environments(const std::vector<AsvResultsFile>& base,
                                       const std::vector<AsvResultsFile>& head) {
  std::vector<EnvPair> pairs;
  std::vector<const AsvResultsFile*> base_left, head_left;
  for (const auto& b : base) {
    auto same = std::find_if(head.begin(), head.end(), [&](const AsvResultsFile& h) { return h.env == b.env; });
    if (same != head.end()) pairs.push_back({b, *same});
    else base_left.push_back(&b);
  }
  for (const auto& h : head)
    if (std::none_of(base.begin(), base.end(), [&](const AsvResultsFile& b) { return b.env == h.env; }))
      head_left.push_back(&h);
  // One env on each side left over: the same build under a new name (a compiler or CUDA update),
  // unless their points spanned different numbers of ranks (GPUs): a point on 2 GPUs is not the
  // same point on 4. Such envs stay unpaired (named as not compared), or with nothing else to
  // compare, it is bad input.
  if (base_left.size() == 1 && head_left.size() == 1) {
    const AsvResultsFile &b = *base_left.front(), &h = *head_left.front();
    const std::string base_ranks = ranks_of(b), head_ranks = ranks_of(h);
    if (base_ranks == head_ranks) pairs.push_back({b, h});
    else if (pairs.empty())
      throw InputError(fmt::format(
          "base's environment {} ran in {} rank{} and head's {} in {}: a multi-rank point on one number of GPUs is "
          "not the same point on another; compare runs of the same --ranks (docs/ranks.md)",
          b.env, base_ranks, base_ranks == "1" ? "" : "s", h.env, head_ranks));
  } else if (!base_left.empty() && !head_left.empty()) {
    std::vector<std::string> b, h;
    for (const auto* f : base_left) b.push_back(f->env);
    for (const auto* f : head_left) h.push_back(f->env);
    throw InputError(fmt::format(
        "cannot tell which environments of base and head to compare: base has {} and head has {} with no "
        "counterpart of the same name; pick one with --env, or compare two results files",
        join(b, ", "), join(h, ", ")));
  }
  if (pairs.empty()) throw InputError("base and head have no environment in common: nothing to compare");
  return pairs;
}

void read_history(ResultSet& set, const fs::path& head_file, const AsvBenchmarks* benchmarks, int limit) {
  const std::optional<AsvResultsFile> head = asv_results_file(head_file);
  const std::string env = head ? head->env : std::string();
  for (const auto& past_file : asv_history(head_file.parent_path(), env, head_file, static_cast<std::size_t>(std::max(limit, 0)))) {
    try {
      ResultSet past = asv_results_of(past_file.doc, past_file.path, benchmarks);
      for (const auto& p : past.points)
        if (p.state == PointState::Ok && std::isfinite(p.value) && p.value > 0) set.history[p.key].push_back(p.value);
      ++set.history_files;
    } catch (const InputError&) {
      // A broken old file only loses its share of the history.
    }
  }
}

}  // namespace pitot::driver::compare

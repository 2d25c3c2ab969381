#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "driver/common/files.hpp"
#include "driver/compare/sources.hpp"
#include "driver/compare/sources/rows.hpp"

namespace pitot::driver::compare {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace rows;

namespace {

// A side that holds no point (an empty file, `[]`, an object without points) is refused: a CI
// gate must not pass because the head run produced nothing.
ResultSet with_points(ResultSet set, const std::string& arg) {
  if (set.points.empty())
    throw InputError(fmt::format(
        "{} holds no results (no benchmark point in it): nothing to compare; was the run "
        "that should have written it interrupted or filtered to nothing?",
        arg));
  return set;
}

// One side as read, with what its history needs: the database's results file it came from (empty
// for a file given by path) and the benchmarks.json read for it, so neither is looked up twice.
struct LoadedSide {
  ResultSet set;
  fs::path database_file;
  std::optional<AsvBenchmarks> benchmarks;
};

LoadedSide load_side_any(const std::string& arg, const DatabaseQuery& query);

}  // namespace

std::optional<std::pair<ResultSet, ResultSet>> load_commits(const std::string& base, const std::string& head,
                                                            const DatabaseQuery& query, int history) {
  auto is_file_arg = [](const std::string& arg) {
    const fs::path path(arg);
    return fs::exists(path) || path.extension() == ".json" || path.extension() == ".jsonl";
  };
  if (is_file_arg(base) || is_file_arg(head)) return std::nullopt;
  std::vector<AsvResultsFile> base_files, head_files;
  try {
    base_files = commit_results_files(query, base);
  } catch (const InputError& e) {
    throw InputError(fmt::format("base: {}", e.what()));
  }
  try {
    head_files = commit_results_files(query, head);
  } catch (const InputError& e) {
    throw InputError(fmt::format("head: {}", e.what()));
  }
  const std::vector<EnvPair> pairs = pair_environments(base_files, head_files);
  const auto benchmarks = read_benchmarks_json(query.results_dir);
  const AsvBenchmarks* bench = benchmarks ? &*benchmarks : nullptr;
  ResultSet base_set, head_set;
  std::vector<std::string> base_envs, head_envs;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ResultSet b = read_asv_results(pairs[i].base.path, bench);
    ResultSet h = read_asv_results(pairs[i].head.path, bench);
    if (history > 0) read_history(h, pairs[i].head.path, bench, history);
    // Points of different envs never match each other: the pair's number goes into the key.
    const std::string prefix = pairs.size() == 1 ? "" : fmt::format("{}|", i);
    for (auto& p : b.points) p.key = prefix + p.key;
    for (auto& p : h.points) p.key = prefix + p.key;
    for (auto& [key, runs] : h.history) head_set.history[prefix + key] = std::move(runs);
    head_set.history_files += h.history_files;
    base_set.points.insert(base_set.points.end(), b.points.begin(), b.points.end());
    head_set.points.insert(head_set.points.end(), h.points.begin(), h.points.end());
    base_set.commit = b.commit;
    head_set.commit = h.commit;
    base_set.label = b.label;
    head_set.label = h.label;
    base_envs.push_back(pairs[i].base.env);
    head_envs.push_back(pairs[i].head.env);
    head_set.environments.push_back(pairs[i].base.env == pairs[i].head.env
                                        ? pairs[i].head.env
                                        : pairs[i].base.env + " -> " + pairs[i].head.env);
  }
  // A CUDA run writes a benchmark's points timed by the kernel clock to `<env>-kclock` and the
  // others to `<env>`, and each env's row holds every point of the benchmark: those timed in the
  // other env are NaN there (not run). A point with no result on either side of one env pair, but
  // a result in another pair, was measured there: it is no point of this pair at all, not a
  // point "skipped in both". Where one side measured it in another env (its clock changed), the
  // reason of its NaN says where it went.
  if (pairs.size() > 1) {
    auto bare = [](const std::string& key) { return key.substr(key.find('|') + 1); };
    auto pair_of = [](const std::string& key) { return std::stoul(key.substr(0, key.find('|'))); };
    // bare key -> the pairs where each side holds a result (ok or failed)
    std::map<std::string, std::set<std::size_t>> base_has, head_has;
    for (const auto& p : base_set.points)
      if (p.state != PointState::Skipped) base_has[bare(p.key)].insert(pair_of(p.key));
    for (const auto& p : head_set.points)
      if (p.state != PointState::Skipped) head_has[bare(p.key)].insert(pair_of(p.key));
    std::map<std::string, PointState> head_state;
    for (const auto& p : head_set.points) head_state[p.key] = p.state;
    std::set<std::string> elsewhere;  // prefixed keys skipped in both sides of their pair, measured in another
    for (const auto& p : base_set.points) {
      if (p.state != PointState::Skipped) continue;
      auto h = head_state.find(p.key);
      if (h == head_state.end() || h->second != PointState::Skipped) continue;
      const std::string key = bare(p.key);
      if (base_has.count(key) || head_has.count(key)) elsewhere.insert(p.key);
    }
    for (ResultSet* set : {&base_set, &head_set})
      std::erase_if(set->points, [&](const PointData& p) { return elsewhere.count(p.key) > 0; });
    auto note_moved = [&](ResultSet& set, const std::map<std::string, std::set<std::size_t>>& has, bool is_base) {
      for (auto& p : set.points) {
        if (p.state != PointState::Skipped) continue;
        auto where = has.find(bare(p.key));
        if (where == has.end()) continue;
        std::vector<std::string> envs;
        for (std::size_t i : where->second)
          if (i != pair_of(p.key)) envs.push_back(is_base ? pairs[i].base.env : pairs[i].head.env);
        if (!envs.empty()) p.reason = "measured in env " + join(envs, ", ") + " instead";
      }
    };
    note_moved(base_set, base_has, true);
    note_moved(head_set, head_has, false);
  }
  // A name shown in two envs (one program built twice) says which env it is.
  for (ResultSet* set : {&base_set, &head_set}) {
    std::map<std::string, int> shown;
    for (const auto& p : set->points) ++shown[p.display];
    for (auto& p : set->points)
      if (shown[p.display] > 1) {
        const std::size_t i = pairs.size() == 1 ? 0 : std::stoul(p.key.substr(0, p.key.find('|')));
        p.display += " [" + (set == &base_set ? pairs[i].base.env : pairs[i].head.env) + "]";
      }
  }
  // Envs on one side only hold no comparable point: named, so nobody wonders where they went.
  for (const auto* side : {&base_files, &head_files})
    for (const auto& f : *side)
      if (std::none_of(pairs.begin(), pairs.end(), [&](const EnvPair& p) { return p.base.env == f.env || p.head.env == f.env; }))
        head_set.environments.push_back(f.env + (side == &base_files ? " (base only, not compared)" : " (head only, not compared)"));
  const std::string machine = pairs.front().head.path.parent_path().filename().string();
  if (pairs.size() > 1) {
    base_set.label = fmt::format("{} ({}, {})", pairs.front().base.hash8, machine, join(base_envs, ", "));
    head_set.label = fmt::format("{} ({}, {})", pairs.front().head.hash8, machine, join(head_envs, ", "));
  }
  return std::make_pair(with_points(std::move(base_set), base), with_points(std::move(head_set), head));
}

ResultSet load_side(const std::string& arg, const DatabaseQuery& query) {
  return with_points(load_side_any(arg, query).set, arg);
}

std::pair<ResultSet, ResultSet> load_sides(const std::string& base, const std::string& head,
                                           const DatabaseQuery& query, int history) {
  if (auto commits = load_commits(base, head, query, history)) return std::move(*commits);
  std::pair<ResultSet, ResultSet> sides;
  try {
    sides.first = load_side(base, query);
  } catch (const InputError& e) {
    throw InputError(fmt::format("base: {}", e.what()));
  }
  try {
    LoadedSide loaded = load_side_any(head, query);
    sides.second = with_points(std::move(loaded.set), head);
    // A head commit's recent runs in the database give each point its noise floor.
    if (!loaded.database_file.empty() && history > 0)
      read_history(sides.second, loaded.database_file, loaded.benchmarks ? &*loaded.benchmarks : nullptr, history);
  } catch (const InputError& e) {
    throw InputError(fmt::format("head: {}", e.what()));
  }
  return sides;
}

namespace {

LoadedSide load_side_any(const std::string& arg, const DatabaseQuery& query) {
  const fs::path path(arg);
  if (fs::is_regular_file(path)) {
    // Read once: the text decides the kind and is parsed as that kind.
    const std::string text = read_file(path, "file");
    json j;
    try {
      j = parse_python_json(text, path.string());
    } catch (const InputError&) {
      return {pitot_json_from_text(text, path.string()), {}, {}};  // perhaps JSON lines
    }
    if (j.is_object() && j.contains("result_columns")) {
      // <results>/<machine>/<file>: benchmarks.json sits two levels up.
      auto benchmarks = read_benchmarks_json(fs::absolute(path).parent_path().parent_path());
      return {asv_results_from_text(text, path, benchmarks ? &*benchmarks : nullptr), {}, {}};
    }
    return {pitot_json_from_text(text, path.string()), {}, {}};
  }
  if (fs::exists(path)) throw InputError(fmt::format("{} is not a file", arg));
  if (path.extension() == ".json" || path.extension() == ".jsonl")
    throw InputError(fmt::format("file {} not found", arg));
  LoadedSide side;
  side.database_file = find_results_file(query, arg);
  side.benchmarks = read_benchmarks_json(query.results_dir);
  side.set = read_asv_results(side.database_file, side.benchmarks ? &*side.benchmarks : nullptr);
  return side;
}

}  // namespace


}  // namespace pitot::driver::compare

// Plans kept on disk across processes: a text per key in one folder, so a library's slow plan
// build (cuDNN's heuristics, finalization and runtime compilation: most of an attention point's
// setup) is paid once per machine instead of once per process. `pitot ab` and `--processes` start
// the same program many times; the plan a key names is the same each time, so the numbers do not
// move. The folder is $PITOT_SUITE_PLAN_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/pitot/plans;
// PITOT_SUITE_PLAN_CACHE=off turns it off. A read or write that fails is a miss, never an error:
// the plan is then built as without the cache.
#pragma once

#include <optional>
#include <string>

namespace suite {

class PlanCache {
 public:
  // `library`: what a stored plan is valid for (library version, device), part of every key.
  PlanCache(std::string kind, std::string library);
  // The text stored for `key`, if any (its first line must repeat the key: a hash collision or a
  // file from another build is a miss).
  std::optional<std::string> load(const std::string& key) const;
  // Stores `text` for `key` (write to a temporary file, then rename: readers never see half).
  void store(const std::string& key, const std::string& text) const;
  bool enabled() const { return !folder_.empty(); }

 private:
  std::string path_of(const std::string& full_key) const;
  std::string full_key(const std::string& key) const { return library_ + " " + key; }
  std::string folder_;  // empty: off
  std::string library_;
};

}  // namespace suite

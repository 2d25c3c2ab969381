// The cost file (run/costs.hpp): read, measured into, written back.
#include "driver/run/costs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "output/atomic_file.hpp"
#include "driver/run/ranked_child.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::run {

namespace {

constexpr int kFormat = 1;
// Programs (at a set of knobs) the file keeps, the most recently run first: a cache, not a history.
constexpr std::size_t kMaxEntries = 400;
// Far larger than 400 programs of a thousand points each write; a longer file is not ours.
constexpr std::size_t kMaxFileBytes = std::size_t{64} << 20;

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string identity(const fs::path& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  return (ec ? fs::absolute(path) : p).string();
}

// The runner's news passed on, with the times that split a process's wall into its start-up and
// exit and its points: the first "start" a child sends, the last point it reports.
class MeteredOutput final : public RunnerOutput {
 public:
  explicit MeteredOutput(RunnerOutput& inner) : inner_(inner) {}
  void record(std::vector<PointResult> points) override {
    for (const auto& p : points)
      if (p.status != PointStatus::Failed) {  // a failed point's time says nothing of a good one's
        durations_.emplace_back(p.name, p.duration_seconds);
        last_ = SteadyClock::now();
      }
    inner_.record(std::move(points));
  }
  void note(const std::string& line) override { inner_.note(line); }
  void running(const std::string& point) override { inner_.running(point); }
  void tick() override { inner_.tick(); }
  void started() override {
    if (!first_) first_ = SteadyClock::now();
    inner_.started();
  }

  std::optional<SteadyClock::time_point> first_, last_;
  std::vector<std::pair<std::string, double>> durations_;  // every point reported, its own duration

 private:
  RunnerOutput& inner_;
};

ProgramCost cost_from_json(const json& j) {
  ProgramCost c;
  c.process_seconds = j.at("process_seconds").get<double>();
  for (const auto& [name, seconds] : j.at("points").items()) c.points[name] = seconds.get<double>();
  return c;
}

}  // namespace

std::string cost_knobs(const RunOptions& o) {
  std::string s;
  for (const auto& [flag, value] : o.passthrough)
    if (flag != "--seed") s += flag + "=" + value + " ";
  if (o.timing) s += std::string("--timing=") + name_of(*o.timing) + " ";
  if (o.clock) s += std::string("--clock=") + name_of(*o.clock) + " ";
  s += "--interleave=" + std::to_string(o.no_interleave ? 1 : o.interleave);
  return s;
}

fs::path CostBook::default_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return fs::path(xdg) / "pitot" / "costs.json";
  const char* home = std::getenv("HOME");
  if (home && *home == '/') return fs::path(home) / ".cache" / "pitot" / "costs.json";
  return {};
}

CostBook::CostBook(fs::path path) : path_(std::move(path)) {
  if (path_.empty()) return;
  std::string text;
  try {
    if (!read_file_bounded(path_, text, kMaxFileBytes)) return;  // no file yet: no history
    const json doc = parse_json_bounded(text);
    if (doc.at("format").get<int>() != kFormat) throw std::runtime_error("a format this pitot does not know");
    for (const auto& e : doc.at("programs"))
      entries_.push_back({e.at("program").get<std::string>(), e.at("path").get<std::string>(),
                          e.at("knobs").get<std::string>(), e.at("updated").get<double>(), cost_from_json(e)});
  } catch (const std::exception& e) {
    entries_.clear();
    note_ = fmt::format("the cost file {} is not one pitot can read ({}); it is ignored, and replaced after this run",
                        path_.string(), e.what());
  }
}

const ProgramCost* CostBook::find(const ProgramInfo& program, const std::string& knobs) const {
  const std::string path = identity(program.ref.path);
  const Entry* best = nullptr;
  for (const auto& e : entries_) {
    if (e.program != program.program || e.knobs != knobs) continue;
    if (e.path == path) return &e.cost;
    if (!best || e.updated > best->updated) best = &e;
  }
  return best ? &best->cost : nullptr;
}

void CostMeter::run(const RunnerSettings& settings, const ProgramInfo& program,
                    const std::vector<const PlannedPoint*>& points, RunnerOutput& out,
                    const std::atomic<bool>& interrupted) {
  MeteredOutput metered(out);
  const auto t0 = SteadyClock::now();
  const int ranks = program_ranks(settings.ranks, program);  // a multi-rank program: one child per rank
  ProgramRunner(settings, program, points, metered, interrupted,
                ranks > 1 ? start_ranked_children(ranks, program.list.device_count > 0) : start_real_child())
      .run();
  const auto t1 = SteadyClock::now();
  if (interrupted || path_.empty() || !metered.first_ || !metered.last_ || metered.durations_.empty()) return;
  // The wall from the first point's start to the last point's report is the points'; it is shared
  // among them by their own durations (interleaved points overlap, each about equally). The rest
  // is the process's: start-up (a Python import, a device's init) and exit.
  const double span = std::max(0.0, std::chrono::duration<double>(*metered.last_ - *metered.first_).count());
  const double wall = std::chrono::duration<double>(t1 - t0).count();
  double total = 0;
  for (const auto& [name, d] : metered.durations_) total += std::max(0.0, d);
  const std::string path = identity(program.ref.path);
  const std::lock_guard lock(mutex_);
  Least& s = measured_[path + "\n" + program.program];
  s.program = program.program;
  s.path = path;
  s.process_seconds = std::min(s.process_seconds, std::max(0.0, wall - span));
  for (const auto& [name, d] : metered.durations_) {
    const double seconds =
        total > 0 ? span * std::max(0.0, d) / total : span / static_cast<double>(metered.durations_.size());
    auto [it, fresh] = s.points.emplace(name, seconds);
    if (!fresh) it->second = std::min(it->second, seconds);
  }
}

std::string CostMeter::save() {
  const std::lock_guard lock(mutex_);
  if (path_.empty() || measured_.empty()) return "";
  try {
    fs::create_directories(path_.parent_path());
    const pitot::FolderLock folder(path_.parent_path());  // two runs at once: neither loses the other's
    CostBook book(path_);
    const double now = unix_seconds();
    for (const auto& [key, s] : measured_) {
      auto it = std::find_if(book.entries_.begin(), book.entries_.end(), [&](const CostBook::Entry& e) {
        return e.program == s.program && e.path == s.path && e.knobs == knobs_;
      });
      if (it == book.entries_.end()) it = book.entries_.insert(book.entries_.end(), CostBook::Entry{s.program, s.path, knobs_, 0, {}});
      it->updated = now;
      it->cost.process_seconds = s.process_seconds;
      for (const auto& [name, seconds] : s.points) it->cost.points[name] = seconds;
    }
    std::sort(book.entries_.begin(), book.entries_.end(),
              [](const CostBook::Entry& a, const CostBook::Entry& b) { return a.updated > b.updated; });
    if (book.entries_.size() > kMaxEntries) book.entries_.resize(kMaxEntries);
    json doc = {{"format", kFormat}, {"programs", json::array()}};
    for (const auto& e : book.entries_)
      doc["programs"].push_back({{"program", e.program}, {"path", e.path}, {"knobs", e.knobs}, {"updated", e.updated},
                                 {"process_seconds", e.cost.process_seconds}, {"points", e.cost.points}});
    pitot::replace_file(path_, doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  } catch (const std::exception& e) {
    return fmt::format("the costs of this run were not kept in {} ({}); the next estimate is a floor from the knobs, not history",
                       path_.string(), e.what());
  }
  return "";
}

}  // namespace pitot::driver::run

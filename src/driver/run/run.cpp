// pitot run: runs benchmark programs as isolated children and grows the asv database.
// The scheduling and failure rules are documented in docs/driver.md ("Isolation").
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "core/point_filter.hpp"
#include "driver/common/child.hpp"
#include "driver/common/command.hpp"
#include "program/cli_hints.hpp"
#include "driver/common/database.hpp"
#include "driver/common/manifest.hpp"
#include "driver/common/progress.hpp"
#include "output/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace pitot::driver::run {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

constexpr double kStartupGraceSeconds = 10;  // process start and device init before the first message
constexpr double kPointGraceSeconds = 2;     // added to a point's own timeout (message and scheduling delays)

struct RunOptions {
  std::vector<std::string> inputs;
  std::string build_dir = ".";
  std::string filter;
  std::vector<std::string> axes;
  std::string asv_dir, config, machine, commit, env;
  bool no_asv = false;
  double timeout = 0;  // 0: each benchmark's own
  std::string devices;
  std::string shard;
  std::string json_path;
  std::string progress = "auto";
  int interleave = 8;
  bool no_interleave = false;
  int processes = 1;  // each program runs this many times, alternated; samples pooled per point
  std::map<std::string, std::string> passthrough;  // engine and device knobs for the programs
};

// What every worker shares: the database, the results so far, the progress display.
class Sink {
 public:
  // clock_suffix: kernel-clock rows go to the env with kKernelClockEnvSuffix (not under a user's --env).
  Sink(Progress& progress, std::optional<fs::path> dir, bool clock_suffix, int processes)
      : progress_(progress), dir_(std::move(dir)), clock_suffix_(clock_suffix), processes_(processes) {}

  // Records finished points of one program on one device: database first, then memory. With
  // several processes, a point's runs so far are pooled (merge_processes) and the pool replaces
  // what the database held for it, so an interrupted run keeps every finished process.
  void record(const AsvRun* run, const ProgramInfo& program, const std::string& where,
              std::vector<PointResult> points) {
    if (points.empty()) return;
    std::lock_guard lock(mutex_);
    std::vector<std::string> keys;
    if (processes_ > 1) {
      for (auto& p : points) {
        const std::string key = where + "\n" + program.program + "\n" + std::to_string(p.id);
        auto& runs = runs_[key];
        runs.push_back(p);
        p = merge_processes(runs);
        keys.push_back(key);
      }
    }
    if (dir_ && run && !fatal_) {
      try {
        for (const auto& [env, group] : split_by_clock(run->env_name, points, clock_suffix_)) {
          std::vector<BenchmarkInfo> benchmarks;
          std::set<std::string> seen;
          for (const auto& p : group)
            for (const auto& b : program.benchmarks)
              if (b.name == p.benchmark && seen.insert(b.name).second) benchmarks.push_back(b);
          AsvRun clocked = *run;
          clocked.env_name = env;
          write_asv(*dir_, clocked, benchmarks, group);
        }
      } catch (const AsvError& e) {
        fatal_ = true;
        fatal_message_ = e.what();
        g_interrupted = true;  // stop every worker: the database refuses our writes
      }
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      progress_.done(where, points[i]);
      if (processes_ > 1) merged_[keys[i]] = std::move(points[i]);
      else all_.push_back(std::move(points[i]));
    }
  }

  bool fatal() const { return fatal_; }
  const std::string& fatal_message() const { return fatal_message_; }
  std::vector<PointResult> take() {
    std::lock_guard lock(mutex_);
    for (auto& [key, p] : merged_) all_.push_back(std::move(p));
    merged_.clear();
    return std::move(all_);
  }
  Progress& progress() { return progress_; }

 private:
  Progress& progress_;
  std::optional<fs::path> dir_;
  bool clock_suffix_ = true;
  std::mutex mutex_;
  int processes_ = 1;
  std::vector<PointResult> all_;
  std::map<std::string, std::vector<PointResult>> runs_;  // with processes: each point's runs so far
  std::map<std::string, PointResult> merged_;              // ... and their pool
  bool fatal_ = false;
  std::string fatal_message_;
};

std::string id_list(const std::vector<int>& ids) {
  // Ranges keep the command line short for a thousand points: 0-999.
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
    i = j + 1;
  }
  return out;
}

std::string explain_end(const ChildEnd& end) {
  std::string s = end.describe();
  if (end.exited && end.code == 3) s += " (sticky device error)";
  return s;
}

// One program on one device: run its points in children until every point is reported,
// restarting after crashes and timeouts. See docs/driver.md, "Isolation".
class ProgramRunner {
 public:
  ProgramRunner(const RunOptions& o, const ProgramInfo& program, std::vector<const PlannedPoint*> points,
                std::optional<int> device, const AsvRun* run, Sink& sink)
      : o_(o), program_(program), device_(device), run_(run), sink_(sink) {
    for (const auto* p : points) {
      by_id_[p->id] = p;
      unreported_.insert(p->id);
    }
    where_ = program.program + (device ? fmt::format(" (gpu {})", *device) : std::string());
  }

  void run() {
    int silent_runs = 0;
    while (!unreported_.empty() && !g_interrupted) {
      const bool serial = !suspects_.empty() || o_.no_interleave || o_.interleave <= 1;
      std::vector<int> batch = suspects_.empty() ? std::vector<int>(unreported_.begin(), unreported_.end())
                                                 : std::vector<int>(suspects_.begin(), suspects_.end());
      Attempt a = attempt(batch, serial);
      for (auto it = suspects_.begin(); it != suspects_.end();)
        it = unreported_.count(*it) ? std::next(it) : suspects_.erase(it);
      if (g_interrupted) return;

      std::vector<int> left;
      for (int id : batch)
        if (unreported_.count(id)) left.push_back(id);
      if (left.empty()) {
        silent_runs = 0;
        continue;
      }
      if (!a.start_error.empty()) {
        fail_all(std::vector<int>(unreported_.begin(), unreported_.end()), a.start_error);
        return;
      }
      std::string reason = a.reason;
      std::string detail = reason;
      std::string tail = tail_lines(a.stderr_tail);
      if (!tail.empty()) detail += "\nstderr (end):\n" + tail;

      const bool clean = a.end.exited && (a.end.code == 0 || a.end.code == 1) && a.done && a.protocol_error.empty() &&
                         !a.timed_out;
      if (clean) {
        fail_all(left, "the program finished without reporting this point");
        continue;
      }
      if (a.end.exited && a.end.code == 2 && !a.timed_out && a.protocol_error.empty() && !a.got_any) {
        // A usage error (exit 2 before the program said anything) repeats on every restart: give
        // up on this batch. Once a point started or was reported, exit 2 came from a benchmark's
        // body: a crash like any other, charged to the point that was running.
        fail_all(left, "the program refused its command line: " + detail);
        continue;
      }
      if (!a.got_any) {
        if (++silent_runs >= 2) {
          fail_all(std::vector<int>(unreported_.begin(), unreported_.end()),
                   "the program " + reason + " before reporting any point, twice in a row\n" +
                       (tail.empty() ? "" : "stderr (end):\n" + tail));
          return;
        }
      } else {
        silent_runs = 0;
      }
      std::vector<int> started_left;
      for (int id : a.started)
        if (unreported_.count(id)) started_left.push_back(id);
      if (serial) {
        // One point at a time: the one that was running is the first one not reported.
        if (a.end.exited && a.end.code == 3 && a.reported > 0 && started_left.empty()) {
          sink_.progress().note(fmt::format("{}: {}; restarting after the last reported point", where_, reason));
          continue;
        }
        int culprit = started_left.empty() ? left.front() : started_left.front();
        fail_all({culprit}, detail);
        suspects_.erase(culprit);
        if (!unreported_.empty())
          sink_.progress().note(fmt::format("{}: {} {}; restarting after it", where_, by_id_[culprit]->name, reason));
      } else {
        // Interleaved: any of the running points may be at fault. Run them again one at a
        // time; the one that fails alone is charged, the others are measured normally.
        const std::vector<int>& suspects = started_left.empty() ? left : started_left;
        suspects_.insert(suspects.begin(), suspects.end());
        sink_.progress().note(fmt::format("{}: {} with {} point(s) unfinished; running them one at a time to find "
                                          "the one at fault",
                                          where_, reason, suspects.size()));
      }
    }
  }

 private:
  struct Attempt {
    std::string start_error;  // could not start at all
    ChildEnd end;
    bool done = false, got_any = false, timed_out = false;
    int reported = 0;
    std::vector<int> started;  // "start" messages, in order
    std::string protocol_error;
    std::string reason;  // why it ended early, for the failed point
    std::string stderr_tail;
  };

  double timeout_of(int id) const { return o_.timeout > 0 ? o_.timeout : by_id_.at(id)->timeout_seconds; }
  // Where a point's timeout comes from, for the reason of a timed-out point.
  std::string timeout_source(int id) const {
    return o_.timeout > 0 ? fmt::format("--timeout {}", o_.timeout)
                          : fmt::format("the benchmark's .timeout(), {} s", by_id_.at(id)->timeout_seconds);
  }

  std::vector<std::string> child_argv(const std::vector<int>& batch, bool serial) const {
    std::vector<std::string> argv = program_command(program_.ref);
    argv.insert(argv.end(), {"--quiet", "--points", id_list(batch)});
    for (const auto& a : o_.axes) argv.insert(argv.end(), {"--axis", a});
    for (const auto& [flag, value] : o_.passthrough) argv.insert(argv.end(), {flag, value});
    if (serial) argv.push_back("--no-interleave");
    else argv.insert(argv.end(), {"--interleave", std::to_string(o_.interleave)});
    if (device_) argv.insert(argv.end(), {"--device", std::to_string(*device_)});
    return argv;
  }

  void fail_all(const std::vector<int>& ids, const std::string& reason) {
    std::vector<PointResult> failed;
    for (int id : ids) {
      if (!unreported_.erase(id)) continue;
      PointResult r = skeleton(program_, *by_id_.at(id));
      r.status = PointStatus::Failed;
      r.reason = reason;
      // asv shows when a row was measured; a failed point alone must not say 1970.
      r.started_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
      failed.push_back(std::move(r));
    }
    sink_.record(run_, program_, where_, std::move(failed));
  }

  Attempt attempt(const std::vector<int>& batch, bool serial) {
    Attempt a;
    ChildSpec spec;
    spec.argv = child_argv(batch, serial);
    std::unique_ptr<Child> child;
    try {
      child = std::make_unique<Child>(spec);
    } catch (const std::exception& e) {
      a.start_error = e.what();
      return a;
    }
    const std::set<int> asked(batch.begin(), batch.end());
    const int window = serial ? 1 : std::min<int>(o_.interleave, static_cast<int>(batch.size()));
    auto last = Clock::now();
    double limit = 0;
    bool killed = false;
    std::map<int, Clock::time_point> started_at;  // started, not yet reported (this child)
    int last_started = -1;                         // the last message was this point's "start"
    std::string timeout_reason;
    sink_.progress().running(where_, serial ? by_id_.at(batch.front())->name : "");
    while (child->running()) {
      auto lines = child->wait(std::chrono::milliseconds(100));
      std::vector<PointResult> arrived;
      for (const auto& line : lines) {
        if (!a.protocol_error.empty()) break;
        try {
          ResultMessage m = parse_result_message(line);  // bytes that are not UTF-8 become U+FFFD
          const std::string& type = m.type;
          if (type == "point") {
            PointResult p = std::move(*m.point);
            if (!asked.count(p.id) || !unreported_.count(p.id)) {
              a.protocol_error = fmt::format("reported point id {} ({}), which was not asked for or came twice", p.id, p.name);
              break;
            }
            p.program = program_.program;  // asv names follow the listing, whatever the child says
            unreported_.erase(p.id);
            started_at.erase(p.id);
            last_started = -1;
            a.got_any = true;
            ++a.reported;
            last = Clock::now();
            arrived.push_back(std::move(p));
          } else if (type == "start") {
            int id = m.id;
            a.started.push_back(id);
            a.got_any = true;
            last = Clock::now();
            if (asked.count(id) && unreported_.count(id)) {
              started_at[id] = last;
              last_started = id;
            }
            if (by_id_.count(id)) sink_.progress().running(where_, by_id_.at(id)->name);
          } else if (type == "done") {
            a.done = true;
          }  // other types: newer programs may send more; ignore them
        } catch (const json::exception& e) {
          std::string shown = valid_utf8(line.size() > 200 ? line.substr(0, 200) + "..." : line);
          a.protocol_error = fmt::format("wrote something that is not a pitot result line ({}): {}", e.what(), shown);
        }
      }
      if (!arrived.empty()) {
        if (serial) {
          auto next = std::find_if(batch.begin(), batch.end(), [&](int id) { return unreported_.count(id) > 0; });
          if (next != batch.end()) sink_.progress().running(where_, by_id_.at(*next)->name);
        }
        sink_.record(run_, program_, where_, std::move(arrived));
      }
      if (killed) continue;
      if (child->line_overflow() && a.protocol_error.empty())
        a.protocol_error = fmt::format("wrote a result line longer than {} bytes", spec.max_line_bytes);
      // The watchdog (docs/driver.md, "Isolation"). Every bound below is a point's own timeout
      // (its .timeout(), or --timeout) times the share of the time it gets.
      const auto now = Clock::now();
      const double waited = std::chrono::duration<double>(now - last).count();
      double longest = 0;
      int longest_id = -1;
      for (int id : batch)
        if (unreported_.count(id) && timeout_of(id) > longest) longest = timeout_of(id), longest_id = id;
      if (serial) {
        // One point at a time: the first not reported (or the one announced) runs; the clock
        // starts at the last message.
        auto next = std::find_if(batch.begin(), batch.end(), [&](int id) { return unreported_.count(id) > 0; });
        const int running = last_started >= 0 ? last_started : (next == batch.end() ? -1 : *next);
        longest = running < 0 ? 0 : timeout_of(running);
        limit = longest;
        const double allowed = limit + (a.got_any ? kPointGraceSeconds : kStartupGraceSeconds);
        if (longest > 0 && waited > allowed)
          timeout_reason = fmt::format("timed out after {} s ({}; {} s of grace{})", limit, timeout_source(running),
                                       allowed - limit, a.got_any ? "" : " for process start-up");
      } else {
        std::size_t live_cap = 0;
        for (int id : batch) live_cap += unreported_.count(id);
        live_cap = std::min<std::size_t>(live_cap, static_cast<std::size_t>(window));
        // (1) A point's first turn (its setup and first batch) holds the turn: while the window
        //     still has points to start, the last one announced is the one running, alone.
        if (last_started >= 0 && started_at.size() < live_cap &&
            waited > timeout_of(last_started) + kPointGraceSeconds) {
          limit = timeout_of(last_started);
          timeout_reason = fmt::format("timed out: {} started and held the turn for more than {} s ({}; {} s of "
                                       "grace)",
                                       by_id_.at(last_started)->name, limit, timeout_source(last_started),
                                       kPointGraceSeconds);
        }
        // (2) A started point gets about 1/W of the time: it must finish within W x its timeout.
        for (const auto& [id, at] : started_at) {
          if (!timeout_reason.empty()) break;
          const double share = static_cast<double>(window) * timeout_of(id);
          if (std::chrono::duration<double>(now - at).count() > share + kPointGraceSeconds) {
            limit = share;
            timeout_reason = fmt::format("timed out: {} did not finish within {} s of its start ({} interleaved "
                                         "points x {}; {} s of grace)",
                                         by_id_.at(id)->name, share, window, timeout_source(id), kPointGraceSeconds);
          }
        }
        // (3) Without start messages: some point must finish within W x the longest timeout.
        const double allowed = window * longest + (a.got_any ? kPointGraceSeconds : kStartupGraceSeconds);
        if (timeout_reason.empty() && longest > 0 && waited > allowed) {
          limit = window * longest;
          timeout_reason = fmt::format("timed out: no point finished within {} s ({} interleaved points x the "
                                       "longest timeout, {}; {} s of grace{})",
                                       limit, window, timeout_source(longest_id), allowed - limit,
                                       a.got_any ? "" : " for process start-up");
        }
      }
      if (!a.protocol_error.empty() || g_interrupted || !timeout_reason.empty()) {
        a.timed_out = a.protocol_error.empty() && !g_interrupted && !timeout_reason.empty();
        child->kill_group();
        killed = true;
      }
      sink_.progress().tick();
    }
    a.end = child->end();
    a.stderr_tail = valid_utf8(child->stderr_text());
    if (a.timed_out) {
      a.reason = timeout_reason;
    } else if (!a.protocol_error.empty()) {
      a.reason = "broke the result protocol: it " + a.protocol_error;
    } else if (a.end.exited && (a.end.code == 0 || a.end.code == 1) && !a.done) {
      a.reason = explain_end(a.end) + " without finishing its report";
    } else {
      a.reason = explain_end(a.end);
    }
    return a;
  }

  const RunOptions& o_;
  const ProgramInfo& program_;
  std::optional<int> device_;
  const AsvRun* run_;
  Sink& sink_;
  std::string where_;
  std::map<int, const PlannedPoint*> by_id_;
  std::set<int> unreported_;
  std::set<int> suspects_;
};

std::vector<int> parse_devices(const std::string& text, int available) {
  if (text == "all") {
    if (available <= 0)
      throw InputError("--devices all: no program reported a GPU (build with a GPU backend, or list devices as 0,1)");
    std::vector<int> all;
    for (int i = 0; i < available; ++i) all.push_back(i);
    return all;
  }
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    try {
      std::size_t used = 0;
      int d = std::stoi(part, &used);
      if (used != part.size() || d < 0) throw std::invalid_argument(part);
      if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    } catch (const std::exception&) {
      throw InputError("--devices '" + text + "': write all, or device numbers like 0,1");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::pair<int, int> parse_shard_text(const std::string& text) {
  auto slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      std::size_t u1 = 0, u2 = 0;
      std::string a = text.substr(0, slash), b = text.substr(slash + 1);
      int k = std::stoi(a, &u1), n = std::stoi(b, &u2);
      if (u1 == a.size() && u2 == b.size() && n >= 1 && k >= 1 && k <= n) return {k, n};
    }
  } catch (const std::exception&) {
  }
  throw InputError("--shard '" + text + "': write k/N with 1 <= k <= N, e.g. 2/4");
}

void write_json_file(const std::string& path, const json& doc) {
  // Belt and braces: any text still not UTF-8 is replaced rather than losing the whole report.
  std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw InputError("cannot write " + tmp);
  }
  fs::rename(tmp, path);
}

int run_command(RunOptions o) {
  const auto t0 = Clock::now();
  g_interrupted = false;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // 1. The programs and their points.
  auto refs = find_programs(o.inputs, o.build_dir);
  std::vector<std::string> list_args;
  for (const auto& a : o.axes) list_args.insert(list_args.end(), {"--axis", a});
  if (!o.filter.empty()) list_args.insert(list_args.end(), {"--filter", o.filter});
  std::vector<ProgramInfo> programs;
  for (const auto& r : refs) programs.push_back(list_program(r, list_args));

  const std::optional<std::regex> filter = compile_point_filter<InputError>(o.filter);
  int shard_k = 1, shard_n = 1;
  if (!o.shard.empty()) std::tie(shard_k, shard_n) = parse_shard_text(o.shard);
  // The shard takes every N-th point of the whole suite, in manifest and id order: balanced,
  // and the same on every host that has the same build.
  std::vector<std::vector<const PlannedPoint*>> selected(programs.size());
  std::size_t global = 0, total = 0;
  for (std::size_t i = 0; i < programs.size(); ++i)
    for (const auto& p : programs[i].points) {
      if (filter && !std::regex_search(p.name, *filter)) continue;
      if (static_cast<int>(global++ % shard_n) != shard_k - 1) continue;
      selected[i].push_back(&p);
      ++total;
    }
  if (total == 0) throw InputError("no point to run: the programs hold none that match --filter/--shard (see pitot list)");

  // 2. Devices.
  int available = 0;
  for (const auto& p : programs) available = std::max(available, device_count_of(p.raw));
  std::vector<std::optional<int>> devices = {std::nullopt};
  if (!o.devices.empty()) {
    devices.clear();
    for (int d : parse_devices(o.devices, available)) devices.push_back(d);
  }

  // 3. The database: one AsvRun per device (machine and env per device), checked before running.
  std::optional<AsvConfig> config = find_asv_config(o.config);
  std::optional<fs::path> dir;
  std::map<int, AsvRun> runs;  // key: device, -1 without --devices
  if (!o.no_asv) {
    dir = results_dir(o.asv_dir, config);
    CommitInfo commit = resolve_commit(o.commit, config ? config->repo : fs::path("."));
    // The env names the programs' own build (their --list --json), not the driver's: a project
    // built without optimization must not land in a Release env.
    std::map<std::string, std::string> requirements = build_requirements();
    for (const auto& p : programs)
      if (p.raw.contains("requirements") && p.raw["requirements"].is_object()) {
        requirements = p.raw["requirements"].get<std::map<std::string, std::string>>();
        break;
      }
    const auto timing = o.passthrough.find("--timing");
    std::string env = o.env;
    if (env.empty()) {
      env = env_name(requirements);
      if (timing != o.passthrough.end() && timing->second != "cold") env += "-" + timing->second;
    }
    for (const auto& d : devices) {
      AsvRun run;
      run.commit_hash = commit.hash;
      run.commit_date_ms = commit.date_ms;
      json facts = nullptr;
      for (const auto& p : programs) {
        facts = device_facts_of(p.raw, d.value_or(0));
        if (!facts.is_null()) break;
      }
      fill_machine(run, o.machine, facts);
      run.requirements = requirements;
      run.env_name = env;
      if (d) {
        // Each GPU keeps its own results file and its own line in asv's graphs.
        run.env_name += fmt::format("-dev{}", *d);
        run.requirements["device"] = std::to_string(*d);
      }
      try {
        checked_name("--env", run.env_name);
      } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
      }
      runs[d.value_or(-1)] = run;
    }
  }

  bool live = o.progress == "live" || (o.progress == "auto" && isatty(STDERR_FILENO));
  Progress progress(o.progress == "none" ? nullptr : stderr, live, total * devices.size() * o.processes);
  Sink sink(progress, dir, o.env.empty(), o.processes);
  if (dir) {
    const AsvRun& r = runs.begin()->second;
    // Only CUDA programs can time with the kernel clock: name its env only when one is here.
    const bool kernel_clock = o.env.empty() && std::any_of(programs.begin(), programs.end(), [](const ProgramInfo& p) {
      return p.raw.value("backend", "") == "cuda";
    });
    progress.note(fmt::format("pitot: {} point{} of {} program{} -> {} (machine {}, commit {}, env {}{})",
                              total * devices.size(), total * devices.size() == 1 ? "" : "s", programs.size(),
                              programs.size() == 1 ? "" : "s", dir->string(), r.machine,
                              r.commit_hash.substr(0, 8), r.env_name,
                              kernel_clock ? fmt::format("; kernel-clock rows: {}{}", r.env_name, kKernelClockEnvSuffix) : ""));
    const auto build = r.requirements.find("build_type");
    if (build != r.requirements.end() && (build->second == "unoptimized" || build->second == "Debug"))
      progress.note("pitot: WARNING: the programs were built without optimization: their times are not those of an "
                    "optimized build. Configure them with -DCMAKE_BUILD_TYPE=Release.");
  }

  // 4. One worker per device; each runs the programs one after another, and with --processes K
  //    the whole sequence K times (program 1, program 2, ..., program 1 again, ...): alternated, so
  //    slow drift of the machine spreads over every program's processes alike.
  auto work = [&](std::optional<int> device) {
    const AsvRun* run = dir ? &runs.at(device.value_or(-1)) : nullptr;
    for (int round = 0; round < o.processes && !g_interrupted; ++round)
      for (std::size_t i = 0; i < programs.size() && !g_interrupted; ++i) {
        if (selected[i].empty()) continue;
        ProgramRunner(o, programs[i], selected[i], device, run, sink).run();
      }
  };
  if (devices.size() == 1) {
    work(devices.front());
  } else {
    std::vector<std::thread> threads;
    for (const auto& d : devices) threads.emplace_back(work, d);
    for (auto& t : threads) t.join();
  }
  progress.finish();

  std::vector<PointResult> results = sink.take();
  std::sort(results.begin(), results.end(), [](const PointResult& a, const PointResult& b) {
    return std::tie(a.program, a.id) < std::tie(b.program, b.id);
  });
  if (!o.json_path.empty()) {
    json doc = {{"driver", "pitot run"}, {"benchmarks", json::array()}, {"points", json::array()}};
    for (const auto& p : programs)
      for (const auto& b : p.benchmarks) doc["benchmarks"].push_back(to_json(b));
    for (const auto& r : results) doc["points"].push_back(to_json(r));
    write_json_file(o.json_path, doc);
  }
  if (sink.fatal()) {
    std::fprintf(stderr, "pitot run: the asv database refused the results: %s\n", sink.fatal_message().c_str());
    return kUsage;
  }
  const bool interrupted = g_interrupted.load();
  double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  if (o.progress != "none") print_summary(stdout, results, elapsed, interrupted);
  bool any_failed = std::any_of(results.begin(), results.end(), [](const PointResult& p) { return p.status == PointStatus::Failed; });
  return any_failed || interrupted ? kFailed : kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("run", "Run benchmark programs, each point isolated, and grow the asv database");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("programs", o->inputs, "Programs or folders to run (default: those of <build-dir>/pitot-manifest.json)");
  cmd->add_option("--build-dir", o->build_dir, "Build folder holding pitot-manifest.json")->capture_default_str();
  cmd->add_option("--filter", o->filter, "Run only points whose name matches this regex (searched)");
  // One value per --axis (repeat the flag): a multi-value option would swallow the program path
  // that follows it (`pitot run --axis n=64 prog`).
  cmd->add_option("--axis", o->axes, "Override an axis: name=v1,v2 or benchmark:name=v1,v2 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--asv-dir", o->asv_dir, "asv results folder (default: results_dir of ./asv.conf.json, else ./asv-results)");
  cmd->add_option("--config", o->config, "asv.conf.json to take results_dir and the git repository from");
  cmd->add_flag("--no-asv", o->no_asv, "Do not write the asv database (use --json for the results)");
  cmd->add_option("--machine", o->machine, "asv machine name (default: from the GPU product, else the CPU model)");
  cmd->add_option("--commit", o->commit, "Commit the results belong to (default: HEAD of the config's repo or of .)");
  cmd->add_option("--env", o->env, "asv environment name (default: compiler, version, build type, CUDA)");
  cmd->add_option("--timeout", o->timeout, "Seconds a point may take, for every benchmark (default: each benchmark's own, 60)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--devices", o->devices, "Run on these GPUs in parallel, one child each: all, or 0,1");
  cmd->add_option("--shard", o->shard, "Run only the k-th of N deterministic shares of all points, e.g. 2/4");
  cmd->add_option("--json", o->json_path, "Write every result (failures with their reasons) as JSON to FILE (- for stdout)");
  cmd->add_option("--progress", o->progress, "auto (live line on a terminal), live, plain (a line per point) or none")
      ->check(CLI::IsMember({"auto", "live", "plain", "none"}))
      ->capture_default_str();
  cmd->add_option("--interleave", o->interleave, "Points each program samples round-robin at once")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--no-interleave", o->no_interleave, "Run each program's points one after another");
  cmd->add_option("--processes", o->processes,
                  "Run each program K times as separate processes, alternated, and pool each point's samples "
                  "(the per-process medians are kept for pitot compare)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  // Engine and device knobs go to every program unchanged (see docs/program-cli.md).
  // Checked here as the programs check them, so a bad value is one message, not one per program.
  const std::vector<std::pair<const char*, CLI::Validator>> knobs = {
      {"--warmup", cli::non_negative()},        {"--min-samples", CLI::Range(2, 100000000)},
      {"--min-time", cli::non_negative()},      {"--max-time", cli::positive()},
      {"--max-samples", CLI::Range(1, 100000000)}, {"--ci-target", cli::positive()},
      {"--batch-time", cli::positive()},        {"--min-sample-time", cli::non_negative()},
      {"--seed", CLI::NonNegativeNumber},       {"--timing", CLI::IsMember({"cold", "hot", "graph"})},
      {"--clock", CLI::IsMember({"kernel", "events"})},
      {"--graph-launches", CLI::Range(0, 1000000)}, {"--throttle-ratio", cli::within(0.0, 1.0)}};
  for (const auto& [flag, check] : knobs) {
    cmd->add_option_function<std::string>(flag, [o, flag = flag](const std::string& v) { o->passthrough[flag] = v; },
                                          "Passed to every program (see its --help)")
        ->check(check);
  }
  cmd->callback([o] { run_guarded("run", [&] { return run_command(*o); }); });
}

}  // namespace

void add_run_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

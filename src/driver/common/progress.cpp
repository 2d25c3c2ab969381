#include "driver/common/progress.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <fmt/format.h>

#include "output/console.hpp"

namespace pitot::driver {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

Progress::Progress(std::FILE* out, bool live, std::size_t total) : out_(out), live_(live), total_(total) {}

std::string Progress::eta_locked() const {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (finished_ == 0 || finished_ >= total_) return "--:--";
  return format_duration(elapsed / static_cast<double>(finished_) * static_cast<double>(total_ - finished_));
}

void Progress::clear_locked() {
  if (live_ && out_) std::fputs("\r\033[K", out_);
}

void Progress::draw_locked() {
  if (!live_ || !out_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = fmt::format("[{}/{}] {} {}{}  elapsed {}  eta {}{}", finished_, total_, where_, point_,
                                 value_.empty() ? "" : " " + value_,
                                 format_duration(elapsed), eta_locked(),
                                 failed_ ? fmt::format("  failed {}", failed_) : std::string());
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  std::fputs(("\r\033[K" + line).c_str(), out_);
  std::fflush(out_);
  last_draw_ = std::chrono::steady_clock::now();
}

void Progress::write_skips_locked(const std::string& where, const SkipRun& run) {
  // A reason already written out for this program is not repeated.
  const bool repeated = !skip_reasons_seen_.insert(where + "\n" + run.reason).second;
  const std::string reason = repeated ? " (same reason as above)" : ": " + run.reason;
  if (run.count == 1)
    std::fprintf(out_, "[%zu/%zu] %s %s skipped%s\n", run.finished, total_, where.c_str(), run.first_point.c_str(),
                 reason.c_str());
  else
    std::fprintf(out_, "[%zu/%zu] %s: %zu points skipped%s\n", run.finished, total_, where.c_str(), run.count,
                 reason.c_str());
  std::fflush(out_);
}

void Progress::flush_skips_locked(const std::string& where) {
  auto it = skip_runs_.find(where);
  if (it == skip_runs_.end()) return;
  write_skips_locked(it->first, it->second);
  skip_runs_.erase(it);
}

void Progress::flush_other_skips_locked(const std::string& except) {
  for (auto it = skip_runs_.begin(); it != skip_runs_.end();) {
    if (it->first == except) {
      ++it;
      continue;
    }
    write_skips_locked(it->first, it->second);
    it = skip_runs_.erase(it);
  }
}

void Progress::running(const std::string& where, const std::string& point) {
  std::lock_guard lock(mutex_);
  // Another program started: the one held has ended (a program's own start messages do not end
  // its run: the engine announces a point before its body skips it). Programs on several devices
  // at once may split each other's runs into a few lines.
  if (out_ && !live_) flush_other_skips_locked(where);
  where_ = where;
  point_ = point;
  value_.clear();
  draw_locked();
}

namespace {

// What a Python method that times itself with CUDA events (python/pitot/_self_timed.py, which
// records it in backend_info) means for its numbers, once per benchmark: its program said so on
// its own stderr, which pitot run keeps.
std::string self_timed_note(const std::string& where, const PointResult& p) {
  const auto convention = p.backend_info.find("convention");
  if (convention != p.backend_info.end() && *convention == "device")
    return "pitot: note: " + where + ": " + p.benchmark +
           " times itself with CUDA events: timed on pitot's device clock (--self-timed device), its returned "
           "seconds ignored; its rows go to an env of their own (-kclock or -devclock), a new graph line";
  return "pitot: note: " + where + ": " + p.benchmark +
         " times itself with CUDA events: its samples are its returned seconds, which carry the host's noise "
         "between processes; --self-timed device (or \"pitot_self_timed\": \"device\" in asv.conf.json) times it "
         "on pitot's device clock instead, in an env of its own: a new graph line, as the values step "
         "(docs/writing-benchmarks.md, \"Self-timed methods\")";
}

}  // namespace

void Progress::done(const std::string& where, const PointResult& p) {
  std::lock_guard lock(mutex_);
  ++finished_;
  if (p.status == PointStatus::Failed) ++failed_;
  where_ = where;
  // The live line shows the point just measured and its median: "[12/40] sort[n=1000] 6.9 us".
  point_ = p.name;
  value_ = p.status == PointStatus::Ok && p.stats ? format_value(p.stats->median, p.unit)
           : p.status == PointStatus::Skipped     ? "skipped"
                                                  : "FAILED";
  if (!out_) return;
  if (p.backend_info.contains("self_timed") && self_timed_seen_.insert(where + "\n" + p.benchmark).second) {
    flush_other_skips_locked("");
    clear_locked();
    std::fprintf(out_, "%s\n", self_timed_note(where, p).c_str());
  }
  if (live_) {
    if (p.status == PointStatus::Failed) {
      clear_locked();
      std::fprintf(out_, "FAILED %s %s: %s\n", where.c_str(), p.name.c_str(), p.reason.c_str());
    }
    // Redraw at most 20 times a second: a thousand tiny points must not flood the terminal.
    if (std::chrono::steady_clock::now() - last_draw_ > std::chrono::milliseconds(50) ||
        p.status == PointStatus::Failed || finished_ == total_)
      draw_locked();
    return;
  }
  // Skipped points are held: a run of them for one reason becomes one line
  // ("bench_x_hip: 103 points skipped: no AMD GPU ..."), written when the run ends.
  auto held = skip_runs_.find(where);
  if (held != skip_runs_.end() && (p.status != PointStatus::Skipped || held->second.reason != p.reason))
    flush_skips_locked(where);
  if (p.status == PointStatus::Skipped) {
    SkipRun& run = skip_runs_[where];
    if (run.count++ == 0) {
      run.reason = p.reason;
      run.first_point = p.name;
    }
    run.finished = finished_;
    return;
  }
  std::string value = p.status == PointStatus::Ok && p.stats ? format_value(p.stats->median, p.unit) : "FAILED: " + p.reason;
  std::fprintf(out_, "[%zu/%zu] %s %s %s\n", finished_, total_, where.c_str(), p.name.c_str(), value.c_str());
  std::fflush(out_);
}

void Progress::note(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (!out_) return;
  flush_other_skips_locked("");  // what came before the note is written before it
  clear_locked();
  std::fprintf(out_, "%s\n", text.c_str());
  draw_locked();
  std::fflush(out_);
}

void Progress::tick() {
  std::lock_guard lock(mutex_);
  if (live_ && std::chrono::steady_clock::now() - last_draw_ > std::chrono::milliseconds(500)) draw_locked();
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (!out_) return;
  flush_other_skips_locked("");
  clear_locked();
  std::fflush(out_);
}

void print_summary(std::FILE* out, const std::vector<PointResult>& points, double elapsed_seconds, bool interrupted) {
  std::size_t ok = 0, failed = 0, skipped = 0;
  for (const auto& p : points) {
    if (p.status == PointStatus::Ok) ++ok;
    else if (p.status == PointStatus::Failed) ++failed;
    else ++skipped;
  }
  std::fprintf(out, "\n%zu points in %s: %zu ok, %zu failed, %zu skipped%s\n", points.size(),
               format_duration(elapsed_seconds).c_str(), ok, failed, skipped,
               interrupted ? " (interrupted: the rest did not run)" : "");
  for (PointStatus kind : {PointStatus::Failed, PointStatus::Skipped}) {
    std::vector<const PointResult*> rows;
    for (const auto& p : points)
      if (p.status == kind) rows.push_back(&p);
    if (rows.empty()) continue;
    std::size_t width = 5;
    for (auto* p : rows) width = std::max(width, p->program.size() + 1 + p->name.size());
    std::fprintf(out, "\n%s:\n", kind == PointStatus::Failed ? "Failed" : "Skipped");
    if (kind == PointStatus::Skipped) {
      // Many points of a program skipped for one reason (no GPU here) are one line.
      std::map<std::pair<std::string, std::string>, std::size_t> count;
      for (auto* p : rows) ++count[{p->program, p->reason}];
      std::vector<const PointResult*> kept;
      for (auto* p : rows) {
        std::size_t& n = count[{p->program, p->reason}];
        if (n > 3) {
          std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), fmt::format("{}: {} points", p->program, n).c_str(),
                       p->reason.c_str());
          n = 0;  // printed
        } else if (n > 0) {
          kept.push_back(p);
        }
      }
      rows = kept;
    }
    for (auto* p : rows) {
      std::string reason = p->reason;
      // Keep the table readable: the first line of the reason (stderr tails are in --json).
      auto nl = reason.find('\n');
      if (nl != std::string::npos) reason = reason.substr(0, nl) + " ...";
      std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), (p->program + "." + p->name).c_str(), reason.c_str());
    }
  }
  std::fflush(out);
}

}  // namespace pitot::driver

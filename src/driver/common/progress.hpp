// What `pitot run` shows while it works: a live line on a terminal, plain lines otherwise,
// and a summary at the end with every failed or skipped point and why.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace pitot::driver {

class Progress {
 public:
  // `live`: redraw one status line (a terminal); otherwise print one line per finished point, and
  // one line for a run of a program's points skipped for one reason.
  Progress(std::FILE* out, bool live, std::size_t total);

  // The program (and device) now running, and the point it is busy with when known.
  void running(const std::string& where, const std::string& point);
  // A point finished (ok, skipped or failed); `where` is the program (and device).
  void done(const std::string& where, const PointResult& point);
  // A note that must not be lost under the live line (a restart, a timeout).
  void note(const std::string& text);
  // Redraws the live line (elapsed time moves on); cheap, call it from the wait loop.
  void tick();
  void finish();  // clears the live line, writes the skipped points still held

  std::size_t finished() const { return finished_; }

 private:
  // Plain mode: the skipped points of one program that come one after another for one reason
  // (a program without its GPU skips all of them) are held and written as one line.
  struct SkipRun {
    std::string reason, first_point;
    std::size_t count = 0;
    std::size_t finished = 0;  // the [k/total] of its last point
  };

  void draw_locked();
  void clear_locked();
  std::string eta_locked() const;
  void write_skips_locked(const std::string& where, const SkipRun& run);
  // Write the held run of `where`, or of every program but `except` ("": of every program), and
  // forget them.
  void flush_skips_locked(const std::string& where);
  void flush_other_skips_locked(const std::string& except);

  std::FILE* out_;
  bool live_;
  std::size_t total_;
  std::size_t finished_ = 0, failed_ = 0;
  std::string where_, point_;
  std::string value_;  // the last finished point's median (or "skipped"), shown after its name
  std::set<std::string> skip_reasons_seen_;  // "where\nreason" already printed in plain mode
  std::set<std::string> self_timed_seen_;    // "where\nbenchmark" whose self-timing was noted
  std::map<std::string, SkipRun> skip_runs_;  // held in plain mode, by where
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  std::mutex mutex_;
};

// "1:05", "2:03:04"
std::string format_duration(double seconds);

// The end-of-run table: counts, then failed and skipped points with their reasons.
void print_summary(std::FILE* out, const std::vector<PointResult>& points, double elapsed_seconds,
                   bool interrupted);

}  // namespace pitot::driver

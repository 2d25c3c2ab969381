// What `pitot run` shows while it works: a live line on a terminal, plain lines otherwise,
// and a summary at the end with every failed or skipped point and why.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace pitot::driver {

class Progress {
 public:
  // `live`: redraw one status line (a terminal); otherwise print one line per finished point.
  Progress(std::FILE* out, bool live, std::size_t total);

  // The program (and device) now running, and the point it is busy with when known.
  void running(const std::string& where, const std::string& point);
  // A point finished (ok, skipped or failed); `where` is the program (and device).
  void done(const std::string& where, const PointResult& point);
  // A note that must not be lost under the live line (a restart, a timeout).
  void note(const std::string& text);
  // Redraws the live line (elapsed time moves on); cheap, call it from the wait loop.
  void tick();
  void finish();  // clears the live line

  std::size_t finished() const { return finished_; }

 private:
  void draw_locked();
  void clear_locked();
  std::string eta_locked() const;

  std::FILE* out_;
  bool live_;
  std::size_t total_;
  std::size_t finished_ = 0, failed_ = 0;
  std::string where_, point_;
  std::string value_;
  std::set<std::string> skip_reasons_seen_;  // "where\nreason" already printed in plain mode  // the last finished point's median (or "skipped"), shown after its name
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

// What a process of a program costs, remembered from run to run so that pitot run and pitot ab
// can say what a run will cost before they start it (docs/compare.md, "What it costs"). After
// every run, each program's processes are measured (wall seconds per point, and the start-up and
// exit beyond the points) and written to a small cache file. The file is a cache: a missing,
// unreadable or corrupt one is ignored with a note, never an error.
#pragma once

#include <atomic>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "driver/run/steps.hpp"

namespace pitot::driver::run {

// The settings that change what a point costs (engine knobs, --timing, --clock, --interleave):
// costs are kept per program and per these, so a lean pitot ab and a default pitot run keep apart.
std::string cost_knobs(const RunOptions& o);

// A program's remembered costs at one set of knobs.
struct ProgramCost {
  double process_seconds = 0;            // a process's start and exit: its wall beyond its points
  std::map<std::string, double> points;  // the wall seconds a process spent on each point
};

// The cost file, read once.
class CostBook {
 public:
  // ${XDG_CACHE_HOME:-$HOME/.cache}/pitot/costs.json; empty when neither variable is set.
  static std::filesystem::path default_path();
  // Reads `path` (empty: nothing). Missing: no history. Unreadable or corrupt: no history, and
  // note() says so.
  explicit CostBook(std::filesystem::path path);
  const std::string& note() const { return note_; }
  const std::filesystem::path& path() const { return path_; }
  // The program's costs at these knobs: from its own path, else the last run of the same program
  // elsewhere (another build folder of the same suite); nullptr when there is none.
  const ProgramCost* find(const ProgramInfo& program, const std::string& knobs) const;

 private:
  friend class CostMeter;
  struct Entry {
    std::string program, path, knobs;
    double updated = 0;  // unix seconds
    ProgramCost cost;
  };
  std::filesystem::path path_;
  std::string note_;
  std::vector<Entry> entries_;
};

// Measures the processes of one command, and adds them to the cost file at its end. Thread-safe:
// pitot run --devices runs programs on several devices at once.
class CostMeter {
 public:
  CostMeter(std::filesystem::path path, std::string knobs) : path_(std::move(path)), knobs_(std::move(knobs)) {}
  // One process of `program` for `points` (ProgramRunner::run), its costs measured. A process
  // cut short by an interrupt is not recorded: it says nothing about a whole one.
  void run(const RunnerSettings& settings, const ProgramInfo& program, const std::vector<const PlannedPoint*>& points,
           RunnerOutput& out, const std::atomic<bool>& interrupted);
  // Merges what was measured into the cost file (re-read under its folder's lock, written
  // atomically). Returns a note when it could not be written; "" otherwise.
  std::string save();

 private:
  // The least over the command's processes: a program's first process on a machine can pay once
  // what the later ones do not (cuDNN compiling attention's plans, 54 s a process against 22.5 s in
  // the sixth whole-suite ab on an H100), and the next run's estimate was a third too high from it.
  struct Least {
    std::string program, path;
    double process_seconds = std::numeric_limits<double>::infinity();
    std::map<std::string, double> points;  // the wall seconds of each point, least over processes
  };
  std::filesystem::path path_;
  std::string knobs_;
  std::mutex mutex_;
  std::map<std::string, Least> measured_;  // by canonical path
};

}  // namespace pitot::driver::run

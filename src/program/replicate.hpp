// `--processes K` on a program: it runs itself K times, one process after another, each writing its
// results as JSON, and pools each point's results (merge_processes), so a program alone gets the
// per-process medians that pitot compare treats as its unit of replication, as `pitot run
// --processes K` does for a suite.
#pragma once

#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/result.hpp"

namespace pitot::program {

// How this program starts itself again when it is not its own executable: an interpreter and a
// script (the Python module sets {python, file.py}); argv[1..] follow. Empty: /proc/self/exe.
std::vector<std::string>& self_command();

// The JSON file a replicate writes its results to ("" in a program that is not a replicate).
std::string replicate_json_path();

// Runs this program's argv K times as replicates and returns the pooled result of every point of
// `points`. A point a process did not report (it crashed, or lost the device) is failed with the
// reason naming that process. Throws UsageError when a replicate refuses its command line.
std::vector<PointResult> run_replicates(const std::string& program, char** argv, int processes,
                                        const std::vector<PlannedPoint>& points, bool progress);

}  // namespace pitot::program

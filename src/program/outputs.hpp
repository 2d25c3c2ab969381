// What a benchmark program writes: the --list answer, and after a run the table, the CSV, the
// JSON and the asv results, each where the command line sends it (program/main.cpp runs the program).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/result.hpp"
#include "program/options.hpp"

namespace pitot::program {

// --list: the benchmarks and the selected points as text, or (--list --json) the answer a driver
// reads, with the device facts that let it name the machine and count GPUs without running a point.
void print_list(std::ostream& out, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                const std::vector<PlannedPoint>& points, bool as_json, int device);

// Writes text to a path, or stdout for "-"; the file is replaced only once fully written and
// synced (output/atomic_file.hpp). A missing folder is an error, not created.
void write_output(const std::string& path, const std::string& text);

// A run's outputs, as the options ask: the table on stdout, --csv, --json and --asv-dir. Sorts
// `results` by point id first.
void write_outputs(const Options& o, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                   std::vector<PointResult>& results);

}  // namespace pitot::program

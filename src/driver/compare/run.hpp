// `pitot compare` without its command line: options in, report out, exit code back.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

#include "driver/compare/stats.hpp"

namespace pitot::driver::compare {

enum class Format { Table, Markdown, Json };
enum class Color { Auto, Always, Never };

struct CompareOptions {
  std::string base, head;             // files, or commits in the results database
  std::filesystem::path results_dir;  // empty: the config's results_dir, else ./asv-results
  std::filesystem::path config;       // asv.conf.json or its folder (empty: as pitot run finds one)
  std::string machine, env;
  MethodOptions method;
  Format format = Format::Table;
  std::filesystem::path output;  // write the format here (atomically) and the table to `out`
  bool only_changed = false;
  int history = 10;  // recent results files a point's noise floor is learned from (0: none)
  Color color = Color::Auto;
};

// "2%" -> 0.02, "0.05" -> 0.05. Throws InputError on anything else (negative, "5" meaning 500%).
double parse_threshold(const std::string& text);

// Runs a comparison and writes the report to `out` (errors to `err`). Returns the exit code:
// 0 no confirmed regression, 1 a point slower or newly failing, 2 an input error.
int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err, bool out_is_terminal);

}  // namespace pitot::driver::compare

// A report rendered: a terminal table, markdown for a pull-request comment, JSON for tools. One
// file per format under render/.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "driver/compare/comparison.hpp"

namespace pitot::driver::compare {

std::string summary_line(const Report& report);
std::string render_table(const Report& report, bool color, bool only_changed);
// GitHub refuses a comment over 65,536 characters; the default leaves room for the heading and
// the marker the CI workflow adds. Every newly failing and slower row is kept; the others are
// added while they fit, and the comment says how many were left out.
constexpr std::size_t kMarkdownLimit = 64000;
std::string render_markdown(const Report& report, bool only_changed, std::size_t limit = kMarkdownLimit);
// The JSON report's format; bumped when a field changes meaning or goes away.
constexpr int kJsonSchemaVersion = 2;
nlohmann::json render_json(const Report& report, bool only_changed);

// "4.110 ms", "1.25e+06 items/s": a value in its unit, for people.
std::string format_value(double value, const std::string& unit);
// A percentage for people: two significant digits, never an exponent (3100, 100, 7.6, 0.31).
std::string percent_text(double p);

}  // namespace pitot::driver::compare

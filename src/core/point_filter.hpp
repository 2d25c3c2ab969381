// The --filter of a benchmark program and of `pitot run`: an ECMAScript regex searched in point
// names. One parser, so both accept the same text and say the same about a bad one.
#pragma once

#include <optional>
#include <regex>
#include <string>

namespace pitot {

// nullopt when `text` is empty. Throws `Error` (the caller's usage error) naming the option and
// why the text is not a regex.
template <class Error>
std::optional<std::regex> compile_point_filter(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    return std::regex(text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Error("--filter '" + text + "' is not a valid regular expression: " + e.what());
  }
}

}  // namespace pitot

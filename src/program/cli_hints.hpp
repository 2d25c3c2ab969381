// Command-line helpers shared by benchmark programs and the driver: a suggestion for a mistyped
// flag or command ("did you mean --max-time?") and number checks whose messages say what is
// wrong in words (CLI11's own range checks print the double's full range).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/knobs.hpp"
#include "core/settings.hpp"

namespace pitot::cli {

// Levenshtein distance (insert, delete, substitute), small strings only.
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word` if it is near enough to be a typo of it (a third of its
// length, at least 2 edits), or one that `word` abbreviates; "" otherwise.
inline std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (word.size() >= 4 && c.rfind(word, 0) == 0) d = std::min<std::size_t>(d, 1);  // a prefix
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

// The long flags (--name) of `app`'s options.
inline std::vector<std::string> long_flags(const CLI::App& app) {
  std::vector<std::string> flags;
  for (const CLI::Option* opt : app.get_options())
    for (const auto& name : opt->get_lnames()) flags.push_back("--" + name);
  return flags;
}

// For a parse error caused by an unknown flag in argv: "; did you mean --max-time?" naming the
// closest flag of `app` (or of `sub`, the subcommand being parsed, when given); "" otherwise.
inline std::string flag_suggestion(const CLI::App& app, int argc, char** argv, const CLI::App* sub = nullptr) {
  std::vector<std::string> flags = long_flags(app);
  if (sub) {
    auto more = long_flags(*sub);
    flags.insert(flags.end(), more.begin(), more.end());
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(flags.begin(), flags.end(), arg) != flags.end()) continue;
    const std::string guess = closest(arg, flags);
    return guess.empty() ? "; " + arg + " is not a flag of this command"
                         : "; " + arg + " is not a flag: did you mean " + guess + "?";
  }
  return "";
}

// A number check: finite, and > 0 (or >= 0 when zero is allowed), in words.
inline CLI::Validator number(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
        if (!std::isfinite(v)) return "'" + text + "' is not a finite number; give one such as 2 or 0.5";
        if (v < 0 || (v == 0 && !zero_allowed))
          return "'" + text + "' is not allowed: give a number " + (zero_allowed ? "of 0 or more" : "above 0");
        return "";
      },
      zero_allowed ? "NUMBER>=0" : "NUMBER>0");
}
inline CLI::Validator positive() { return number(false); }
inline CLI::Validator non_negative() { return number(true); }

inline std::string plain_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// A finite number within [lo, hi], in words.
inline CLI::Validator within(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
        if (!std::isfinite(v) || v < lo || v > hi)
          return "'" + text + "' is outside " + plain_number(lo) + " to " + plain_number(hi);
        return "";
      },
      "NUMBER in [" + plain_number(lo) + ", " + plain_number(hi) + "]");
}

// A whole number from 0 to 2^64-1 written in decimal digits (no sign, no hex, no exponent), in
// words: what --seed takes at both ends.
inline CLI::Validator seed() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || error != std::errc() || end != text.data() + text.size())
          return "'" + text + "' is not allowed: give a whole number from 0 to 18446744073709551615";
        return "";
      },
      "INTEGER>=0");
}

// The check of a pass-through knob (core/knobs.hpp), the same in a program and in `pitot run`.
inline CLI::Validator knob_check(const KnobBounds& b) {
  switch (b.kind) {
    case KnobBounds::Kind::Positive: return positive();
    case KnobBounds::Kind::NonNegative: return non_negative();
    case KnobBounds::Kind::Within: return within(b.lo, b.hi);
    case KnobBounds::Kind::Integer: return CLI::Range(static_cast<int>(b.lo), static_cast<int>(b.hi));
    case KnobBounds::Kind::Seed: return seed();
    case KnobBounds::Kind::Flag: return CLI::Validator();  // a flag takes no value to check
  }
  return CLI::Validator();
}

// --timing and --clock, parsed into their enums at the flag (core/settings.hpp): the same names,
// checks and messages in a benchmark program and in `pitot run`.
inline CLI::Option* add_timing_option(CLI::App& app, std::function<void(Timing)> set, const std::string& help) {
  return app
      .add_option_function<std::string>(
          "--timing", [set](const std::string& name) { set(timing_from_name(name).value()); }, help)
      ->check(CLI::IsMember(timing_names()));
}
inline CLI::Option* add_clock_option(CLI::App& app, std::function<void(GpuClock)> set, const std::string& help) {
  return app
      .add_option_function<std::string>(
          "--clock", [set](const std::string& name) { set(clock_from_name(name).value()); }, help)
      ->check(CLI::IsMember(clock_names()));
}

}  // namespace pitot::cli

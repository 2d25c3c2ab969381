// The --filter of a benchmark program and of `pitot run`: an ECMAScript regex searched in point
// names. One parser, so both accept the same text and say the same about a bad one.
#pragma once

#include <cctype>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace pitot {

// Why `text` is refused before std::regex sees it, "" when it is not. std::regex backtracks: a
// repetition of something that itself repeats or alternates ('.**', '(a*)*', '(a|b)+') takes time
// exponential in the name's length (a 3-character '.**', a glob habit, hung on a 30-byte name),
// and a repetition count in the millions builds an automaton of that size. ECMAScript itself
// refuses '**'; pitot refuses the rest of that family and counts above 1000.
inline std::string point_filter_problem(const std::string& text) {
  struct Group {
    bool quant = false, alt = false;  // holds a quantifier / an alternation
  };
  std::vector<Group> groups(1);
  std::optional<Group> atom;  // what a quantifier here would apply to
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    bool is_quant = false, repeats = false;
    std::size_t end = i;  // last character of the quantifier
    if (c == '*' || c == '+') {
      is_quant = repeats = true;
    } else if (c == '?') {
      is_quant = true;
    } else if (c == '{') {
      std::size_t j = i + 1;
      std::string lo, hi;
      bool comma = false;
      while (j < n && std::isdigit(static_cast<unsigned char>(text[j]))) lo += text[j++];
      if (j < n && text[j] == ',') {
        comma = true;
        ++j;
        while (j < n && std::isdigit(static_cast<unsigned char>(text[j]))) hi += text[j++];
      }
      if (!lo.empty() && j < n && text[j] == '}') {
        if (lo.size() > 4 || hi.size() > 4 || std::stoi(lo) > 1000 || (!hi.empty() && std::stoi(hi) > 1000))
          return "the repetition count in '" + text.substr(i, j - i + 1) + "' is above 1000";
        is_quant = true;
        repeats = (comma && hi.empty()) || (hi.empty() ? std::stoi(lo) >= 2 : std::stoi(hi) >= 2);
        end = j;
      }
    }
    if (is_quant) {
      if (atom && repeats && (atom->quant || atom->alt))
        return "it repeats something that itself repeats or alternates ('.**', '(a*)*', '(a|b)+'), which can take "
               "exponential time to match; write it without the nesting (a filter is a regex searched in point "
               "names, not a glob: '.*' matches anything)";
      groups.back().quant = true;
      if (atom) atom->quant = true;
      i = end;
      if (i + 1 < n && text[i + 1] == '?') ++i;  // lazy
      continue;
    }
    switch (c) {
      case '\\':
        ++i;
        atom = Group{};
        break;
      case '[':
        for (++i; i < n && text[i] != ']'; ++i)
          if (text[i] == '\\') ++i;
        atom = Group{};
        break;
      case '(':
        groups.emplace_back();
        if (i + 2 < n && text[i + 1] == '?' && (text[i + 2] == ':' || text[i + 2] == '=' || text[i + 2] == '!')) i += 2;
        atom.reset();
        break;
      case ')':
        if (groups.size() > 1) {
          atom = groups.back();
          groups.pop_back();
          groups.back().quant |= atom->quant;
          groups.back().alt |= atom->alt;
        } else {
          atom.reset();
        }
        break;
      case '|':
        groups.back().alt = true;
        atom.reset();
        break;
      case '^':
      case '$':
        atom.reset();
        break;
      default:
        atom = Group{};
    }
  }
  return "";
}

// nullopt when `text` is empty. Throws `Error` (the caller's usage error) naming the option and
// why the text is not a regex.
template <class Error>
std::optional<std::regex> compile_point_filter(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (const std::string problem = point_filter_problem(text); !problem.empty())
    throw Error("--filter '" + text + "' is refused: " + problem);
  try {
    return std::regex(text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Error("--filter '" + text + "' is not a valid regular expression: " + e.what());
  }
}

}  // namespace pitot

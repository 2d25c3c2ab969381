// See json.hpp.
#include "asv/json.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <string_view>

#include "core/bounded_json.hpp"
#include "core/text.hpp"

namespace pitot {

using nlohmann::json;

namespace {

// nlohmann neither reads nor writes the bare tokens, so they travel through its parser as these
// marker strings (a control character cannot appear raw in a JSON string, so no real string
// looks like one).
const std::string kNaNMark = "\x01NaN", kInfMark = "\x01Infinity", kNegInfMark = "\x01-Infinity";

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string tokens_to_marks(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 64);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[i + 1];
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      ++i;
      continue;
    }
    // A token counts as a whole word only: "NaNa" stays the parse error it is.
    auto token_at = [&](std::string_view token) {
      if (text.compare(i, token.size(), token) != 0) return false;
      const std::size_t end = i + token.size();
      return (end >= text.size() || !is_word_char(text[end])) && (i == 0 || !is_word_char(text[i - 1]));
    };
    const std::pair<std::string_view, const std::string*> tokens[] = {
        {"NaN", &kNaNMark}, {"-Infinity", &kNegInfMark}, {"Infinity", &kInfMark}};
    bool replaced = false;
    for (const auto& [token, mark] : tokens) {
      if (token_at(token)) {
        out += json(*mark).dump();
        i += token.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out += c;
      ++i;
    }
  }
  return out;
}

void marks_to_numbers(json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == kNaNMark) j = std::numeric_limits<double>::quiet_NaN();
    else if (s == kInfMark) j = std::numeric_limits<double>::infinity();
    else if (s == kNegInfMark) j = -std::numeric_limits<double>::infinity();
  } else if (j.is_structured()) {
    for (auto& item : j) marks_to_numbers(item);
  }
}

void dump_python(const json& j, std::string& out) {
  switch (j.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ", ";
        first = false;
        out += json_text(json(it.key()));
        out += ": ";
        dump_python(it.value(), out);
      }
      out += '}';
      break;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : j) {
        if (!first) out += ", ";
        first = false;
        dump_python(item, out);
      }
      out += ']';
      break;
    }
    case json::value_t::number_float: {
      const double x = j.get<double>();
      if (std::isnan(x)) out += "NaN";
      else if (std::isinf(x)) out += x > 0 ? "Infinity" : "-Infinity";
      else out += json_text(j);
      break;
    }
    default:
      out += json_text(j);
  }
}

}  // namespace

json parse_python_json(const std::string& text) {
  check_json_bounds(text);  // before the recursive walk below
  json doc = json::parse(tokens_to_marks(text));
  marks_to_numbers(doc);
  return doc;
}

std::string dump_python_json(const json& j) {
  std::string out;
  dump_python(j, out);
  return out;
}

}  // namespace pitot

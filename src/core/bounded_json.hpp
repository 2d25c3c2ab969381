// Reading JSON that another process or a user wrote: every reader in pitot goes through here, so
// none can be made to recurse without end (a 50,000-level nesting) or to hold an unbounded text,
// and text that crosses into JSON is made valid UTF-8 first. Header-only: the driver, the asv
// writer and the compare sources (built alone into test_compare) all include it.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/utf8.hpp"

namespace pitot {

// Deeper than any file pitot or asv writes (asv results: 4 levels; pitot --json: 6).
inline constexpr std::size_t kMaxJsonDepth = 256;
// The protocol's longest line, and the largest file any reader takes.
inline constexpr std::size_t kMaxJsonBytes = std::size_t{256} << 20;

// Throws nlohmann::json::parse_error (so every caller's existing handler applies) when `text`
// is longer than max_bytes or nests arrays and objects deeper than max_depth. Strings are
// skipped (a bracket inside one does not count), and comments when the parse will skip them.
inline void check_json_bounds(std::string_view text, bool comments = false, std::size_t max_depth = kMaxJsonDepth,
                              std::size_t max_bytes = kMaxJsonBytes) {
  using nlohmann::json;
  if (text.size() > max_bytes)
    throw json::parse_error::create(101, max_bytes, "the text is longer than " + std::to_string(max_bytes) + " bytes",
                                    nullptr);
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (comments && c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (comments && c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const auto end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw json::parse_error::create(
            101, i + 1, "nested deeper than " + std::to_string(max_depth) + " levels of arrays and objects", nullptr);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// json::parse with the bounds above.
inline nlohmann::json parse_json_bounded(std::string_view text, bool ignore_comments = false,
                                         std::size_t max_depth = kMaxJsonDepth) {
  check_json_bounds(text, ignore_comments, max_depth);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, true, ignore_comments);
}

// A file that cannot be opened, or is longer than a reader takes; the message names it and why.
struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A whole file, refused (std::length_error) past max_bytes without reading more than that.
// Returns false when the file cannot be opened.
inline bool read_file_bounded(const std::filesystem::path& path, std::string& out,
                              std::size_t max_bytes = kMaxJsonBytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.clear();
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    if (out.size() + static_cast<std::size_t>(in.gcount()) > max_bytes)
      throw std::length_error(path.string() + " is longer than " + std::to_string(max_bytes) + " bytes");
    out.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  return true;
}

// The whole file, bounded as above, for the readers that refuse what they cannot read (the asv
// database, asv.conf.json, the driver's inputs). Throws ReadError: "cannot read <what> <path>:
// <why>" or "<what> <path> is longer than N bytes"; `what` ("results file") may be empty.
inline std::string read_text_file(const std::filesystem::path& path, const std::string& what = "",
                                  std::size_t max_bytes = kMaxJsonBytes) {
  const std::string named = what.empty() ? "" : what + " ";
  std::string text;
  try {
    errno = 0;
    if (!read_file_bounded(path, text, max_bytes))
      throw ReadError("cannot read " + named + path.string() + ": " +
                      (errno != 0 ? std::strerror(errno) : "no such file, or not readable"));
  } catch (const std::length_error& e) {
    throw ReadError(named + e.what());
  }
  return text;
}

// `text` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD,
// so it can be stored in JSON (nlohmann refuses to dump invalid UTF-8).
inline std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = utf8_sequence(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace pitot

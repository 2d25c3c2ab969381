// asv's dialect of JSON, read and written here only: asv's results files are what Python's
// json.dump writes, with bare NaN, Infinity and -Infinity tokens (docs/asv-format.md §5).
// The asv writer, `pitot merge` and `pitot compare` all read and write those files through these.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pitot {

// Parses `text`, reading the bare tokens (outside strings, as whole words) as the doubles they
// name. Bounded like every reader (core/bounded_json.hpp). Throws nlohmann::json::parse_error on
// bad text, and json::out_of_range on a number that does not fit a double (1e999).
nlohmann::json parse_python_json(const std::string& text);

// Compact JSON (", " and ": " as asv's json.dump) with non-finite doubles as those tokens. Never
// throws on bytes that are not UTF-8 (core/text.hpp json_text).
std::string dump_python_json(const nlohmann::json& j);

}  // namespace pitot

// Text that crosses into JSON, and the names asv can store. What a benchmark author or a user
// writes (an exception message, a skip reason, a version, a name) may hold any bytes; JSON
// holds UTF-8 only, and nlohmann::json's dump throws on anything else. Every JSON text pitot
// writes goes through json_text, which replaces such bytes instead (docs/DESIGN.md, "Fault model").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <pitot/axis.hpp>

namespace pitot {

// `s` with ASCII letters in lower case (other bytes as they are).
std::string ascii_lower(std::string s);

// Whether every character of `s` is 0-9 or a-f (a git hash as asv and git write it).
bool is_lower_hex(std::string_view s);

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool is_utf8(std::string_view s);

// `s` for a message: each byte that is not part of well-formed UTF-8 spelled out as \xFF.
std::string escape_non_utf8(std::string_view s);

// The JSON text of `j` (compact for indent < 0), never throwing on bytes that are not UTF-8:
// they are replaced by U+FFFD.
std::string json_text(const nlohmann::json& j, int indent = -1);

// The longest asv benchmark name (program.benchmark) pitot accepts, in bytes. asv publish writes
// one file per name, `<name>.<track>.json` for a throughput track, and a file name of more than
// 255 bytes makes it fail for the whole database; 200 leaves room for the longest track suffix
// (".percent_of_peak_bandwidth", 26 bytes) and ".json".
inline constexpr std::size_t kMaxAsvNameBytes = 200;

// Why `name` cannot name a benchmark, "" when it can: empty, not UTF-8, ending in '.<track>' (the
// asv key of another benchmark's throughput track), or holding a character asv replaces in file names.
std::string benchmark_name_problem(const std::string& name);

// Why the asv key program.name (or `own_key`, when the benchmark names its key itself) is too
// long for asv's file names, "" when it is not.
std::string asv_name_length_problem(const std::string& program, const std::string& name, const std::string& own_key = "");

// Why an axis value cannot be stored, "" when it can: a float that is not finite (JSON has no NaN
// or infinity, and asv's params could not be read back), a string that is not UTF-8.
std::string axis_value_problem(const AxisValue& value);
// The first problem of an axis (its name, then its values) as "axis 'n' ...", "" when none.
std::string axis_problem(const Axis& axis);

}  // namespace pitot

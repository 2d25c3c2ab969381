#include <pitot/detail/axis_repr.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pitot {
namespace {

// Python's repr of a float: the shortest string that reads back to the same double,
// with ".0" for integral values and "inf"/"nan" spelled as Python spells them.
std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest round-tripping digits, then Python's layout: plain for 1e-4 <= |v| < 1e16.
  char buf[64];
  for (int precision = 0; precision <= 16; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string mantissa = buf;
  bool negative = false;
  int exponent = std::atoi(mantissa.c_str() + mantissa.find('e') + 1);
  mantissa.resize(mantissa.find('e'));
  if (mantissa[0] == '-') {
    negative = true;
    mantissa.erase(0, 1);
  }
  // Built with append: GCC 12 warns falsely (-Wrestrict, bug 105329) on operator+ and on
  // assigning short literals here.
  std::string digits(1, mantissa[0]);
  if (mantissa.size() > 2) digits.append(mantissa, 2);
  std::string out(negative ? 1 : 0, '-');
  if (exponent >= 16 || exponent < -4) {
    out.push_back(digits[0]);
    if (digits.size() > 1) out.append(".").append(digits, 1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out.append(e);
  }
  if (exponent < 0) {
    out.append("0.").append(static_cast<std::size_t>(-exponent - 1), '0').append(digits);
  } else {
    auto int_len = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= int_len) {
      out.append(digits).append(int_len - digits.size(), '0').append(".0");
    } else {
      out.append(digits, 0, int_len).append(".").append(digits, int_len);
    }
  }
  return out;
}

std::string string_repr(const std::string& s) {
  // Python prefers single quotes unless the string holds a single quote and no double quote.
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == static_cast<unsigned char>(quote)) out += std::string("\\") + quote;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  out += quote;
  return out;
}

}  // namespace

std::string python_repr(const AxisValue& value) {
  if (auto i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (auto d = std::get_if<double>(&value)) return float_repr(*d);
  return string_repr(std::get<std::string>(value));
}

std::string display_value(const AxisValue& value, AxisKind kind) {
  if (auto i = std::get_if<std::int64_t>(&value)) {
    if (kind == AxisKind::Pow2 && *i > 0) {
      int e = 0;
      while ((std::int64_t{1} << e) < *i) ++e;
      return "2^" + std::to_string(e);
    }
    return std::to_string(*i);
  }
  if (auto d = std::get_if<double>(&value)) return float_repr(*d);
  return std::get<std::string>(value);
}

const char* axis_kind_name(AxisKind kind) {
  switch (kind) {
    case AxisKind::Int: return "int";
    case AxisKind::Float: return "float";
    case AxisKind::String: return "string";
    case AxisKind::Pow2: return "pow2";
  }
  return "int";
}

}  // namespace pitot

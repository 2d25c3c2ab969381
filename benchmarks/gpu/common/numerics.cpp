#include "numerics.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace suite {
namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float float_of(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The parameters of one FP8 format.
struct Layout {
  int mantissa_bits;
  int bias;
  float max;
  std::uint8_t nan;  // the positive NaN code
};

Layout layout(Fp8 format) {
  // E4M3 (OCP "fn"): no infinities, S.1111.111 is NaN, so the largest finite is 1.75 * 2^8.
  // E5M2: IEEE-like, exponent 31 holds inf/NaN, the largest finite is 1.75 * 2^15.
  return format == Fp8::E4M3 ? Layout{3, 7, 448.0f, 0x7F} : Layout{2, 15, 57344.0f, 0x7F};
}

}  // namespace

std::uint16_t bf16_from_float(float x) {
  std::uint32_t u = bits_of(x);
  if (std::isnan(x)) return static_cast<std::uint16_t>((u >> 16) | 0x0040);  // keep it a (quiet) NaN
  u += 0x7FFF + ((u >> 16) & 1);                                             // round to nearest, ties to even
  return static_cast<std::uint16_t>(u >> 16);
}

float float_from_bf16(std::uint16_t bits) { return float_of(static_cast<std::uint32_t>(bits) << 16); }

Fp8 fp8_format(std::string_view name) {
  if (name == "e4m3") return Fp8::E4M3;
  if (name == "e5m2") return Fp8::E5M2;
  throw std::invalid_argument("unknown FP8 format '" + std::string(name) + "' (known: e4m3, e5m2)");
}

const char* fp8_name(Fp8 format) { return format == Fp8::E4M3 ? "e4m3" : "e5m2"; }

float fp8_max(Fp8 format) { return layout(format).max; }

std::uint8_t fp8_from_float(float x, Fp8 format) {
  const Layout f = layout(format);
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x)) return static_cast<std::uint8_t>(sign | f.nan);
  if (std::isinf(x)) return static_cast<std::uint8_t>(sign | fp8_from_float(f.max, format));
  const double a = std::fabs(static_cast<double>(x));
  const int min_exponent = 1 - f.bias;  // of the smallest normal value
  // Quantum (spacing) of the grid at a: 2^(e - mantissa_bits), never below the subnormal step.
  int e = a > 0 ? std::ilogb(a) : min_exponent;
  if (e < min_exponent) e = min_exponent;
  const double quantum = std::ldexp(1.0, e - f.mantissa_bits);
  double r = std::nearbyint(a / quantum) * quantum;  // the default rounding mode: ties to even
  if (r > f.max) r = f.max;                          // saturate (inf included)
  if (r == 0) return sign;
  int exponent = std::ilogb(r);
  if (exponent < min_exponent) {  // subnormal: exponent field 0
    const auto mantissa = static_cast<std::uint8_t>(std::lround(std::ldexp(r, f.mantissa_bits - min_exponent)));
    return static_cast<std::uint8_t>(sign | mantissa);
  }
  const auto mantissa = static_cast<std::uint8_t>(
      std::lround(std::ldexp(r, f.mantissa_bits - exponent)) - (1 << f.mantissa_bits));
  const auto field = static_cast<std::uint8_t>(exponent + f.bias);
  return static_cast<std::uint8_t>(sign | (field << f.mantissa_bits) | mantissa);
}

float float_from_fp8(std::uint8_t bits, Fp8 format) {
  const Layout f = layout(format);
  const bool negative = (bits & 0x80) != 0;
  const int field = (bits & 0x7F) >> f.mantissa_bits;
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int max_field = (1 << (7 - f.mantissa_bits)) - 1;
  float value;
  if (format == Fp8::E4M3 && field == max_field && mantissa == (1 << f.mantissa_bits) - 1) {
    value = std::numeric_limits<float>::quiet_NaN();
  } else if (format == Fp8::E5M2 && field == max_field) {
    value = mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else if (field == 0) {
    value = static_cast<float>(std::ldexp(mantissa, 1 - f.bias - f.mantissa_bits));
  } else {
    value = static_cast<float>(std::ldexp((1 << f.mantissa_bits) + mantissa, field - f.bias - f.mantissa_bits));
  }
  return negative ? -value : value;
}

float fp8_spacing(float x, Fp8 format) {
  const Layout f = layout(format);
  const double a = std::fabs(static_cast<double>(x));
  int e = a > 0 ? std::ilogb(a) : 1 - f.bias;
  if (e < 1 - f.bias) e = 1 - f.bias;
  return static_cast<float>(std::ldexp(1.0, e - f.mantissa_bits));
}

}  // namespace suite

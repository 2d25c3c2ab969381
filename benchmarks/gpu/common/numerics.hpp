// Host-side number formats: bf16 and the two FP8 formats, bit-compatible with CUDA's conversions
// (round to nearest even; FP8 saturates to its largest finite value, as __NV_SATFINITE does).
// The references decode what the GPU holds with these, so no CUDA header is needed here.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

// Functions usable from both host and device code (the random fill, the software FP8 conversions).
#if defined(__CUDACC__) || defined(__HIP__)
#define SUITE_HOST_DEVICE __host__ __device__
#else
#define SUITE_HOST_DEVICE
#endif

namespace suite {

std::uint16_t bf16_from_float(float x);
float float_from_bf16(std::uint16_t bits);
// x rounded to bf16 and back.
inline float round_to_bf16(float x) { return float_from_bf16(bf16_from_float(x)); }

enum class Fp8 { E4M3, E5M2 };
// "e4m3" / "e5m2"; throws std::invalid_argument otherwise.
Fp8 fp8_format(std::string_view name);
const char* fp8_name(Fp8 format);
float fp8_max(Fp8 format);  // 448 and 57344
std::uint8_t fp8_from_float(float x, Fp8 format);
float float_from_fp8(std::uint8_t bits, Fp8 format);
// Distance between adjacent FP8 values around |x| (the subnormal step below the normal range).
float fp8_spacing(float x, Fp8 format);

// The same conversions as fp8_from_float / float_from_fp8 (bit for bit: tests/suite checks it), in
// integer arithmetic that device code can run. The HIP kernels use them: ROCm 5 has no FP8 types,
// and MI300's hardware FP8 is the FNUZ variant, not the OCP formats CUDA's conversions produce.
// std::bit_cast is host-only for nvcc; memcpy is a builtin for every compiler here, host and device.
SUITE_HOST_DEVICE inline std::uint32_t float_bits(float x) {
  std::uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}
SUITE_HOST_DEVICE inline float float_with_bits(std::uint32_t bits) {
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

SUITE_HOST_DEVICE inline std::uint32_t shift_right_to_nearest_even(std::uint32_t value, int shift) {
  if (shift <= 0) return value;
  if (shift > 31) return 0;  // below half of the smallest step
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
}

// Round to nearest even, saturating to the largest finite value (as __NV_SATFINITE); NaN stays NaN.
SUITE_HOST_DEVICE inline std::uint8_t encode_fp8(float x, Fp8 format) {
  const int mantissa_bits = format == Fp8::E4M3 ? 3 : 2;
  const int bias = format == Fp8::E4M3 ? 7 : 15;
  const std::uint32_t max_code = format == Fp8::E4M3 ? 0x7E : 0x7B;  // 448 and 57344
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80);
  const std::uint32_t magnitude = bits & 0x7FFFFFFF;
  if (magnitude > 0x7F800000) return static_cast<std::uint8_t>(sign | 0x7F);       // NaN
  if (magnitude == 0x7F800000) return static_cast<std::uint8_t>(sign | max_code);  // inf saturates
  const int field = static_cast<int>(magnitude >> 23);
  const int exponent = field == 0 ? -126 : field - 127;
  const int min_exponent = 1 - bias;  // of the smallest normal FP8 value
  std::uint32_t code;
  if (exponent >= min_exponent) {
    // Round exponent and mantissa together (a carry moves up the exponent), then rebias.
    code = shift_right_to_nearest_even(magnitude, 23 - mantissa_bits) -
           (static_cast<std::uint32_t>(127 - bias) << mantissa_bits);
  } else {
    // Subnormal in FP8: a count of the smallest step 2^(min_exponent - mantissa_bits).
    const std::uint32_t significand = field == 0 ? (magnitude & 0x7FFFFF) : ((magnitude & 0x7FFFFF) | 0x800000);
    code = shift_right_to_nearest_even(significand, 23 + min_exponent - mantissa_bits - exponent);
  }
  if (code > max_code) code = max_code;
  return static_cast<std::uint8_t>(sign | code);
}

SUITE_HOST_DEVICE inline float decode_fp8(std::uint8_t bits, Fp8 format) {
  const int mantissa_bits = format == Fp8::E4M3 ? 3 : 2;
  const int bias = format == Fp8::E4M3 ? 7 : 15;
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x80) << 24;
  const int field = (bits & 0x7F) >> mantissa_bits;
  const std::uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
  std::uint32_t magnitude;
  if (format == Fp8::E4M3 && (bits & 0x7F) == 0x7F) {
    magnitude = 0x7FC00000;  // NaN
  } else if (format == Fp8::E5M2 && field == 31) {
    magnitude = mantissa == 0 ? 0x7F800000 : 0x7FC00000;  // inf, NaN
  } else if (field == 0) {
    // mantissa * 2^(1 - bias - mantissa_bits): exact in float.
    const float step = float_with_bits(static_cast<std::uint32_t>(127 + 1 - bias - mantissa_bits) << 23);
    magnitude = float_bits(static_cast<float>(mantissa) * step);
  } else {
    magnitude = (static_cast<std::uint32_t>(field - bias + 127) << 23) | (mantissa << (23 - mantissa_bits));
  }
  return float_with_bits(sign | magnitude);
}

// A reproducible uniform value in [lo, hi) for element `index` of the buffer seeded `seed`:
// the device fills buffers with it and tests can predict them.
SUITE_HOST_DEVICE inline float uniform_at(std::uint64_t seed, std::uint64_t index, float lo, float hi) {
  // splitmix64 of (seed, index): independent values without a generator state.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const float unit = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);  // 24 bits: [0, 1)
  return lo + (hi - lo) * unit;
}

}  // namespace suite

// Host-side number formats: bf16 and the two FP8 formats, bit-compatible with CUDA's conversions
// (round to nearest even; FP8 saturates to its largest finite value, as __NV_SATFINITE does).
// The references decode what the GPU holds with these, so no CUDA header is needed here.
#pragma once

#include <cstdint>
#include <string_view>

// Functions usable from both host and device code (the random fill).
#if defined(__CUDACC__)
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

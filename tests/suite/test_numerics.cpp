// Host number formats: they decode what the GPU holds, so they must agree with CUDA bit for bit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "numerics.hpp"

namespace {

using suite::Fp8;

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(suite::bf16_from_float(1.0f), 0x3F80);
  EXPECT_EQ(suite::bf16_from_float(-2.0f), 0xC000);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  EXPECT_EQ(suite::bf16_from_float(1.0f + 1.0f / 256), 0x3F80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
  EXPECT_EQ(suite::bf16_from_float(1.0f + 3.0f / 256), 0x3F82);
  EXPECT_FLOAT_EQ(suite::float_from_bf16(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(suite::float_from_bf16(suite::bf16_from_float(NAN))));
}

TEST(Fp8, KnownE4M3Codes) {
  EXPECT_EQ(suite::fp8_from_float(1.0f, Fp8::E4M3), 0x38);
  EXPECT_EQ(suite::fp8_from_float(-1.0f, Fp8::E4M3), 0xB8);
  EXPECT_EQ(suite::fp8_from_float(0.5f, Fp8::E4M3), 0x30);
  EXPECT_EQ(suite::fp8_from_float(448.0f, Fp8::E4M3), 0x7E);
  EXPECT_EQ(suite::fp8_from_float(0.001953125f, Fp8::E4M3), 0x01);  // 2^-9, the smallest subnormal
  EXPECT_EQ(suite::fp8_from_float(0.0f, Fp8::E4M3), 0x00);
  EXPECT_EQ(suite::fp8_from_float(1e-5f, Fp8::E4M3), 0x00);  // below half the smallest: zero
  EXPECT_EQ(suite::fp8_from_float(std::nanf(""), Fp8::E4M3) & 0x7F, 0x7F);
}

TEST(Fp8, KnownE5M2Codes) {
  EXPECT_EQ(suite::fp8_from_float(1.0f, Fp8::E5M2), 0x3C);
  EXPECT_EQ(suite::fp8_from_float(57344.0f, Fp8::E5M2), 0x7B);
  EXPECT_EQ(suite::fp8_from_float(-0.25f, Fp8::E5M2), 0xB4);
  EXPECT_EQ(suite::fp8_from_float(std::ldexp(1.0f, -16), Fp8::E5M2), 0x01);  // smallest subnormal
}

TEST(Fp8, SaturatesToTheLargestFinite) {
  EXPECT_EQ(suite::fp8_from_float(500.0f, Fp8::E4M3), 0x7E);
  EXPECT_EQ(suite::fp8_from_float(-1e9f, Fp8::E4M3), 0xFE);
  EXPECT_EQ(suite::fp8_from_float(INFINITY, Fp8::E4M3), 0x7E);
  EXPECT_EQ(suite::fp8_from_float(1e9f, Fp8::E5M2), 0x7B);
  EXPECT_EQ(suite::fp8_from_float(-INFINITY, Fp8::E5M2), 0xFB);
}

TEST(Fp8, TiesGoToEven) {
  // E4M3 around 1: steps of 1/8. 1.0625 is halfway between 1.0 (even) and 1.125 (odd).
  EXPECT_FLOAT_EQ(suite::float_from_fp8(suite::fp8_from_float(1.0625f, Fp8::E4M3), Fp8::E4M3), 1.0f);
  // 1.1875 is halfway between 1.125 (odd) and 1.25 (even).
  EXPECT_FLOAT_EQ(suite::float_from_fp8(suite::fp8_from_float(1.1875f, Fp8::E4M3), Fp8::E4M3), 1.25f);
  EXPECT_FLOAT_EQ(suite::float_from_fp8(suite::fp8_from_float(1.19f, Fp8::E4M3), Fp8::E4M3), 1.25f);
  // Rounding up across a binade: 15.5 is halfway between 15 and 16 (even: 16).
  EXPECT_FLOAT_EQ(suite::float_from_fp8(suite::fp8_from_float(15.5f, Fp8::E4M3), Fp8::E4M3), 16.0f);
}

TEST(Fp8, EveryFiniteCodeRoundTrips) {
  for (Fp8 format : {Fp8::E4M3, Fp8::E5M2}) {
    int finite = 0;
    for (int code = 0; code < 256; ++code) {
      const float v = suite::float_from_fp8(static_cast<std::uint8_t>(code), format);
      if (!std::isfinite(v)) continue;
      ++finite;
      if (v == 0) continue;  // -0 and +0 both decode to zero
      EXPECT_EQ(suite::fp8_from_float(v, format), code) << suite::fp8_name(format) << " code " << code;
      EXPECT_LE(std::fabs(v), suite::fp8_max(format));
    }
    // E4M3 has 2 NaN codes; E5M2 has 2 infinities and 6 NaNs.
    EXPECT_EQ(finite, format == Fp8::E4M3 ? 254 : 248) << suite::fp8_name(format);
  }
}

TEST(Fp8, SpacingMatchesNeighbours) {
  EXPECT_FLOAT_EQ(suite::fp8_spacing(1.0f, Fp8::E4M3), 0.125f);
  EXPECT_FLOAT_EQ(suite::fp8_spacing(300.0f, Fp8::E4M3), 32.0f);
  EXPECT_FLOAT_EQ(suite::fp8_spacing(0.0f, Fp8::E4M3), 0.001953125f);
  EXPECT_FLOAT_EQ(suite::fp8_spacing(1.0f, Fp8::E5M2), 0.25f);
  EXPECT_EQ(suite::fp8_format("e5m2"), Fp8::E5M2);
  EXPECT_THROW(suite::fp8_format("e3m4"), std::invalid_argument);
}

// encode_fp8 / decode_fp8 (integer arithmetic, what the HIP kernels run) against the reference.
TEST(Fp8Software, DecodesEveryCodeAsTheReference) {
  for (Fp8 format : {Fp8::E4M3, Fp8::E5M2})
    for (int code = 0; code < 256; ++code) {
      const auto bits = static_cast<std::uint8_t>(code);
      const float want = suite::float_from_fp8(bits, format), got = suite::decode_fp8(bits, format);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << suite::fp8_name(format) << " code " << code;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << suite::fp8_name(format) << " code " << code;
      } else {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want))
            << suite::fp8_name(format) << " code " << code;
      }
    }
}

TEST(Fp8Software, EncodesAsTheReference) {
  auto expect_same = [](float x, Fp8 format) {
    ASSERT_EQ(suite::encode_fp8(x, format), suite::fp8_from_float(x, format))
        << suite::fp8_name(format) << " x = " << x << " (bits 0x" << std::hex << std::bit_cast<std::uint32_t>(x) << ")";
  };
  std::mt19937 random(12345);
  for (Fp8 format : {Fp8::E4M3, Fp8::E5M2}) {
    // Every bf16 value (all exponents, NaNs and infinities included).
    for (std::uint32_t high = 0; high < 0x10000; ++high) expect_same(std::bit_cast<float>(high << 16), format);
    // Each FP8 value, the midpoints to its neighbours (ties) and one float either side of them.
    for (int code = 0; code < 0x7F; ++code) {
      const float v = suite::float_from_fp8(static_cast<std::uint8_t>(code), format);
      const float next = suite::float_from_fp8(static_cast<std::uint8_t>(code + 1), format);
      if (!std::isfinite(v)) continue;
      const float mid = std::isfinite(next) ? (v + next) / 2 : v * 1.0625f;
      for (float x : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
        expect_same(x, format);
        expect_same(-x, format);
      }
    }
    // Random bit patterns, and random values in the FP8 range.
    for (int i = 0; i < 200000; ++i) expect_same(std::bit_cast<float>(static_cast<std::uint32_t>(random())), format);
    std::uniform_real_distribution<float> in_range(-2 * suite::fp8_max(format), 2 * suite::fp8_max(format));
    for (int i = 0; i < 200000; ++i) expect_same(in_range(random), format);
  }
}

TEST(Random, UniformIsReproducibleInRangeAndNotConstant) {
  double sum = 0;
  float lo = 1, hi = -1;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float v = suite::uniform_at(7, i, -1.0f, 1.0f);
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_NEAR(sum / 100000, 0.0, 0.01);
  EXPECT_LT(lo, -0.99f);
  EXPECT_GT(hi, 0.99f);
  EXPECT_EQ(suite::uniform_at(7, 123, 0, 1), suite::uniform_at(7, 123, 0, 1));
  EXPECT_NE(suite::uniform_at(7, 123, 0, 1), suite::uniform_at(8, 123, 0, 1));
}

}  // namespace

// The CPU references and the comparison that fails a GPU point: small cases worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "reference.hpp"

namespace {

TEST(Compare, WithinAndOutsideTolerance) {
  const std::vector<double> want = {1.0, -2.0, 100.0};
  const std::vector<double> close = {1.001, -2.001, 100.5};
  EXPECT_TRUE(suite::compare(close, want, 0.01, 0.0).ok());
  const std::vector<double> off = {1.001, -2.5, 100.5};
  const auto c = suite::compare(off, want, 0.01, 0.0);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.wrong, 1);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_NEAR(c.max_abs_error, 0.5, 1e-12);
}

TEST(Compare, NanIsWrongAndNothingCheckedIsNotOk) {
  const std::vector<double> want = {1.0, 2.0};
  const std::vector<double> got = {1.0, NAN};
  const auto c = suite::compare(got, want, 0.1, 0.1);
  EXPECT_EQ(c.wrong, 1);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_FALSE(suite::compare(std::vector<double>{}, std::vector<double>{}, 0.1, 0.1).ok());
  EXPECT_THROW(suite::compare(got, std::vector<double>{1.0}, 0.1, 0.1), std::invalid_argument);
}

TEST(Compare, RequireThrowsWithTheErrorSize) {
  const std::vector<double> want = {1.0, 2.0, 3.0};
  const std::vector<double> got = {1.0, 2.25, 3.0};
  try {
    suite::require(suite::compare(got, want, 0.0, 0.01), "gemm output");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("gemm output: 1 of 3 values wrong"), std::string::npos) << text;
    EXPECT_NE(text.find("got 2.25, want 2 (error 0.25, allowed 0.01)"), std::string::npos) << text;
  }
  EXPECT_NO_THROW(suite::require(suite::compare(want, want, 0.0, 0.0), "same"));
}

TEST(SampleIndices, SpreadWithBothEnds) {
  EXPECT_EQ(suite::sample_indices(100, 5), (std::vector<std::int64_t>{0, 24, 49, 74, 99}));
  EXPECT_EQ(suite::sample_indices(3, 8), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(suite::sample_indices(10, 1), (std::vector<std::int64_t>{0}));
  EXPECT_TRUE(suite::sample_indices(0, 4).empty());
}

TEST(Gemm, EntriesAndMagnitudes) {
  // A rows: [1 2], [3 -4]; W rows: [5 6], [-1 1]; k = 2.
  const std::vector<float> a = {1, 2, 3, -4};
  const std::vector<float> w = {5, 6, -1, 1};
  const auto s = suite::gemm_reference(a, w, 2, 0.5);
  EXPECT_EQ(s.value, (std::vector<double>{0.5 * 17, 0.5 * 1, 0.5 * -9, 0.5 * -7}));
  EXPECT_EQ(s.magnitude, (std::vector<double>{0.5 * 17, 0.5 * 3, 0.5 * 39, 0.5 * 7}));
  EXPECT_THROW(suite::gemm_reference(a, std::vector<float>{1, 2, 3}, 2, 1.0), std::invalid_argument);
}

TEST(Gemm, ToleranceCatchesATransposedOperand) {
  // The tolerance must tell a right answer from a plausible wrong one at a real K.
  const std::int64_t k = 4096;
  std::vector<float> a(2 * k), w(2 * k);
  for (std::int64_t i = 0; i < 2 * k; ++i) {
    a[i] = suite::uniform_at(1, i, -1, 1);
    w[i] = suite::uniform_at(2, i, -1, 1);
  }
  const auto s = suite::gemm_reference(a, w, k, 1.0);
  std::vector<double> atol(s.magnitude.size());
  for (std::size_t i = 0; i < atol.size(); ++i) atol[i] = suite::kGemmAtol * s.magnitude[i];
  // Right up to bf16 output rounding: passes.
  std::vector<double> rounded;
  for (double v : s.value) rounded.push_back(suite::round_to_bf16(static_cast<float>(v)));
  EXPECT_TRUE(suite::compare(rounded, s.value, suite::kBf16Rtol, atol).ok());
  // Row and column swapped (C^T read as C): fails.
  const std::vector<double> swapped = {s.value[0], s.value[2], s.value[1], s.value[3]};
  EXPECT_FALSE(suite::compare(swapped, s.value, suite::kBf16Rtol, atol).ok());
}

TEST(Norms, RmsNormByHand) {
  // mean(x^2) = (9 + 16) / 2 = 12.5; eps 0: y = x / sqrt(12.5) * gamma.
  const std::vector<float> x = {3, -4}, gamma = {1, 2};
  const auto y = suite::rmsnorm_reference(x, gamma, 0.0);
  EXPECT_NEAR(y[0], 3 / std::sqrt(12.5), 1e-12);
  EXPECT_NEAR(y[1], -8 / std::sqrt(12.5), 1e-12);
}

TEST(Norms, LayerNormGivesZeroMeanUnitVariance) {
  std::vector<float> x(1000), ones(1000, 1.0f), zeros(1000, 0.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 3.0f + suite::uniform_at(5, i, -2, 2);
  const auto y = suite::layernorm_reference(x, ones, zeros, 0.0);
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / 1000;
  double var = 0;
  for (double v : y) var += (v - mean) * (v - mean);
  EXPECT_NEAR(mean, 0.0, 1e-12);
  EXPECT_NEAR(var / 1000, 1.0, 1e-9);
  const std::vector<float> beta(1000, 0.5f);
  EXPECT_NEAR(suite::layernorm_reference(x, ones, beta, 0.0)[7], y[7] + 0.5, 1e-12);
}

TEST(Cast, CurrentScaling) {
  const std::vector<float> x = {0.5f, -3.5f, 2.0f};
  EXPECT_EQ(suite::amax_reference(x), 3.5f);
  EXPECT_EQ(suite::current_scale(3.5f, suite::Fp8::E4M3), 448.0f / 3.5f);
  EXPECT_EQ(suite::current_scale(0.0f, suite::Fp8::E5M2), 1.0f);
  // The scaled amax lands on the largest FP8 value.
  const float scale = suite::current_scale(3.5f, suite::Fp8::E4M3);
  EXPECT_EQ(suite::fp8_from_float(-3.5f * scale, suite::Fp8::E4M3), 0xFE);
}

TEST(Attention, OneKeyGivesItsValue) {
  const std::vector<float> q = {1, 2}, k = {3, 4, 100, 100}, v = {0.25f, -0.5f, 9, 9};
  // Causal at position 0: only key 0 is seen, whatever the later keys hold.
  const auto out = suite::attention_row_reference(q, k, v, 1, 0.7);
  EXPECT_DOUBLE_EQ(out[0], 0.25);
  EXPECT_DOUBLE_EQ(out[1], -0.5);
}

TEST(Attention, SoftmaxWeights) {
  // Logits scale * q.k: key 0 -> 0, key 1 -> ln 3. Weights 1/4 and 3/4.
  const std::vector<float> q = {1, 0};
  const std::vector<float> k = {0, 5, static_cast<float>(std::log(3.0)), 7};
  const std::vector<float> v = {1, 0, 0, 1};
  const auto out = suite::attention_row_reference(q, k, v, 2, 1.0);
  EXPECT_NEAR(out[0], 0.25, 1e-7);
  EXPECT_NEAR(out[1], 0.75, 1e-7);
  EXPECT_THROW(suite::attention_row_reference(q, k, v, 3, 1.0), std::invalid_argument);
}

TEST(Check, LibraryFailureNamesTheCallAndStatus) {
  try {
    suite::fail_library_call("cuBLASLt", "cublasLtMatmul(h, ...)", "CUBLAS_STATUS_NOT_SUPPORTED", "/a/b/bench_gemm.cu",
                             42);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "cuBLASLt call failed: cublasLtMatmul(h, ...): CUBLAS_STATUS_NOT_SUPPORTED (bench_gemm.cu:42)");
  }
}

}  // namespace

// The shape table: the numbers every GPU benchmark's points are named after.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "shapes.hpp"

namespace {

TEST(Shapes, Llama8bLayersAtTp1) {
  const auto& m = suite::dense_model("llama3.1-8b");
  EXPECT_EQ(suite::linear_shape(m, "qkv", 1).n, (32 + 2 * 8) * 128);
  EXPECT_EQ(suite::linear_shape(m, "qkv", 1).k, 4096);
  EXPECT_EQ(suite::linear_shape(m, "attn_out", 1).n, 4096);
  EXPECT_EQ(suite::linear_shape(m, "attn_out", 1).k, 4096);
  EXPECT_EQ(suite::linear_shape(m, "gate_up", 1).n, 2 * 14336);
  EXPECT_EQ(suite::linear_shape(m, "down", 1).k, 14336);
}

TEST(Shapes, TensorParallelSplitsTheRightDimension) {
  const auto& m = suite::dense_model("llama3.1-405b");
  // Column-parallel layers split N, row-parallel ones split K.
  EXPECT_EQ(suite::linear_shape(m, "qkv", 8).n, (128 + 16) * 128 / 8);
  EXPECT_EQ(suite::linear_shape(m, "qkv", 8).k, 16384);
  EXPECT_EQ(suite::linear_shape(m, "attn_out", 8).n, 16384);
  EXPECT_EQ(suite::linear_shape(m, "attn_out", 8).k, 128 * 128 / 8);
  EXPECT_EQ(suite::linear_shape(m, "gate_up", 8).n, 2 * 53248 / 8);
  EXPECT_EQ(suite::linear_shape(m, "down", 8).k, 53248 / 8);
}

TEST(Shapes, EveryModelLayerAndTpIsAValidGemm) {
  // FP8 GEMMs need K and N divisible by 16 (16-byte aligned rows): every table shape must be.
  for (const auto& name : suite::dense_model_names())
    for (const auto& layer : suite::linear_layer_names())
      for (auto tp : suite::tensor_parallel_degrees()) {
        const auto s = suite::linear_shape(suite::dense_model(name), layer, tp);
        EXPECT_GT(s.n, 0);
        EXPECT_EQ(s.n % 16, 0) << name << " " << layer << " tp=" << tp;
        EXPECT_EQ(s.k % 16, 0) << name << " " << layer << " tp=" << tp;
      }
}

TEST(Shapes, UnknownNamesAreRejectedWithTheKnownOnes) {
  try {
    suite::dense_model("llama-9b");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("llama3.1-8b"), std::string::npos) << e.what();
  }
  EXPECT_THROW(suite::linear_shape(suite::dense_model("qwen2.5-7b"), "mlp", 1), std::invalid_argument);
  EXPECT_THROW(suite::linear_shape(suite::dense_model("qwen2.5-7b"), "qkv", 5), std::invalid_argument);  // 4608 / 5
  EXPECT_THROW(suite::moe_model("mixtral"), std::invalid_argument);
}

TEST(Shapes, MoeGridOfTheIssue) {
  const auto& v3 = suite::moe_model("deepseek-v3");
  const auto up = suite::moe_shape(v3, "gate_up", 4096, 8);
  EXPECT_EQ(up.groups, 256 / 8);
  EXPECT_EQ(up.total_rows, 4096 * 8);  // every GPU holds M tokens; its experts get M * top_k rows
  EXPECT_EQ(up.n, 2 * 2048);
  EXPECT_EQ(up.k, 7168);
  const auto down = suite::moe_shape(v3, "down", 4096, 32);
  EXPECT_EQ(down.groups, 8);
  EXPECT_EQ(down.n, 7168);
  EXPECT_EQ(down.k, 2048);
  const auto& lite = suite::moe_model("deepseek-v2-lite");
  EXPECT_EQ(suite::moe_shape(lite, "gate_up", 512, 16).n, 2 * 1408);
  EXPECT_EQ(suite::moe_shape(lite, "gate_up", 512, 16).k, 2048);
  EXPECT_EQ(suite::moe_shape(suite::moe_model("deepseek-v2"), "down", 512, 32).groups, 5);
  EXPECT_EQ(suite::moe_shape(suite::moe_model("grok-2-like"), "gate_up", 512, 8).groups, 1);
  // Grok-2's 8 experts do not split over 16 GPUs; the benchmark skips those points.
  EXPECT_THROW(suite::moe_shape(suite::moe_model("grok-2-like"), "gate_up", 512, 16), std::invalid_argument);
  EXPECT_THROW(suite::moe_shape(v3, "qkv", 1024, 8), std::invalid_argument);
  EXPECT_EQ(suite::expert_parallel_degrees(), (std::vector<std::int64_t>{8, 16, 32}));
}

TEST(Shapes, RoutingKeepsEveryRowAndSkewsAsDocumented) {
  for (const auto& routing : suite::routing_names())
    for (std::int64_t groups : {1, 2, 5, 8, 32})
      for (std::int64_t total : {3072, 4096, 32768}) {
        const auto rows = suite::routed_rows(total, groups, routing);
        ASSERT_EQ(static_cast<std::int64_t>(rows.size()), groups);
        EXPECT_EQ(std::accumulate(rows.begin(), rows.end(), std::int64_t{0}), total) << routing << " " << groups;
        for (auto r : rows) EXPECT_GE(r, 1);
      }
  const auto balanced = suite::routed_rows(100, 8, "balanced");
  EXPECT_EQ(*std::max_element(balanced.begin(), balanced.end()) - *std::min_element(balanced.begin(), balanced.end()), 1);
  // Skewed over 32 experts: the first takes about 32%, the first four about 61%, decreasing.
  const auto skewed = suite::routed_rows(32768, 32, "skewed");
  EXPECT_NEAR(static_cast<double>(skewed[0]) / 32768, 0.32, 0.01);
  EXPECT_NEAR(static_cast<double>(skewed[0] + skewed[1] + skewed[2] + skewed[3]) / 32768, 0.61, 0.01);
  EXPECT_TRUE(std::is_sorted(skewed.rbegin(), skewed.rend()));
  EXPECT_THROW(suite::routed_rows(100, 8, "uniform"), std::invalid_argument);
  EXPECT_THROW(suite::routed_rows(4, 8, "balanced"), std::invalid_argument);
}

TEST(Shapes, PassesAndMasks) {
  EXPECT_EQ(suite::pass_names(), (std::vector<std::string>{"fwd", "fwd+bwd", "bwd"}));
  EXPECT_TRUE(suite::parse_pass("fwd+bwd").forward && suite::parse_pass("fwd+bwd").backward);
  EXPECT_FALSE(suite::parse_pass("bwd").forward);
  EXPECT_THROW(suite::parse_pass("backward"), std::invalid_argument);
  EXPECT_THROW(suite::attention_mask("sliding", 0), std::invalid_argument);
  // Causal: query i sees keys 0..i; a window of 3 keeps i-2..i; padding cuts at the sequence's length.
  const auto causal = suite::attention_mask("causal", 0);
  EXPECT_EQ(suite::visible_keys(causal, 5, 10).first, 0);
  EXPECT_EQ(suite::visible_keys(causal, 5, 10).last, 6);
  const auto window = suite::attention_mask("causal", 3);
  EXPECT_EQ(suite::visible_keys(window, 5, 10).first, 3);
  EXPECT_EQ(suite::visible_keys(window, 1, 10).first, 0);
  const auto padding = suite::attention_mask("padding", 0);
  EXPECT_EQ(suite::visible_keys(padding, 2, 7).last, 7);
  EXPECT_EQ(suite::visible_keys(padding, 8, 7).last, 0);  // a padded query sees nothing
  EXPECT_EQ(suite::padded_length(4096, 0, 2), 4096);
  EXPECT_EQ(suite::padded_length(4096, 1, 2), 4096 - 1024 - 37);
}

TEST(Shapes, TheQueriesThatSeeAKeyAreTheOnesWhoseKeysHoldIt) {
  // seeing_queries is visible_keys turned around: the same pairs, counted from the key's side.
  for (const auto& name : suite::attention_mask_names())
    for (std::int64_t window : {0, 3})
      for (std::int64_t length : {1, 7, 10}) {
        const auto mask = suite::attention_mask(name, window);
        for (std::int64_t j = -1; j <= 11; ++j) {
          const auto seen = suite::seeing_queries(mask, j, length);
          for (std::int64_t i = -1; i <= 11; ++i) {
            const auto keys = suite::visible_keys(mask, i, length);
            const bool sees = i >= 0 && i < length && j >= keys.first && j < keys.last;
            EXPECT_EQ(sees, i >= seen.first && i < seen.last)
                << name << " window " << window << " length " << length << " key " << j << " query " << i;
          }
        }
      }
}

TEST(Shapes, AttentionPairsCountTheVisibleEntries) {
  // Against a brute-force count of the mask's definition.
  for (const auto& name : suite::attention_mask_names())
    for (std::int64_t window : {0, 100}) {
      const auto mask = suite::attention_mask(name, window);
      double brute = 0;
      for (std::int64_t b = 0; b < 2; ++b) {
        const std::int64_t length = mask.padding ? suite::padded_length(512, b, 2) : 512;
        for (std::int64_t i = 0; i < 512; ++i)
          for (std::int64_t j = 0; j < 512; ++j)
            brute += (i < length && j < length && (!mask.causal || j <= i) && (window == 0 || j > i - window)) ? 1 : 0;
      }
      EXPECT_EQ(suite::attention_pairs(mask, 2, 512), brute) << name << " window " << window;
    }
  EXPECT_EQ(suite::attention_pairs(suite::attention_mask("none", 0), 8, 1024), 8.0 * 1024 * 1024);
  EXPECT_EQ(suite::attention_pairs(suite::attention_mask("causal", 0), 1, 1024), 1024.0 * 1025 / 2);
  // Backward is 2.5 forwards (five products against two).
  EXPECT_DOUBLE_EQ(suite::attention_flops(100, 32, 128, {false, true}), 2.5 * suite::attention_flops(100, 32, 128, {true, false}));
  EXPECT_DOUBLE_EQ(suite::attention_flops(100, 32, 128, {true, false}), 4.0 * 100 * 32 * 128);
}

TEST(Shapes, AxesHoldTheIssueValues) {
  EXPECT_EQ(suite::token_counts(), (std::vector<std::int64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(suite::tensor_parallel_degrees(), (std::vector<std::int64_t>{1, 8}));
  EXPECT_EQ(suite::hidden_sizes(), (std::vector<std::int64_t>{3584, 4096, 8192, 16384}));
  for (const auto& name : suite::attention_model_names()) EXPECT_NO_THROW(suite::dense_model(name));
  for (auto s : suite::sequence_lengths()) EXPECT_EQ(suite::attention_batch(s) * s, 8192);
}

TEST(Shapes, WorkCounts) {
  EXPECT_DOUBLE_EQ(suite::gemm_flops(8192, 8192, 8192), 2.0 * 8192.0 * 8192.0 * 8192.0);
  // Causal forward: half of 4 b h s^2 d.
  EXPECT_DOUBLE_EQ(suite::causal_attention_flops(2, 32, 4096, 128), 0.5 * 4 * 2 * 32 * 4096.0 * 4096.0 * 128);
}

}  // namespace

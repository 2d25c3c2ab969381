// The shape table: the numbers every GPU benchmark's points are named after.
#include <gtest/gtest.h>

#include <stdexcept>

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

TEST(Shapes, MoeBalancedRouting) {
  const auto& v3 = suite::moe_model("deepseek-v3");
  const auto up = suite::moe_shape(v3, "gate_up", 4096);
  EXPECT_EQ(up.groups, 256 / 8);
  EXPECT_EQ(up.rows, 4096 * 8 / 256);
  EXPECT_EQ(up.n, 2 * 2048);
  EXPECT_EQ(up.k, 7168);
  const auto down = suite::moe_shape(v3, "down", 4096);
  EXPECT_EQ(down.n, 7168);
  EXPECT_EQ(down.k, 2048);
  // 1024 tokens * 6 / 160 experts = 38.4: rounded up so every routed token has a row.
  EXPECT_EQ(suite::moe_shape(suite::moe_model("deepseek-v2"), "gate_up", 1024).rows, 39);
  EXPECT_THROW(suite::moe_shape(v3, "qkv", 1024), std::invalid_argument);
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

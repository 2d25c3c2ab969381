// The suite's one table of real model shapes: every GPU benchmark takes its sizes from here, so a
// point like gemm_bf16[model=llama3.1-70b,tp=8,layer=gate_up,M=4096] means the same matrix product
// in every program and every run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace suite {

// A dense decoder-only transformer (attention + gated MLP), as its config.json gives it.
struct DenseModel {
  std::string name;  // "llama3.1-8b"
  std::int64_t hidden;
  std::int64_t intermediate;  // MLP width (gate and up are each this wide)
  std::int64_t q_heads;
  std::int64_t kv_heads;
  std::int64_t head_dim;
};

// Llama-3.1 8B/70B/405B and Qwen2.5 7B/72B.
const std::vector<DenseModel>& dense_models();
std::vector<std::string> dense_model_names();
// Throws std::invalid_argument naming the known models when `name` is not one of them.
const DenseModel& dense_model(std::string_view name);

// The linear layers of one transformer block: C[M,N] = A[M,K] * W[N,K]^T (PyTorch's Linear).
// With tensor parallelism tp the column-parallel layers (qkv, gate_up) split N and the
// row-parallel ones (attn_out, down) split K, as Megatron-LM does:
//   qkv      N = (q_heads + 2 kv_heads) head_dim / tp   K = hidden
//   attn_out N = hidden                                K = q_heads head_dim / tp
//   gate_up  N = 2 intermediate / tp                   K = hidden
//   down     N = hidden                                K = intermediate / tp
// (The formula does not replicate KV heads when tp > kv_heads: Qwen2.5-7B at tp 8 is a
// shape study, not a deployment.)
struct LinearShape {
  std::int64_t n;
  std::int64_t k;
};
std::vector<std::string> linear_layer_names();  // qkv, attn_out, gate_up, down
// Throws std::invalid_argument for an unknown layer or a tp that does not divide the layer.
LinearShape linear_shape(const DenseModel& model, std::string_view layer, std::int64_t tp);

std::vector<std::int64_t> tensor_parallel_degrees();  // 1, 8
std::vector<std::int64_t> token_counts();             // M: 1024, 2048, 4096, 8192

// A mixture-of-experts block, for grouped GEMMs: each token goes to top_k of `experts` experts;
// with expert parallelism ep the experts are spread over ep GPUs (experts / ep on each), and one
// GPU's grouped GEMM covers its share.
struct MoeModel {
  std::string name;  // "deepseek-v3"
  std::int64_t hidden;
  std::int64_t expert_intermediate;  // each expert's MLP width
  std::int64_t experts;
  std::int64_t top_k;
};
// DeepSeek-V2-Lite, DeepSeek-V2, DeepSeek-V3, a Grok-2-like 8-expert model.
const std::vector<MoeModel>& moe_models();
std::vector<std::string> moe_model_names();
const MoeModel& moe_model(std::string_view name);
std::vector<std::int64_t> expert_parallel_degrees();  // 8, 16, 32
std::vector<std::int64_t> moe_token_counts();         // M per GPU: 512, 4096

// One GPU's grouped GEMM: `groups` = experts / ep experts, each multiplying its routed tokens
// [rows_g, k] by its own weight [n, k]^T. M is the tokens each GPU of the expert-parallel group
// holds before the all-to-all dispatch; with every GPU holding M, one GPU's experts receive
// M * top_k rows in all (ep * M * top_k * groups / experts), however the router splits them.
struct GroupedShape {
  std::int64_t groups;
  std::int64_t total_rows;  // M * top_k
  std::int64_t n;
  std::int64_t k;
};
std::vector<std::string> moe_layer_names();  // gate_up, down
// Throws std::invalid_argument when ep does not divide the experts, or for an unknown layer.
GroupedShape moe_shape(const MoeModel& model, std::string_view layer, std::int64_t tokens, std::int64_t ep);

// How a router splits `total` rows over `groups` experts (every group gets at least one row):
//   balanced: total / groups each, the remainder one row each to the first groups;
//   skewed:   Zipf with exponent 1.2 (group g's share proportional to 1 / (g + 1)^1.2), rounded by
//             largest remainder: a few experts take most tokens (32 groups: the first 32%, the
//             first four 61%).
std::vector<std::string> routing_names();  // balanced, skewed
std::vector<std::int64_t> routed_rows(std::int64_t total, std::int64_t groups, std::string_view routing);

// Attention head configurations of the dense models (one GPU, no tensor parallelism).
// Qwen2.5-72B has Llama-3.1-70B's heads (64 q, 8 kv, 128) and is left out as a duplicate.
std::vector<std::string> attention_model_names();
std::vector<std::int64_t> sequence_lengths();  // 1024, 2048, 4096, 8192
// Sequences per batch so that every point holds the same number of tokens (8192).
std::int64_t attention_batch(std::int64_t sequence_length);

// Distinct hidden sizes of the dense models (3584, 4096, 8192, 16384): rows of norms and casts.
std::vector<std::int64_t> hidden_sizes();

// The `pass` axis of the training benchmarks: the forward alone, forward then backward, or the
// backward alone (its inputs, the forward's saved tensors, made untimed in setup).
struct Passes {
  bool forward;
  bool backward;
};
std::vector<std::string> pass_names();  // fwd, fwd+bwd, bwd
// Throws std::invalid_argument naming the known passes.
Passes parse_pass(std::string_view name);

// Attention masks (self-attention, query and key positions both count from the sequence start, the
// top-left diagonal): key j is visible to query i when
//   causal: j <= i;  window W > 0 (with causal only): j > i - W;  padding: i, j < the sequence's
//   own length (shorter than the padded length).
std::vector<std::string> attention_mask_names();  // none, causal, padding, padding_causal
struct AttentionMask {
  bool causal = false;
  bool padding = false;
  std::int64_t window = 0;  // 0: no sliding window
};
AttentionMask attention_mask(std::string_view mask, std::int64_t window);  // throws for unknown names
// The valid length of sequence b of `batch` padded to `seq`: seq for the first, then shorter ones
// down to about seq / 2, not multiples of 64 (seq - b seq / (2 batch) - 37 for odd b).
std::int64_t padded_length(std::int64_t seq, std::int64_t b, std::int64_t batch);
// Keys visible to query i of a sequence of valid length `length`: the range [first, last).
struct KeyRange {
  std::int64_t first;
  std::int64_t last;
};
KeyRange visible_keys(const AttentionMask& mask, std::int64_t i, std::int64_t length);
// The queries that see key j, the same way: one range [first, last) for every mask above.
KeyRange seeing_queries(const AttentionMask& mask, std::int64_t j, std::int64_t length);
// Visible (query, key) pairs of one head over a batch of `batch` sequences padded to `seq`.
double attention_pairs(const AttentionMask& mask, std::int64_t batch, std::int64_t seq);
// FLOPs of attention over `pairs` visible pairs: forward 2 matrix products (4 d per pair and head),
// backward 5 (the scores recomputed, dV, dP, dQ, dK: 10 d per pair and head).
double attention_flops(double pairs, std::int64_t q_heads, std::int64_t head_dim, const Passes& passes);

// FLOPs and bytes of the work the benchmarks time.
double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k);  // 2 m n k
// Causal attention forward: two matrix products over the kept half of the score matrix,
// 2 * (2 * s * s * d) * heads * batch / 2.
double causal_attention_flops(std::int64_t batch, std::int64_t q_heads, std::int64_t seq, std::int64_t head_dim);

}  // namespace suite

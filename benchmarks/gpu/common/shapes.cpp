#include "shapes.hpp"

#include <algorithm>
#include <stdexcept>

namespace suite {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

template <class T>
const T& find_named(const std::vector<T>& table, std::string_view name, const char* what) {
  for (const auto& entry : table)
    if (entry.name == name) return entry;
  std::vector<std::string> names;
  for (const auto& entry : table) names.push_back(entry.name);
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) + "' (known: " + joined(names) +
                              ")");
}

std::int64_t split(std::int64_t size, std::int64_t tp, std::string_view layer, const std::string& model) {
  if (tp < 1 || size % tp != 0)
    throw std::invalid_argument(model + " " + std::string(layer) + ": size " + std::to_string(size) +
                                " does not split over tp=" + std::to_string(tp));
  return size / tp;
}

}  // namespace

const std::vector<DenseModel>& dense_models() {
  // hidden, intermediate, q heads, kv heads, head dim (from each model's config.json).
  static const std::vector<DenseModel> models = {
      {"llama3.1-8b", 4096, 14336, 32, 8, 128},   {"llama3.1-70b", 8192, 28672, 64, 8, 128},
      {"llama3.1-405b", 16384, 53248, 128, 8, 128}, {"qwen2.5-7b", 3584, 18944, 28, 4, 128},
      {"qwen2.5-72b", 8192, 29568, 64, 8, 128},
  };
  return models;
}

std::vector<std::string> dense_model_names() {
  std::vector<std::string> names;
  for (const auto& m : dense_models()) names.push_back(m.name);
  return names;
}

const DenseModel& dense_model(std::string_view name) { return find_named(dense_models(), name, "model"); }

std::vector<std::string> linear_layer_names() { return {"qkv", "attn_out", "gate_up", "down"}; }

LinearShape linear_shape(const DenseModel& m, std::string_view layer, std::int64_t tp) {
  if (layer == "qkv") return {split((m.q_heads + 2 * m.kv_heads) * m.head_dim, tp, layer, m.name), m.hidden};
  if (layer == "attn_out") return {m.hidden, split(m.q_heads * m.head_dim, tp, layer, m.name)};
  if (layer == "gate_up") return {split(2 * m.intermediate, tp, layer, m.name), m.hidden};
  if (layer == "down") return {m.hidden, split(m.intermediate, tp, layer, m.name)};
  throw std::invalid_argument("unknown layer '" + std::string(layer) + "' (known: " + joined(linear_layer_names()) +
                              ")");
}

std::vector<std::int64_t> tensor_parallel_degrees() { return {1, 8}; }
std::vector<std::int64_t> token_counts() { return {1024, 2048, 4096, 8192}; }

const std::vector<MoeModel>& moe_models() {
  // hidden, expert width, routed experts, experts per token, expert-parallel GPUs.
  // DeepSeek-V2/V3 from their config.json (shared experts left out: they are a plain GEMM).
  // "grok-2-like": 8 experts, top 2, hidden 8192, expert width 16384, as Grok-2's released
  // configuration describes it; named "-like" because only the MoE shape is taken.
  // Expert parallelism 8 keeps one point's weights (and 8 interleaved points') within an H200.
  static const std::vector<MoeModel> models = {
      {"deepseek-v2", 5120, 1536, 160, 6, 8},
      {"deepseek-v3", 7168, 2048, 256, 8, 8},
      {"grok-2-like", 8192, 16384, 8, 2, 1},
  };
  return models;
}

std::vector<std::string> moe_model_names() {
  std::vector<std::string> names;
  for (const auto& m : moe_models()) names.push_back(m.name);
  return names;
}

const MoeModel& moe_model(std::string_view name) { return find_named(moe_models(), name, "MoE model"); }

std::vector<std::string> moe_layer_names() { return {"gate_up", "down"}; }

GroupedShape moe_shape(const MoeModel& m, std::string_view layer, std::int64_t tokens) {
  if (tokens < 1) throw std::invalid_argument("moe_shape: tokens must be positive, not " + std::to_string(tokens));
  const std::int64_t groups = split(m.experts, m.expert_parallel, "experts", m.name);
  const std::int64_t rows = (tokens * m.top_k + m.experts - 1) / m.experts;
  if (layer == "gate_up") return {groups, rows, 2 * m.expert_intermediate, m.hidden};
  if (layer == "down") return {groups, rows, m.hidden, m.expert_intermediate};
  throw std::invalid_argument("unknown MoE layer '" + std::string(layer) + "' (known: " +
                              joined(moe_layer_names()) + ")");
}

std::vector<std::string> attention_model_names() {
  return {"llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "qwen2.5-7b"};
}

std::vector<std::int64_t> sequence_lengths() { return {1024, 2048, 4096, 8192}; }

std::int64_t attention_batch(std::int64_t sequence_length) {
  if (sequence_length < 1) throw std::invalid_argument("sequence length must be positive");
  return std::max<std::int64_t>(1, 8192 / sequence_length);
}

std::vector<std::int64_t> hidden_sizes() {
  std::vector<std::int64_t> sizes;
  for (const auto& m : dense_models())
    if (std::find(sizes.begin(), sizes.end(), m.hidden) == sizes.end()) sizes.push_back(m.hidden);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double causal_attention_flops(std::int64_t batch, std::int64_t q_heads, std::int64_t seq, std::int64_t head_dim) {
  const double s = static_cast<double>(seq);
  return 2.0 * s * s * static_cast<double>(head_dim) * static_cast<double>(q_heads) * static_cast<double>(batch);
}

}  // namespace suite

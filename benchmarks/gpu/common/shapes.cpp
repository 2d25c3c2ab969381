#include "shapes.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
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
      {"llama3.1-8b", 4096, 14336, 32, 8, 128},
      {"llama3.1-70b", 8192, 28672, 64, 8, 128},
      {"llama3.1-405b", 16384, 53248, 128, 8, 128},
      {"qwen2.5-7b", 3584, 18944, 28, 4, 128},
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
  // hidden, expert width, routed experts, experts per token (each model's config.json: hidden_size,
  // moe_intermediate_size, n_routed_experts, num_experts_per_tok). DeepSeek's shared experts are a
  // plain GEMM and left out. "grok-2-like": 8 experts, top 2, hidden 8192, expert width 16384, as
  // Grok-2's released configuration describes it; named "-like" because only the MoE shape is taken.
  static const std::vector<MoeModel> models = {
      {"deepseek-v2-lite", 2048, 1408, 64, 6},
      {"deepseek-v2", 5120, 1536, 160, 6},
      {"deepseek-v3", 7168, 2048, 256, 8},
      {"grok-2-like", 8192, 16384, 8, 2},
  };
  return models;
}

std::vector<std::string> moe_model_names() {
  std::vector<std::string> names;
  for (const auto& m : moe_models()) names.push_back(m.name);
  return names;
}

const MoeModel& moe_model(std::string_view name) { return find_named(moe_models(), name, "MoE model"); }

std::vector<std::int64_t> expert_parallel_degrees() { return {8, 16, 32}; }
std::vector<std::int64_t> moe_token_counts() { return {512, 4096}; }

std::vector<std::string> moe_layer_names() { return {"gate_up", "down"}; }

GroupedShape moe_shape(const MoeModel& m, std::string_view layer, std::int64_t tokens, std::int64_t ep) {
  if (tokens < 1) throw std::invalid_argument("moe_shape: tokens must be positive, not " + std::to_string(tokens));
  if (ep < 1 || m.experts % ep != 0)
    throw std::invalid_argument(m.name + ": " + std::to_string(m.experts) + " experts do not split over ep=" +
                                std::to_string(ep));
  const std::int64_t groups = m.experts / ep;
  const std::int64_t rows = tokens * m.top_k;
  if (layer == "gate_up") return {groups, rows, 2 * m.expert_intermediate, m.hidden};
  if (layer == "down") return {groups, rows, m.hidden, m.expert_intermediate};
  throw std::invalid_argument("unknown MoE layer '" + std::string(layer) + "' (known: " +
                              joined(moe_layer_names()) + ")");
}

std::vector<std::string> routing_names() { return {"balanced", "skewed"}; }

std::vector<std::int64_t> routed_rows(std::int64_t total, std::int64_t groups, std::string_view routing) {
  if (groups < 1 || total < groups)
    throw std::invalid_argument("routed_rows: need at least one row per group (" + std::to_string(total) +
                                " rows, " + std::to_string(groups) + " groups)");
  std::vector<std::int64_t> rows(static_cast<std::size_t>(groups));
  if (routing == "balanced") {
    for (std::int64_t g = 0; g < groups; ++g) rows[g] = total / groups + (g < total % groups ? 1 : 0);
    return rows;
  }
  if (routing != "skewed")
    throw std::invalid_argument("unknown routing '" + std::string(routing) + "' (known: " + joined(routing_names()) +
                                ")");
  // One row each first, then the rest by Zipf weights, rounded by largest remainder.
  std::vector<double> weight(rows.size());
  double sum = 0;
  for (std::size_t g = 0; g < rows.size(); ++g) sum += weight[g] = std::pow(static_cast<double>(g + 1), -1.2);
  const std::int64_t rest = total - groups;
  std::int64_t given = 0;
  std::vector<std::pair<double, std::size_t>> remainders;
  for (std::size_t g = 0; g < rows.size(); ++g) {
    const double exact = static_cast<double>(rest) * weight[g] / sum;
    const auto whole = static_cast<std::int64_t>(std::floor(exact));
    rows[g] = 1 + whole;
    given += whole;
    remainders.emplace_back(exact - static_cast<double>(whole), g);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::int64_t i = 0; i < rest - given; ++i) ++rows[remainders[static_cast<std::size_t>(i)].second];
  return rows;
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

std::vector<std::string> pass_names() { return {"fwd", "fwd+bwd", "bwd"}; }

Passes parse_pass(std::string_view name) {
  if (name == "fwd") return {true, false};
  if (name == "fwd+bwd") return {true, true};
  if (name == "bwd") return {false, true};
  throw std::invalid_argument("unknown pass '" + std::string(name) + "' (known: " + joined(pass_names()) + ")");
}

std::vector<std::string> attention_mask_names() { return {"none", "causal", "padding", "padding_causal"}; }

AttentionMask attention_mask(std::string_view mask, std::int64_t window) {
  if (window < 0) throw std::invalid_argument("attention window must not be negative");
  if (mask == "none") return {false, false, window};
  if (mask == "causal") return {true, false, window};
  if (mask == "padding") return {false, true, window};
  if (mask == "padding_causal") return {true, true, window};
  throw std::invalid_argument("unknown mask '" + std::string(mask) + "' (known: " + joined(attention_mask_names()) +
                              ")");
}

std::int64_t padded_length(std::int64_t seq, std::int64_t b, std::int64_t batch) {
  if (seq < 128 || b < 0 || b >= batch) throw std::invalid_argument("padded_length: bad sequence or index");
  return seq - b * seq / (2 * batch) - (b % 2 == 1 ? 37 : 0);
}

KeyRange visible_keys(const AttentionMask& mask, std::int64_t i, std::int64_t length) {
  std::int64_t last = mask.causal ? std::min(i + 1, length) : length;
  std::int64_t first = 0;
  if (mask.window > 0) first = std::max<std::int64_t>(0, i - mask.window + 1);
  if (i >= length) return {0, 0};
  return {first, last};
}

KeyRange seeing_queries(const AttentionMask& mask, std::int64_t j, std::int64_t length) {
  if (j < 0 || j >= length) return {0, 0};
  const std::int64_t first = mask.causal ? j : 0;
  const std::int64_t last = mask.window > 0 ? std::min(length, j + mask.window) : length;
  return {first, std::max(first, last)};
}

double attention_pairs(const AttentionMask& mask, std::int64_t batch, std::int64_t seq) {
  double pairs = 0;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t length = mask.padding ? padded_length(seq, b, batch) : seq;
    for (std::int64_t i = 0; i < length; ++i) {
      const auto r = visible_keys(mask, i, length);
      pairs += static_cast<double>(r.last - r.first);
    }
  }
  return pairs;
}

double attention_flops(double pairs, std::int64_t q_heads, std::int64_t head_dim, const Passes& passes) {
  const double per_pair = (passes.forward ? 4.0 : 0.0) + (passes.backward ? 10.0 : 0.0);
  return per_pair * pairs * static_cast<double>(q_heads) * static_cast<double>(head_dim);
}

double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double causal_attention_flops(std::int64_t batch, std::int64_t q_heads, std::int64_t seq, std::int64_t head_dim) {
  const double s = static_cast<double>(seq);
  return 2.0 * s * s * static_cast<double>(head_dim) * static_cast<double>(q_heads) * static_cast<double>(batch);
}

}  // namespace suite

// Fused attention through cuDNN 9's graph API (the backend C API: no cudnn_frontend), forward and
// backward, the way training frameworks call it: softmax(scale * Q K^T [+ masks]) [dropout] V, with
// the forward writing the softmax statistics (log-sum-exp) the backward reads.
//
// The graphs are the patterns cuDNN's flash-attention engines recognize, built op by op as
// cudnn_frontend's SDPA nodes build them (scaled_dot_product_flash_attention.h, 1.x):
//   forward:  S = Q K^T -> * scale -> [padding: select(row < len_q && col < len_kv, S, lowest)]
//             -> [causal: select(row >= col)] -> [window W: select(col + W > row)]
//             -> softmax as max, sub, exp, sum, div (Stats = max + log(sum))
//             -> [dropout: * Bernoulli(1 - p) mask * 1 / (1 - p)] -> O = P V
//   backward: D = rowsum(dO * O) (* (1 - p)); S recomputed, * scale, masks, - Stats, exp = P;
//             dV = P^T dO (summed over the query heads sharing a kv head), dP = dO V^T,
//             dS = P (dP - D) * scale; dK = dS^T Q (summed likewise), dQ = dS K (fp32 accumulator).
// Benchmarks:
//   attention         the model table's GQA heads x mask none/causal x seq x pass (bf16, BSHD)
//   attention_matrix  one model (Llama-3.1-8B heads, seq 4096) over mask none/causal/padding/
//                     padding_causal x sliding window x dropout x layout (bshd, sbhd) x dtype (bf16,
//                     fp16) x pass; combinations that are not a model's attention are skipped with
//                     the reason, and graphs cuDNN has no engine for with cuDNN's.
// Every point holds 8192 tokens (batch = 8192 / seq) and is checked against the CPU before timing.
#include <pitot/pitot.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

#include "check.hpp"
#include "device.cuh"
#include "plan_cache.hpp"
#include "reference.hpp"
#include "shapes.hpp"

namespace {

using suite::DeviceArray;
using Dims = std::array<std::int64_t, 4>;

// One cuDNN handle for the process (creating one costs far more than a point's setup).
// Never destroyed: its destructor would run after the CUDA runtime has shut down.
cudnnHandle_t cudnn_handle() {
  static cudnnHandle_t handle = [] {
    cudnnHandle_t h = nullptr;
    SUITE_CUDNN_CHECK(cudnnCreate(&h));
    return h;
  }();
  return handle;
}

// A backend descriptor, destroyed with the point.
class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type) { SUITE_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d_)); }
  ~Descriptor() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }

  template <class T>
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T* values,
                  std::int64_t count = 1) {
    SUITE_CUDNN_CHECK(cudnnBackendSetAttribute(d_, name, type, count, values));
    return *this;
  }
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendDescriptor_t value) {
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, &value);
  }
  Descriptor& finalize() {
    SUITE_CUDNN_CHECK(cudnnBackendFinalize(d_));
    return *this;
  }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

Dims packed_strides(const Dims& dims) {
  return {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
}

// Builds the operation graph: tensors and operations, all kept alive as long as the builder.
class GraphBuilder {
 public:
  // A tensor; virtual ones live only inside the fused kernel.
  cudnnBackendDescriptor_t tensor(cudnnDataType_t type, const Dims& dims, const Dims& strides, std::int64_t uid,
                                  bool is_virtual, bool by_value = false) {
    const std::int64_t alignment = 16;
    Descriptor& t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type)
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 4)
        .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), 4)
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment)
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual);
    if (by_value) t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &by_value);
    return t.finalize().get();
  }
  cudnnBackendDescriptor_t intermediate(cudnnDataType_t type, const Dims& dims) {
    return tensor(type, dims, packed_strides(dims), next_uid_++, true);
  }
  cudnnBackendDescriptor_t intermediate(cudnnDataType_t type, const Dims& dims, const Dims& strides) {
    return tensor(type, dims, strides, next_uid_++, true);
  }
  // A scalar passed by value at execution time.
  cudnnBackendDescriptor_t scalar(std::int64_t uid, cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    return tensor(type, {1, 1, 1, 1}, {1, 1, 1, 1}, uid, false, true);
  }

  // c = a b; optional M/N/K overrides (the valid sequence lengths of a padded batch).
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c,
              cudnnBackendDescriptor_t m_override = nullptr, cudnnBackendDescriptor_t n_override = nullptr,
              cudnnBackendDescriptor_t k_override = nullptr, bool zero_padding = false) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    Descriptor& desc = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute);
    if (zero_padding) {
      const double padding = 0.0;
      desc.set(CUDNN_ATTR_MATMUL_PADDING_VALUE, CUDNN_TYPE_DOUBLE, &padding);
    }
    desc.finalize();
    Descriptor& op = make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
        .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
        .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
        .set(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc.get());
    if (m_override) op.set(CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, m_override);
    if (n_override) op.set(CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, n_override);
    if (k_override) op.set(CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, k_override);
    add_op(op);
  }

  // y = mode(x[, b][, t]); `axis` only for GEN_INDEX.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                 std::int64_t axis = -1) {
    Descriptor& desc = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    desc.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &math);
    if (axis >= 0) desc.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, &axis);
    desc.finalize();
    Descriptor& op = make(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc.get()).set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
    if (b) op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b);
    if (t) op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t);
    add_op(op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y));
  }

  void reduction(cudnnReduceTensorOp_t op_type, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    Descriptor& desc = make(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    desc.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &op_type)
        .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute)
        .finalize();
    add_op(make(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR)
               .set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
               .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y)
               .set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc.get()));
  }

  // The same data seen with other dimensions and strides (a transpose, for the matrix products).
  void reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    add_op(make(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR)
               .set(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x)
               .set(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y));
  }

  // y = Bernoulli(probability) mask, from a Philox seed and offset (device tensors).
  void bernoulli(double probability, cudnnBackendDescriptor_t seed, cudnnBackendDescriptor_t offset,
                 cudnnBackendDescriptor_t y) {
    const cudnnRngDistribution_t distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
    Descriptor& desc = make(CUDNN_BACKEND_RNG_DESCRIPTOR);
    desc.set(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, &distribution)
        .set(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, &probability)
        .finalize();
    add_op(make(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR)
               .set(CUDNN_ATTR_OPERATION_RNG_YDESC, y)
               .set(CUDNN_ATTR_OPERATION_RNG_DESC, desc.get())
               .set(CUDNN_ATTR_OPERATION_RNG_SEED, seed)
               .set(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, offset));
  }

  cudnnBackendDescriptor_t graph(cudnnHandle_t handle) {
    Descriptor& g = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    g.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle)
        .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops_.data(),
             static_cast<std::int64_t>(ops_.size()));
    return g.finalize().get();
  }

  Descriptor& make(cudnnBackendDescriptorType_t type) { return kept_.emplace_back(type); }

 private:
  void add_op(Descriptor& op) { ops_.push_back(op.finalize().get()); }

  std::deque<Descriptor> kept_;
  std::vector<cudnnBackendDescriptor_t> ops_;
  std::int64_t next_uid_ = 100;
};

// Unique ids of the tensors the caller provides at execution.
enum Uid : std::int64_t {
  kQ = 1,
  kK,
  kV,
  kO,
  kStats,
  kScale,
  kLowest,
  kSeqQ,
  kSeqKv,
  kSeed,
  kOffset,
  kWindow,
  kDropScale,
  kDropKeep,
  kDO,
  kDQ,
  kDK,
  kDV,
  kSoftmaxSum,
  kDQAccum,
  kOne
};

// The first engine configuration cuDNN's heuristics offer that finalizes into a plan; empty
// `why_not` on success, cuDNN's reason otherwise.
cudnnBackendDescriptor_t make_plan(GraphBuilder& b, cudnnHandle_t handle, cudnnBackendDescriptor_t graph,
                                   std::string& why_not) {
  const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  Descriptor& heuristics = b.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
      .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode)
      .finalize();
  std::int64_t count = 0;
  SUITE_CUDNN_CHECK(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<cudnnBackendDescriptor_t> configs;
  for (std::int64_t i = 0; i < count; ++i) configs.push_back(b.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR).get());
  if (count > 0)
    SUITE_CUDNN_CHECK(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, configs.data()));
  for (std::int64_t i = 0; i < count; ++i) {
    Descriptor& plan = b.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle)
        .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[static_cast<std::size_t>(i)]);
    if (cudnnBackendFinalize(plan.get()) == CUDNN_STATUS_SUCCESS) return plan.get();
  }
  char detail[512] = "";
  cudnnGetLastErrorString(detail, sizeof detail);
  why_not = "cuDNN offers no engine for this attention graph (" + std::to_string(count) +
            " configurations tried)" + (detail[0] ? std::string(": ") + detail : "");
  return nullptr;
}

struct Problem {
  std::int64_t batch, seq, q_heads, kv_heads, head_dim;
  suite::AttentionMask mask;
  double dropout;  // probability of dropping a probability
  bool sbhd;       // memory layout [seq, batch, heads, dim] instead of [batch, seq, heads, dim]
  bool fp16;       // fp16 instead of bf16
};

// Strides of a [b, h, s, d] view of a tensor stored BSHD or SBHD with `heads` heads.
Dims view_strides(const Problem& p, std::int64_t heads) {
  const std::int64_t d = p.head_dim;
  return p.sbhd ? Dims{heads * d, d, p.batch * heads * d, 1} : Dims{p.seq * heads * d, d, heads * d, 1};
}
// The same with the last two dimensions swapped (K^T, V^T).
Dims transposed(const Dims& d) { return {d[0], d[1], d[3], d[2]}; }

// Tensors shared by the forward and the backward graph.
struct Io {
  cudnnBackendDescriptor_t seq_q = nullptr, seq_kv = nullptr;
};

cudnnDataType_t io_type(const Problem& p) { return p.fp16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16; }

Io sequence_lengths(GraphBuilder& b, const Problem& p) {
  Io io;
  if (!p.mask.padding) return io;
  const Dims dims{p.batch, 1, 1, 1};
  io.seq_q = b.tensor(CUDNN_DATA_INT32, dims, packed_strides(dims), kSeqQ, false);
  io.seq_kv = b.tensor(CUDNN_DATA_INT32, dims, packed_strides(dims), kSeqKv, false);
  return io;
}

// The masks, in cudnn_frontend's order and form; `scores` is [b, hq, s, s] float. Returns the
// masked scores. `before_stats` selects the padding mask (the backward applies it before
// subtracting Stats, the causal and window masks after).
cudnnBackendDescriptor_t padding_mask(GraphBuilder& b, const Problem& p, const Io& io, cudnnBackendDescriptor_t scores) {
  if (!p.mask.padding) return scores;
  const Dims dims{p.batch, p.q_heads, p.seq, p.seq};
  auto row = b.intermediate(CUDNN_DATA_INT32, dims), col = b.intermediate(CUDNN_DATA_INT32, dims);
  auto row_ok = b.intermediate(CUDNN_DATA_BOOLEAN, dims), col_ok = b.intermediate(CUDNN_DATA_BOOLEAN, dims);
  auto keep = b.intermediate(CUDNN_DATA_BOOLEAN, dims), out = b.intermediate(CUDNN_DATA_FLOAT, dims);
  b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scores, nullptr, nullptr, row, 2);
  b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scores, nullptr, nullptr, col, 3);
  b.pointwise(CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, row, io.seq_q, nullptr, row_ok);
  b.pointwise(CUDNN_POINTWISE_CMP_LT, CUDNN_DATA_BOOLEAN, col, io.seq_kv, nullptr, col_ok);
  b.pointwise(CUDNN_POINTWISE_LOGICAL_AND, CUDNN_DATA_BOOLEAN, row_ok, col_ok, nullptr, keep);
  b.pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, scores, b.scalar(kLowest), keep, out);
  return out;
}

cudnnBackendDescriptor_t band_masks(GraphBuilder& b, const Problem& p, cudnnBackendDescriptor_t scores) {
  const Dims dims{p.batch, p.q_heads, p.seq, p.seq};
  cudnnBackendDescriptor_t out = scores;
  if (p.mask.causal) {
    // Keep key j for query i when i >= j; the rest get the lowest float.
    auto row = b.intermediate(CUDNN_DATA_INT32, dims), col = b.intermediate(CUDNN_DATA_INT32, dims);
    auto keep = b.intermediate(CUDNN_DATA_BOOLEAN, dims);
    auto masked = b.intermediate(CUDNN_DATA_FLOAT, dims);
    b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, out, nullptr, nullptr, row, 2);
    b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, out, nullptr, nullptr, col, 3);
    b.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, nullptr, keep);
    b.pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, out, b.scalar(kLowest), keep, masked);
    out = masked;
  }
  if (p.mask.window > 0) {
    // Keep key j for query i when j + W > i (the frontend's left bound, a float scalar).
    auto row = b.intermediate(CUDNN_DATA_INT32, dims), col = b.intermediate(CUDNN_DATA_INT32, dims);
    auto shifted = b.intermediate(CUDNN_DATA_FLOAT, dims);
    auto keep = b.intermediate(CUDNN_DATA_BOOLEAN, dims);
    auto masked = b.intermediate(CUDNN_DATA_FLOAT, dims);
    b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, out, nullptr, nullptr, row, 2);
    b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, out, nullptr, nullptr, col, 3);
    b.pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, col, b.scalar(kWindow), nullptr, shifted, 3);
    b.pointwise(CUDNN_POINTWISE_CMP_GT, CUDNN_DATA_BOOLEAN, shifted, row, nullptr, keep);
    b.pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, out, b.scalar(kLowest), keep, masked);
    out = masked;
  }
  return out;
}

// The dropout mask [b, hq, s, s] (the same seed and offset give the same mask in both graphs).
cudnnBackendDescriptor_t dropout_mask(GraphBuilder& b, const Problem& p) {
  const Dims one{1, 1, 1, 1};
  auto seed = b.tensor(CUDNN_DATA_INT64, one, one, kSeed, false);
  auto offset = b.tensor(CUDNN_DATA_INT64, one, one, kOffset, false);
  auto mask = b.intermediate(CUDNN_DATA_FLOAT, {p.batch, p.q_heads, p.seq, p.seq});
  b.bernoulli(1.0 - p.dropout, seed, offset, mask);
  return mask;
}

void build_forward(GraphBuilder& b, const Problem& p) {
  const std::int64_t s = p.seq, d = p.head_dim, hq = p.q_heads, hk = p.kv_heads;
  const cudnnDataType_t type = io_type(p);
  const Io io = sequence_lengths(b, p);
  auto q = b.tensor(type, {p.batch, hq, s, d}, view_strides(p, hq), kQ, false);
  auto kt = b.tensor(type, {p.batch, hk, d, s}, transposed(view_strides(p, hk)), kK, false);
  auto v = b.tensor(type, {p.batch, hk, s, d}, view_strides(p, hk), kV, false);
  auto o = b.tensor(type, {p.batch, hq, s, d}, view_strides(p, hq), kO, false);
  const Dims row_dims{p.batch, hq, s, 1};
  auto stats = b.tensor(CUDNN_DATA_FLOAT, row_dims, packed_strides(row_dims), kStats, false);
  const Dims score_dims{p.batch, hq, s, s};

  auto scores = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.matmul(q, kt, scores, io.seq_q, io.seq_kv, nullptr, p.mask.padding);
  auto scaled = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, scores, b.scalar(kScale), nullptr, scaled);
  auto masked = band_masks(b, p, padding_mask(b, p, io, scaled));
  // Softmax over keys, with Stats = max + log(sum) kept for the backward pass.
  auto max = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  auto shifted = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  auto exps = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  auto sum = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  auto log_sum = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  b.reduction(CUDNN_REDUCE_TENSOR_MAX, masked, max);
  b.pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, masked, max, nullptr, shifted);
  b.pointwise(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, shifted, nullptr, nullptr, exps);
  b.reduction(CUDNN_REDUCE_TENSOR_ADD, exps, sum);
  b.pointwise(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, sum, nullptr, nullptr, log_sum);
  b.pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, max, log_sum, nullptr, stats);
  cudnnBackendDescriptor_t probabilities;
  if (p.dropout > 0) {
    auto softmax = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    auto dropped = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    probabilities = b.intermediate(type, score_dims);  // the second matmul reads the io type
    b.pointwise(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, exps, sum, nullptr, softmax);
    b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, softmax, dropout_mask(b, p), nullptr, dropped);
    b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, dropped, b.scalar(kDropScale), nullptr, probabilities);
  } else {
    probabilities = b.intermediate(type, score_dims);
    b.pointwise(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, exps, sum, nullptr, probabilities);
  }
  b.matmul(probabilities, v, o, io.seq_q, nullptr, io.seq_kv);
}

void build_backward(GraphBuilder& b, const Problem& p) {
  const std::int64_t s = p.seq, d = p.head_dim, hq = p.q_heads, hk = p.kv_heads;
  const cudnnDataType_t type = io_type(p);
  const Io io = sequence_lengths(b, p);
  const Dims qs = view_strides(p, hq), ks = view_strides(p, hk);
  auto q = b.tensor(type, {p.batch, hq, s, d}, qs, kQ, false);
  auto kt = b.tensor(type, {p.batch, hk, d, s}, transposed(ks), kK, false);
  auto vt = b.tensor(type, {p.batch, hk, d, s}, transposed(ks), kV, false);
  auto o = b.tensor(type, {p.batch, hq, s, d}, qs, kO, false);
  auto dout = b.tensor(type, {p.batch, hq, s, d}, qs, kDO, false);
  auto dq = b.tensor(type, {p.batch, hq, s, d}, qs, kDQ, false);
  auto dk = b.tensor(type, {p.batch, hk, s, d}, ks, kDK, false);
  auto dv = b.tensor(type, {p.batch, hk, s, d}, ks, kDV, false);
  const Dims row_dims{p.batch, hq, s, 1};
  auto stats = b.tensor(CUDNN_DATA_FLOAT, row_dims, packed_strides(row_dims), kStats, false);
  const Dims score_dims{p.batch, hq, s, s};
  const Dims score_t_strides{hq * s * s, s * s, 1, s};  // [b, hq, s_kv, s_q] view of the scores

  // D = rowsum(dO * O) (* (1 - p)): kept in memory for the kernel (kSoftmaxSum).
  auto do_o = b.intermediate(CUDNN_DATA_FLOAT, {p.batch, hq, s, d}, {hq * s * d, s * d, hq * d, 1});
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, dout, o, nullptr, do_o);
  auto row_sum = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  b.reduction(CUDNN_REDUCE_TENSOR_ADD, do_o, row_sum);
  auto softmax_sum = b.tensor(CUDNN_DATA_FLOAT, row_dims, packed_strides(row_dims), kSoftmaxSum, false);
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, row_sum, b.scalar(p.dropout > 0 ? kDropKeep : kOne), nullptr,
              softmax_sum);

  // P recomputed: exp(scale S [masks] - Stats).
  auto scores = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.matmul(q, kt, scores, io.seq_q, io.seq_kv);
  auto scaled = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, scores, b.scalar(kScale), nullptr, scaled);
  auto padded = padding_mask(b, p, io, scaled);
  auto centred = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, padded, stats, nullptr, centred);
  auto masked = band_masks(b, p, centred);
  auto probabilities = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, masked, nullptr, nullptr, probabilities);
  cudnnBackendDescriptor_t mask = nullptr, kept = probabilities;
  if (p.dropout > 0) {
    mask = dropout_mask(b, p);
    auto dropped = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    kept = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, probabilities, mask, nullptr, dropped);
    b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, dropped, b.scalar(kDropScale), nullptr, kept);
  }
  // A per-query-head product (lhs rhs) into a kv head's gradient: summed over the query heads of
  // each kv head when heads are grouped (GQA). dV and dK are both made this way.
  auto into_kv_heads = [&](auto lhs, auto rhs, auto out) {
    if (hq == hk) {
      b.matmul(lhs, rhs, out, io.seq_kv, nullptr, io.seq_q);
      return;
    }
    auto full = b.intermediate(type, {p.batch, hq, s, d});
    b.matmul(lhs, rhs, full, io.seq_kv, nullptr, io.seq_q);
    b.reduction(CUDNN_REDUCE_TENSOR_ADD, full, out);
  };
  // dV = P^T dO, summed over the query heads of each kv head.
  auto p_t = b.intermediate(type, {p.batch, hq, s, s}, score_t_strides);
  b.reshape(kept, p_t);
  into_kv_heads(p_t, dout, dv);
  // dS = P (dP [* mask] - D) [* 1 / (1 - p)] * scale, dP = dO V^T.
  auto dp = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.matmul(dout, vt, dp, io.seq_q, io.seq_kv);
  if (mask) {
    auto dp_masked = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, dp, mask, nullptr, dp_masked);
    dp = dp_masked;
  }
  auto centred_dp = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, dp, softmax_sum, nullptr, centred_dp);
  auto ds = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, centred_dp, probabilities, nullptr, ds);
  if (p.dropout > 0) {
    auto ds_scaled = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, ds, b.scalar(kDropScale), nullptr, ds_scaled);
    ds = ds_scaled;
  }
  auto ds_final = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, ds, b.scalar(kScale), nullptr, ds_final);
  // dK = dS^T Q, summed over the query heads of each kv head.
  auto ds_t = b.intermediate(type, {p.batch, hq, s, s}, score_t_strides);
  b.reshape(ds_final, ds_t);
  into_kv_heads(ds_t, q, dk);
  // dQ = dS K through an fp32 accumulator in memory (kDQAccum), then converted.
  const Dims kt_strides = transposed(ks);
  auto k = b.intermediate(type, {p.batch, hk, s, d}, {kt_strides[0], kt_strides[1], kt_strides[3], kt_strides[2]});
  b.reshape(kt, k);
  const Dims acc_dims{p.batch, hq, s, d};
  auto dq_accum = b.tensor(CUDNN_DATA_FLOAT, acc_dims, packed_strides(acc_dims), kDQAccum, false);
  b.matmul(ds_final, k, dq_accum, io.seq_q, nullptr, io.seq_kv);
  b.pointwise(CUDNN_POINTWISE_IDENTITY, CUDNN_DATA_FLOAT, dq_accum, nullptr, nullptr, dq);
}

// --- Host side ------------------------------------------------------------------------------------

// 16-bit device buffers (bf16 or fp16 bits) filled with uniform values.
__global__ void fill_half(std::uint16_t* out, std::int64_t n, float lo, float hi, std::uint64_t seed, bool fp16) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const float v = suite::uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi);
    if (fp16) {
      const __half h = __float2half_rn(v);
      out[i] = __half_as_ushort(h);
    } else {
      const __nv_bfloat16 h = __float2bfloat16_rn(v);
      out[i] = __bfloat16_as_ushort(h);
    }
  }
}

struct Buffer {
  DeviceArray<std::uint16_t> data;
  explicit Buffer(std::int64_t n) : data(n) {}
  void* get() const { return data.get(); }
};

void fill(Buffer& b, float lo, float hi, std::uint64_t seed, bool fp16) {
  fill_half<<<4096, 256>>>(b.data.get(), b.data.size(), lo, hi, seed, fp16);
  PITOT_CUDA_CHECK(cudaGetLastError());
}

std::vector<float> decode16(const std::vector<std::uint16_t>& bits, bool fp16) {
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (fp16) {
      __half_raw raw;
      raw.x = bits[i];
      out[i] = __half2float(__half(raw));
    } else {
      out[i] = suite::float_from_bf16(bits[i]);
    }
  }
  return out;
}

// A graph and its plan, built once per problem and direction in a process. cuDNN's heuristics and
// plan finalization were most of an attention point's setup (H200, lean limits: 0.53 s a point
// against 0.13 s for a GEMM), and a shape's fwd, bwd and fwd+bwd points build the same forward
// graph; the plan chosen for a graph is the same whenever it is built, so the numbers do not move.
struct BuiltPlan {
  GraphBuilder builder;
  cudnnBackendDescriptor_t plan = nullptr;
  std::string why_not;  // empty when `plan` is usable
};

std::string plan_key(const Problem& p, bool backward) {
  std::string key;
  for (const double field : {double(p.batch), double(p.seq), double(p.q_heads), double(p.kv_heads), double(p.head_dim),
                             double(p.mask.causal), double(p.mask.padding), double(p.mask.window), p.dropout,
                             double(p.sbhd), double(p.fp16), double(backward)})
    key += std::to_string(field) + ' ';
  return key;
}

// What a stored plan is valid for: this cuDNN and this kind of card.
const suite::PlanCache& plan_cache() {
  static const suite::PlanCache cache = [] {
    int device = 0;
    cudaDeviceProp prop{};
    PITOT_GPU_CHECK(cudaGetDevice(&device));
    PITOT_GPU_CHECK(cudaGetDeviceProperties(&prop, device));
    return suite::PlanCache("cudnn", "cudnn " + std::to_string(cudnnGetVersion()) + " " + prop.name + " sm" +
                                         std::to_string(prop.major * 10 + prop.minor) + " " +
                                         std::to_string(prop.multiProcessorCount) + " SMs");
  }();
  return cache;
}

// A plan serialized by cuDNN (its JSON representation), or "" where the engine cannot say it.
std::string plan_json(cudnnBackendDescriptor_t plan) {
  std::int64_t count = 0;
  if (cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &count,
                               nullptr) != CUDNN_STATUS_SUCCESS || count <= 0)
    return {};
  std::string text(static_cast<std::size_t>(count), '\0');
  if (cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, count, &count,
                               text.data()) != CUDNN_STATUS_SUCCESS)
    return {};
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

// The plan back from its JSON; nullptr when cuDNN refuses it (then it is built as before).
cudnnBackendDescriptor_t plan_from_json(GraphBuilder& b, cudnnHandle_t handle, const std::string& json) {
  Descriptor& plan = b.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  if (cudnnBackendSetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle) !=
          CUDNN_STATUS_SUCCESS ||
      cudnnBackendSetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                               static_cast<std::int64_t>(json.size()), json.data()) != CUDNN_STATUS_SUCCESS ||
      cudnnBackendFinalize(plan.get()) != CUDNN_STATUS_SUCCESS)
    return nullptr;
  return plan.get();
}

const BuiltPlan& built_plan(const Problem& p, bool backward) {
  static std::mutex mutex;
  // Never destroyed, as the handle: the descriptors' destructors would run after the CUDA runtime
  // has shut down.
  static auto* cache = new std::map<std::string, std::unique_ptr<BuiltPlan>>;
  const std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<BuiltPlan>& slot = (*cache)[plan_key(p, backward)];  // this process's plans
  if (slot) return *slot;
  slot = std::make_unique<BuiltPlan>();
  BuiltPlan& built = *slot;
  const cudnnHandle_t handle = cudnn_handle();
  // A plan built by an earlier process of this program on this kind of card (plan_cache.hpp).
  const std::string key = plan_key(p, backward);
  if (const auto json = plan_cache().load(key))
    if ((built.plan = plan_from_json(built.builder, handle, *json))) return built;
  try {
    if (backward) build_backward(built.builder, p);
    else build_forward(built.builder, p);
    const cudnnBackendDescriptor_t graph = built.builder.graph(handle);
    built.plan = make_plan(built.builder, handle, graph, built.why_not);
    if (!built.plan) built.why_not = (backward ? "backward: " : "forward: ") + built.why_not;
    else if (const std::string json = plan_json(built.plan); !json.empty()) plan_cache().store(key, json);
  } catch (const std::runtime_error& e) {
    built.plan = nullptr;
    built.why_not = std::string(backward ? "backward" : "forward") + " graph rejected by cuDNN: " + e.what();
  }
  return built;
}

// A point's use of a plan: its own workspace and the pointers of one execution.
struct Plan {
  cudnnBackendDescriptor_t plan = nullptr;
  std::unique_ptr<DeviceArray<std::uint8_t>> workspace;
  std::unique_ptr<Descriptor> pack;
};

// Takes the problem's plan (built on first use); empty on success, else why not (cuDNN's words).
std::string prepare(Plan& plan, const Problem& p, bool backward) {
  const BuiltPlan& built = built_plan(p, backward);
  if (!built.plan) return built.why_not;
  plan.plan = built.plan;
  std::int64_t bytes = 0, returned = 0;
  SUITE_CUDNN_CHECK(cudnnBackendGetAttribute(plan.plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                             &returned, &bytes));
  plan.workspace = std::make_unique<DeviceArray<std::uint8_t>>(std::max<std::int64_t>(bytes, 1));
  return "";
}

void bind_tensors(Plan& plan, const std::vector<std::pair<std::int64_t, void*>>& tensors) {
  std::vector<std::int64_t> uids;
  std::vector<void*> pointers;
  for (const auto& [uid, pointer] : tensors) {
    uids.push_back(uid);
    pointers.push_back(pointer);
  }
  void* workspace_pointer = plan.workspace->get();
  plan.pack = std::make_unique<Descriptor>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  plan.pack->set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), static_cast<std::int64_t>(uids.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(),
           static_cast<std::int64_t>(pointers.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace_pointer)
      .finalize();
}

void execute(const Plan& plan, cudaStream_t stream) {
  SUITE_CUDNN_CHECK(cudnnSetStream(cudnn_handle(), stream));
  SUITE_CUDNN_CHECK(cudnnBackendExecute(cudnn_handle(), plan.plan, plan.pack->get()));
}

void run_attention(pitot::State& state, const Problem& p, const suite::Passes& passes) {
  if (suite::compute_capability() < 80) {
    state.skip("cuDNN's fused attention needs compute capability 8.0 or newer");
    return;
  }
  const std::int64_t tokens = p.batch * p.seq, d = p.head_dim;
  const bool fp16 = p.fp16;
  Buffer q(tokens * p.q_heads * d), k(tokens * p.kv_heads * d), v(tokens * p.kv_heads * d), o(tokens * p.q_heads * d);
  DeviceArray<float> stats(p.batch * p.q_heads * p.seq);
  // Queries spread wider than keys so the softmax is peaked and a wrong mask or head shows.
  fill(q, -8, 8, 51, fp16);
  fill(k, -1, 1, 52, fp16);
  fill(v, -1, 1, 53, fp16);
  fill(o, -1, 1, 54, fp16);
  suite::fill_uniform(stats.get(), stats.size(), -1, 1, 55);
  std::vector<std::int32_t> lengths;
  for (std::int64_t b = 0; b < p.batch; ++b)
    lengths.push_back(static_cast<std::int32_t>(p.mask.padding ? suite::padded_length(p.seq, b, p.batch) : p.seq));
  DeviceArray<std::int32_t> seq_lengths(p.batch);
  PITOT_CUDA_CHECK(cudaMemcpy(seq_lengths.get(), lengths.data(), seq_lengths.bytes(), cudaMemcpyHostToDevice));
  const std::int64_t seed_offset[4] = {1234, 0, 0, 0};  // seed at [0], offset at [2]: 16-byte aligned
  DeviceArray<std::int64_t> philox(4);
  PITOT_CUDA_CHECK(cudaMemcpy(philox.get(), seed_offset, sizeof seed_offset, cudaMemcpyHostToDevice));

  // By-value scalars are read from host memory at each execution.
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const float lowest = std::numeric_limits<float>::lowest();
  const float window = static_cast<float>(p.mask.window);
  const float drop_scale = static_cast<float>(1.0 / (1.0 - p.dropout)), drop_keep = static_cast<float>(1.0 - p.dropout);
  const float one = 1.0f;
  auto common = [&](std::vector<std::pair<std::int64_t, void*>>& t) {
    t.insert(t.end(), {{kQ, q.get()}, {kK, k.get()}, {kV, v.get()}, {kO, o.get()}, {kStats, stats.get()}, {kScale, const_cast<float*>(&scale)}});
    if (p.mask.causal || p.mask.padding || p.mask.window > 0) t.push_back({kLowest, const_cast<float*>(&lowest)});
    if (p.mask.window > 0) t.push_back({kWindow, const_cast<float*>(&window)});
    if (p.mask.padding) t.insert(t.end(), {{kSeqQ, seq_lengths.get()}, {kSeqKv, seq_lengths.get()}});
    if (p.dropout > 0)
      t.insert(t.end(), {{kSeed, philox.get()}, {kOffset, philox.get() + 2}, {kDropScale, const_cast<float*>(&drop_scale)}});
  };

  // The forward runs in every pass: the backward's inputs (O, Stats) are its outputs.
  Plan forward;
  if (const std::string why_not = prepare(forward, p, false); !why_not.empty()) {
    state.skip(why_not);
    return;
  }
  std::vector<std::pair<std::int64_t, void*>> fwd_tensors;
  common(fwd_tensors);
  bind_tensors(forward, fwd_tensors);
  execute(forward, nullptr);

  std::unique_ptr<Buffer> dout, dq, dk, dv;
  std::unique_ptr<DeviceArray<float>> softmax_sum, dq_accum;
  Plan backward;
  const bool clear_accumulator = cudnnGetVersion() < 90600;  // older cuDNN expects a zeroed dQ accumulator
  if (passes.backward) {
    if (const std::string why_not = prepare(backward, p, true); !why_not.empty()) {
      state.skip(why_not);
      return;
    }
    dout = std::make_unique<Buffer>(tokens * p.q_heads * d);
    dq = std::make_unique<Buffer>(tokens * p.q_heads * d);
    dk = std::make_unique<Buffer>(tokens * p.kv_heads * d);
    dv = std::make_unique<Buffer>(tokens * p.kv_heads * d);
    softmax_sum = std::make_unique<DeviceArray<float>>(p.batch * p.q_heads * p.seq);
    dq_accum = std::make_unique<DeviceArray<float>>(tokens * p.q_heads * d);
    fill(*dout, -1, 1, 56, fp16);
    fill(*dq, -1, 1, 57, fp16);
    fill(*dk, -1, 1, 58, fp16);
    fill(*dv, -1, 1, 59, fp16);
    std::vector<std::pair<std::int64_t, void*>> bwd_tensors;
    common(bwd_tensors);
    bwd_tensors.insert(bwd_tensors.end(), {{kDO, dout->get()}, {kDQ, dq->get()}, {kDK, dk->get()}, {kDV, dv->get()}, {kSoftmaxSum, softmax_sum->get()}, {kDQAccum, dq_accum->get()}});
    bwd_tensors.push_back(p.dropout > 0 ? std::pair<std::int64_t, void*>{kDropKeep, const_cast<float*>(&drop_keep)}
                                        : std::pair<std::int64_t, void*>{kOne, const_cast<float*>(&one)});
    bind_tensors(backward, bwd_tensors);
  }
  auto run_backward = [&](cudaStream_t stream) {
    if (clear_accumulator) PITOT_CUDA_CHECK(cudaMemsetAsync(dq_accum->get(), 0, dq_accum->bytes(), stream));
    execute(backward, stream);
  };
  if (passes.backward) run_backward(nullptr);
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());

  // Check rows near the start (where causal masking matters most), the middle and the end of the
  // first and last sequence, for the first and last query head: O and Stats of the forward and dQ of
  // the backward against the CPU, and dK, dV of a few key rows of the last kv head. Only what the
  // references read is copied to the host: the checked query rows, and whole heads only for K and V
  // (and for the dK, dV check, which sums over every query that sees its key).
  const Dims qs = view_strides(p, p.q_heads), ks = view_strides(p, p.kv_heads);
  const std::int64_t group = p.q_heads / p.kv_heads;
  auto head_of = [&](const Buffer& buffer, const Dims& strides, std::int64_t b, std::int64_t h) {
    return static_cast<const std::uint16_t*>(buffer.get()) + b * strides[0] + h * strides[1];
  };
  auto rows_of = [&](const Buffer& buffer, const Dims& strides, std::int64_t b, std::int64_t h) {
    return decode16(suite::strided_rows_to_host(head_of(buffer, strides, b, h), d, strides[2], p.seq), fp16);
  };
  auto picked_rows_of = [&](const Buffer& buffer, std::int64_t b, std::int64_t h, std::span<const std::int64_t> rows) {
    return decode16(suite::picked_rows_to_host(head_of(buffer, qs, b, h), d, qs[2], rows), fp16);
  };
  const auto stats_host = suite::to_host(stats.get(), stats.size());
  const bool exact = p.dropout == 0;  // with dropout only Stats is reproducible on the CPU
  std::vector<double> o_got, o_want, lse_got, lse_want, dq_got, dq_want, dq_atol;
  for (std::int64_t b : suite::sample_indices(p.batch, 2))
    for (std::int64_t h : suite::sample_indices(p.q_heads, 2)) {
      const std::int64_t length = lengths[static_cast<std::size_t>(b)];
      std::vector<std::int64_t> checked;
      for (std::int64_t i : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, p.seq / 3, p.seq / 2, length - 2, length - 1})
        if (const auto range = suite::visible_keys(p.mask, i, length); range.last > range.first) checked.push_back(i);
      const auto keys = rows_of(k, ks, b, h / group), values = rows_of(v, ks, b, h / group);
      const auto queries = picked_rows_of(q, b, h, checked), outs = picked_rows_of(o, b, h, checked);
      std::vector<float> douts, dqs;
      if (passes.backward) {
        douts = picked_rows_of(*dout, b, h, checked);
        dqs = picked_rows_of(*dq, b, h, checked);
      }
      for (std::size_t r = 0; r < checked.size(); ++r) {
        const std::int64_t i = checked[r];
        const auto range = suite::visible_keys(p.mask, i, length);
        const auto row = [&](const std::vector<float>& rows) { return std::span<const float>(rows).subspan(r * d, d); };
        const auto ref = suite::attention_row(row(queries), keys, values,
                                              passes.backward ? row(douts) : std::span<const float>(),
                                              range.first, range.last, scale);
        lse_got.push_back(stats_host[static_cast<std::size_t>((b * p.q_heads + h) * p.seq + i)]);
        lse_want.push_back(ref.lse);
        if (!exact) continue;
        o_want.insert(o_want.end(), ref.o.begin(), ref.o.end());
        const auto out_row = row(outs);
        o_got.insert(o_got.end(), out_row.begin(), out_row.end());
        if (passes.backward) {
          double largest = 0;
          for (double g : ref.dq) largest = std::max(largest, std::fabs(g));
          dq_want.insert(dq_want.end(), ref.dq.begin(), ref.dq.end());
          const auto dq_row = row(dqs);
          dq_got.insert(dq_got.end(), dq_row.begin(), dq_row.end());
          dq_atol.insert(dq_atol.end(), static_cast<std::size_t>(d), largest / 64 + 1.0 / 1024);
        }
      }
    }
  // Stats in fp32; O in the io type (P rounded to it too): 2^-7 relative plus 2^-7 absolute.
  suite::require(suite::compare(lse_got, lse_want, 1.0 / 4096, 1.0 / 1024), "attention Stats (log-sum-exp)");
  if (exact) suite::require(suite::compare(o_got, o_want, 1.0 / 128, 1.0 / 128), "attention output");
  if (exact && passes.backward) {
    suite::require(suite::compare(dq_got, dq_want, 1.0 / 64, dq_atol), "attention dQ");
    // dK and dV of key rows of the first sequence's last kv head, from every query head that shares
    // it, with the forward's own Stats and D = dO . O (both as the backward reads them). The queries
    // that see a key are one range of rows, read in place; D is taken once a query, not once a key.
    // Each query head's part runs on a thread of its own (at seq 8192 and a group of 8 it is most of
    // the point's setup on one core); the parts are summed in head order, so the sum is the same.
    const std::int64_t b = 0, kv = p.kv_heads - 1, length = lengths[0];
    const auto keys = rows_of(k, ks, b, kv), values = rows_of(v, ks, b, kv);
    const auto dks = rows_of(*dk, ks, b, kv), dvs = rows_of(*dv, ks, b, kv);
    const std::array<std::int64_t, 3> checked_keys{0, length / 2, length - 1};
    using HeadPart = std::array<suite::KeyGrads, 3>;  // one a checked key
    int device = 0;
    PITOT_CUDA_CHECK(cudaGetDevice(&device));
    auto head_part = [&](std::int64_t g) {
      PITOT_CUDA_CHECK(cudaSetDevice(device));  // a new thread starts on device 0
      const std::int64_t h = kv * group + g;
      const auto queries = rows_of(q, qs, b, h), douts = rows_of(*dout, qs, b, h), outs = rows_of(o, qs, b, h);
      std::vector<double> lse, delta;
      for (std::int64_t i = 0; i < length; ++i) {
        lse.push_back(stats_host[static_cast<std::size_t>((b * p.q_heads + h) * p.seq + i)]);
        double dot = 0;
        for (std::int64_t t = 0; t < d; ++t) dot += static_cast<double>(douts[i * d + t]) * outs[i * d + t];
        delta.push_back(dot);
      }
      HeadPart part;
      for (std::size_t n = 0; n < checked_keys.size(); ++n) {
        const std::int64_t j = checked_keys[n];
        const auto seen = suite::seeing_queries(p.mask, j, length);
        const std::size_t first = static_cast<std::size_t>(seen.first), count = static_cast<std::size_t>(seen.last - seen.first);
        part[n] = suite::attention_key_grads(
            std::span<const float>(keys).subspan(j * d, d), std::span<const float>(values).subspan(j * d, d),
            std::span<const float>(queries).subspan(first * d, count * d),
            std::span<const float>(douts).subspan(first * d, count * d), std::span<const double>(lse).subspan(first, count),
            std::span<const double>(delta).subspan(first, count), scale);
      }
      return part;
    };
    std::vector<std::future<HeadPart>> parts;
    for (std::int64_t g = 0; g < group; ++g) parts.push_back(std::async(std::launch::async, head_part, g));
    HeadPart refs;
    for (auto& ref : refs) ref = {std::vector<double>(d), std::vector<double>(d), std::vector<double>(d), std::vector<double>(d)};
    for (auto& future : parts) {
      const HeadPart part = future.get();
      for (std::size_t n = 0; n < refs.size(); ++n)
        for (std::int64_t t = 0; t < d; ++t) {
          refs[n].dk[t] += part[n].dk[t];
          refs[n].dv[t] += part[n].dv[t];
          refs[n].dk_magnitude[t] += part[n].dk_magnitude[t];
          refs[n].dv_magnitude[t] += part[n].dv_magnitude[t];
        }
    }
    std::vector<double> dk_got, dk_want, dk_atol, dv_got, dv_want, dv_atol;
    for (std::size_t n = 0; n < refs.size(); ++n) {
      const std::int64_t j = checked_keys[n];
      const suite::KeyGrads& ref = refs[n];
      for (std::int64_t t = 0; t < d; ++t) {
        dk_got.push_back(dks[j * d + t]);
        dk_want.push_back(ref.dk[t]);
        dk_atol.push_back(ref.dk_magnitude[t] / 64 + 1.0 / 1024);
        dv_got.push_back(dvs[j * d + t]);
        dv_want.push_back(ref.dv[t]);
        dv_atol.push_back(ref.dv_magnitude[t] / 128 + 1.0 / 1024);
      }
    }
    suite::require(suite::compare(dk_got, dk_want, 1.0 / 64, dk_atol), "attention dK");
    suite::require(suite::compare(dv_got, dv_want, 1.0 / 64, dv_atol), "attention dV");
  } else if (passes.backward) {
    // Dropout: cuDNN's Philox mask is not reproduced on the CPU; the gradients must at least be finite.
    for (const Buffer* g : {dq.get(), dk.get(), dv.get()}) {
      const auto rows = decode16(suite::to_host(static_cast<const std::uint16_t*>(g->get()), 4096), fp16);
      for (float x : rows)
        if (!std::isfinite(x)) throw std::runtime_error("attention backward with dropout wrote a non-finite gradient");
    }
  }

  const double pairs = suite::attention_pairs(p.mask, p.batch, p.seq);
  state.add_flops(suite::attention_flops(pairs, p.q_heads, d, passes));
  state.add_items(static_cast<double>(tokens));
  state.exec([&](pitot::Launch& l) {
    if (passes.forward) execute(forward, l.stream());
    if (passes.backward) run_backward(l.stream());
  });
}

void attention(pitot::State& state) {
  const auto& model = suite::dense_model(state.get_string("model"));
  const std::int64_t seq = state.get_int("seq");
  const Problem p{suite::attention_batch(seq), seq, model.q_heads, model.kv_heads, model.head_dim,
                  suite::attention_mask(state.get_string("mask"), 0), 0.0, false, false};
  run_attention(state, p, suite::parse_pass(state.get_string("pass")));
}
PITOT_BENCHMARK(attention)
    .axis("model", suite::attention_model_names())
    .axis("mask", {"none", "causal"})
    .axis("seq", {1024, 4096, 8192})
    .axis("pass", suite::pass_names())
    .version("2");

void attention_matrix(pitot::State& state) {
  const auto& model = suite::dense_model("llama3.1-8b");
  const std::int64_t seq = 4096;
  const auto mask = suite::attention_mask(state.get_string("mask"), state.get_int("window"));
  if (mask.window > 0 && !mask.causal) {
    state.skip("a sliding window is swept with a causal mask only (as Mistral and Gemma use it)");
    return;
  }
  const std::string& layout = state.get_string("layout");
  const std::string& dtype = state.get_string("dtype");
  const Problem p{suite::attention_batch(seq), seq, model.q_heads, model.kv_heads, model.head_dim, mask,
                  state.get_float("dropout"), layout == "sbhd", dtype == "fp16"};
  run_attention(state, p, suite::parse_pass(state.get_string("pass")));
}
PITOT_BENCHMARK(attention_matrix)
    .axis("mask", suite::attention_mask_names())
    .axis("window", {0, 1024})
    .axis("dropout", {0.0, 0.1})
    .axis("layout", {"bshd", "sbhd"})
    .axis("dtype", {"bf16", "fp16"})
    .axis("pass", {"fwd", "bwd"});

}  // namespace

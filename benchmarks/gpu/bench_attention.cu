// Fused attention forward through cuDNN 9's graph API (the backend C API: no cudnn_frontend):
// softmax(scale * Q K^T [+ causal mask]) V for the grouped-query head configurations of the shape
// table (bf16 in and out, fp32 softmax), the way training frameworks call it: the forward also
// writes the softmax statistics the backward pass needs.
//
// The graph is the pattern cuDNN's flash-attention engine recognizes:
//   S = matmul(Q, K^T) -> S * scale -> [causal: select(row >= col, S, lowest)]
//   -> softmax as max, sub, exp, sum, div (Stats = max + log(sum)) -> O = matmul(P, V)
// Q, K, V and O are [batch, seq, heads, head_dim] in memory (BSHD); every point holds 8192 tokens
// (batch = 8192 / seq). Points cuDNN has no engine for are skipped with cuDNN's reason.
#include <pitot/pitot.hpp>

#include <cuda_bf16.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "check.hpp"
#include "device.cuh"
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
  // A float scalar passed by value at execution time.
  cudnnBackendDescriptor_t scalar(std::int64_t uid) {
    return tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, uid, false, true);
  }

  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    Descriptor& desc = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute).finalize();
    add_op(make(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR)
               .set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
               .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
               .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
               .set(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc.get()));
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
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kScale, kLowest };

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
  bool causal;
};

// Q, K, V and O in memory as [batch, seq, heads, head_dim]; cuDNN sees them as [b, h, s, d]
// (K as its transpose [b, h, d, s]) through strides.
void build_attention(GraphBuilder& b, const Problem& p) {
  const std::int64_t s = p.seq, d = p.head_dim, hq = p.q_heads, hk = p.kv_heads;
  auto q = b.tensor(CUDNN_DATA_BFLOAT16, {p.batch, hq, s, d}, {s * hq * d, d, hq * d, 1}, kQ, false);
  auto kt = b.tensor(CUDNN_DATA_BFLOAT16, {p.batch, hk, d, s}, {s * hk * d, d, 1, hk * d}, kK, false);
  auto v = b.tensor(CUDNN_DATA_BFLOAT16, {p.batch, hk, s, d}, {s * hk * d, d, hk * d, 1}, kV, false);
  auto o = b.tensor(CUDNN_DATA_BFLOAT16, {p.batch, hq, s, d}, {s * hq * d, d, hq * d, 1}, kO, false);
  const Dims row_dims{p.batch, hq, s, 1};
  auto stats = b.tensor(CUDNN_DATA_FLOAT, row_dims, packed_strides(row_dims), kStats, false);
  const Dims score_dims{p.batch, hq, s, s};

  auto scores = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.matmul(q, kt, scores);
  auto scaled = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  b.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, scores, b.scalar(kScale), nullptr, scaled);
  auto masked = scaled;
  if (p.causal) {
    // Keep key j for query i when i >= j; the rest get the lowest float.
    auto row = b.intermediate(CUDNN_DATA_INT32, score_dims);
    auto col = b.intermediate(CUDNN_DATA_INT32, score_dims);
    auto keep = b.intermediate(CUDNN_DATA_BOOLEAN, score_dims);
    masked = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
    b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scaled, nullptr, nullptr, row, 2);
    b.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scaled, nullptr, nullptr, col, 3);
    b.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, nullptr, keep);
    b.pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, scaled, b.scalar(kLowest), keep, masked);
  }
  // Softmax over keys, with Stats = max + log(sum) kept for the backward pass.
  auto max = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  auto shifted = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  auto exps = b.intermediate(CUDNN_DATA_FLOAT, score_dims);
  auto sum = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  auto log_sum = b.intermediate(CUDNN_DATA_FLOAT, row_dims);
  auto probabilities = b.intermediate(CUDNN_DATA_BFLOAT16, score_dims);  // the second matmul reads bf16
  b.reduction(CUDNN_REDUCE_TENSOR_MAX, masked, max);
  b.pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, masked, max, nullptr, shifted);
  b.pointwise(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, shifted, nullptr, nullptr, exps);
  b.reduction(CUDNN_REDUCE_TENSOR_ADD, exps, sum);
  b.pointwise(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, sum, nullptr, nullptr, log_sum);
  b.pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, max, log_sum, nullptr, stats);
  b.pointwise(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, exps, sum, nullptr, probabilities);
  b.matmul(probabilities, v, o);
}

void attention(pitot::State& state) {
  const auto& model = suite::dense_model(state.get_string("model"));
  const std::string& mask = state.get_string("mask");
  if (mask != "causal" && mask != "none") throw std::invalid_argument("mask must be causal or none, not " + mask);
  const std::int64_t seq = state.get_int("seq");
  const Problem p{suite::attention_batch(seq), seq, model.q_heads, model.kv_heads, model.head_dim, mask == "causal"};
  if (suite::compute_capability() < 80) {
    state.skip("cuDNN's fused attention needs compute capability 8.0 or newer");
    return;
  }
  const std::int64_t tokens = p.batch * p.seq;
  DeviceArray<__nv_bfloat16> q(tokens * p.q_heads * p.head_dim), k(tokens * p.kv_heads * p.head_dim),
      v(tokens * p.kv_heads * p.head_dim), o(tokens * p.q_heads * p.head_dim);
  DeviceArray<float> stats(p.batch * p.q_heads * p.seq);
  // Queries spread wider than keys so the softmax is peaked and a wrong mask or head shows.
  suite::fill_uniform(q.get(), q.size(), -8, 8, 51);
  suite::fill_uniform(k.get(), k.size(), -1, 1, 52);
  suite::fill_uniform(v.get(), v.size(), -1, 1, 53);
  suite::fill_uniform(o.get(), o.size(), -1, 1, 54);

  const cudnnHandle_t handle = cudnn_handle();
  GraphBuilder builder;
  build_attention(builder, p);
  const cudnnBackendDescriptor_t graph = builder.graph(handle);
  std::string why_not;
  const cudnnBackendDescriptor_t plan = make_plan(builder, handle, graph, why_not);
  if (!plan) {
    state.skip(why_not);
    return;
  }
  std::int64_t workspace_bytes = 0;
  std::int64_t returned = 0;
  SUITE_CUDNN_CHECK(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                             &returned, &workspace_bytes));
  DeviceArray<std::uint8_t> workspace(std::max<std::int64_t>(workspace_bytes, 1));

  // By-value scalars are read from host memory at each execution.
  const float scale = 1.0f / std::sqrt(static_cast<float>(p.head_dim));
  const float lowest = std::numeric_limits<float>::lowest();
  std::vector<std::int64_t> uids = {kQ, kK, kV, kO, kStats, kScale};
  std::vector<void*> pointers = {q.get(), k.get(), v.get(), o.get(), stats.get(), const_cast<float*>(&scale)};
  if (p.causal) {
    uids.push_back(kLowest);
    pointers.push_back(const_cast<float*>(&lowest));
  }
  void* workspace_pointer = workspace.get();
  Descriptor& pack = builder.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), static_cast<std::int64_t>(uids.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(),
           static_cast<std::int64_t>(pointers.size()))
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace_pointer)
      .finalize();
  auto run = [&](cudaStream_t stream) {
    SUITE_CUDNN_CHECK(cudnnSetStream(handle, stream));
    SUITE_CUDNN_CHECK(cudnnBackendExecute(handle, plan, pack.get()));
  };
  run(nullptr);
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());

  // Check query rows near the start (where causal masking matters most), the middle and the end,
  // for the first and last sequence and the first and last query head, against the CPU.
  const std::int64_t d = p.head_dim, group = p.q_heads / p.kv_heads;
  const std::vector<std::int64_t> positions = {0, 1, 2, p.seq / 3, p.seq / 2, p.seq - 2, p.seq - 1};
  std::vector<double> got, want;
  for (std::int64_t batch : suite::sample_indices(p.batch, 2))
    for (std::int64_t head : suite::sample_indices(p.q_heads, 2)) {
      const std::int64_t kv_head = head / group;
      const std::int64_t first_token = batch * p.seq;
      const auto keys = suite::decode(
          suite::strided_rows_to_host(k.get() + (first_token * p.kv_heads + kv_head) * d, d, p.kv_heads * d, p.seq));
      const auto values = suite::decode(
          suite::strided_rows_to_host(v.get() + (first_token * p.kv_heads + kv_head) * d, d, p.kv_heads * d, p.seq));
      for (std::int64_t i : positions) {
        const std::int64_t row = ((first_token + i) * p.q_heads + head) * d;
        const auto q_row = suite::decode(suite::to_host(q.get() + row, d));
        const auto o_row = suite::decode(suite::to_host(o.get() + row, d));
        const auto ref = suite::attention_row_reference(q_row, keys, values, p.causal ? i + 1 : p.seq, scale);
        want.insert(want.end(), ref.begin(), ref.end());
        got.insert(got.end(), o_row.begin(), o_row.end());
      }
    }
  // bf16 probabilities and output: 2^-7 relative plus 2^-7 absolute (values are within [-1, 1]).
  suite::require(suite::compare(got, want, 1.0 / 128, 1.0 / 128), "attention output");

  state.add_flops((p.causal ? 1.0 : 2.0) *
                  suite::causal_attention_flops(p.batch, p.q_heads, p.seq, p.head_dim));
  state.add_items(static_cast<double>(tokens));
  state.exec([&](pitot::Launch& l) { run(l.stream()); });
}
PITOT_BENCHMARK(attention)
    .axis("model", suite::attention_model_names())
    .axis("mask", {"causal", "none"})
    .axis("seq", suite::sequence_lengths());

}  // namespace

// Matrix products through cuBLAS, the library transformer frameworks call for their linear layers.
//   gemm_bf16, gemm_fp8: a linear layer Y[M,N] = X[M,K] W[N,K]^T for the qkv, attn_out, gate_up and
//                        down layers of the shape table's models at tensor parallelism 1 and 8, with a
//                        `pass` axis: fwd (Y), bwd (dgrad dX = dY W and wgrad dW = dY^T X), fwd+bwd
//                        (all three). bf16 output; FP8 is E4M3 for X and W, E5M2 for dY (the
//                        "hybrid" recipe of Transformer Engine), one dequantization scale per tensor.
//   moe_bf16:            a MoE layer's grouped GEMM over one GPU's experts, per-expert row counts from
//                        a router (balanced or skewed): impl=grouped is one cublasGemmGroupedBatchedEx
//                        call (each expert its own M), impl=strided the cuBLASLt strided-batched
//                        baseline (every expert padded to the largest expert's rows)
//   moe_fp8:             the strided-batched baseline in FP8 (cublasGemmGroupedBatchedEx has no FP8
//                        types in CUDA 13, and cuBLASLt's batches are all one shape)
//   square_bf16/_fp8:    M = N = K, the shape usually quoted as a GPU's GEMM ceiling
// Each point first checks 128 entries of every product against a double-precision CPU product of
// the same inputs.
#include <pitot/pitot.hpp>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "check.hpp"
#include "cublaslt.hpp"
#include "device.cuh"
#include "reference.hpp"
#include "shapes.hpp"

namespace {

using suite::DeviceArray;
using suite::kCublasWorkspaceBytes;
using suite::Layout;
using suite::lt_handle;
using suite::MatmulDesc;
using suite::Preference;

enum class Precision { Bf16, Fp8 };

template <class T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  SUITE_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value));
}

// A column-major rows x cols matrix of `type` (cuBLAS's view) with leading dimension ld, `batch` of
// them `stride` elements apart.
Layout layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch,
              std::int64_t stride) {
  cublasLtMatrixLayout_t raw = nullptr;
  SUITE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&raw, type, rows, cols, ld));
  Layout l(raw);
  if (batch > 1) {
    const auto count = static_cast<std::int32_t>(batch);
    SUITE_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
    SUITE_CUBLAS_CHECK(
        cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return l;
}

std::size_t type_size(cudaDataType_t type) { return type == CUDA_R_16BF ? 2 : 1; }

// One operand as stored: a row-major [rows, cols] matrix (`batch` of them, one after the other),
// its type and, for FP8, its dequantization scale (device memory).
struct Matrix {
  const void* data;
  cudaDataType_t type;
  std::int64_t rows, cols;
  const float* scale = nullptr;
  float scale_value = 1.0f;
};

// One product in row-major terms, OUT[b][p, q] = sum_t X[b][p, t] Y[b][q, t] (times the scales),
// where X is `x` as stored or, with x_transposed, its transpose (x stored [T, P]); likewise Y.
// OUT is bf16 [P, Q]. cuBLAS (column-major) computes OUT^T = op(Y) op(X).
struct Product {
  Matrix x;
  bool x_transposed;
  Matrix y;
  bool y_transposed;
  void* out;
  std::int64_t p, q, t, batch = 1;
};

// A cuBLASLt plan for one Product: the first algorithm of the heuristic's candidates that runs.
class LtProduct {
 public:
  // Empty on success, otherwise why this product cannot run here (the point is skipped).
  std::string prepare(const Product& pr, void* workspace) {
    pr_ = pr;
    workspace_ = workspace;
    cublasLtMatmulDesc_t raw_desc = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    desc_.reset(raw_desc);
    // cuBLAS's A is op(Y) [Q x T] and its B op(X) [T x P]: Y stored row-major [Q, T] is column-major
    // T x Q, so A = that with op T; stored [T, Q] it is column-major Q x T, op N.
    const cublasOperation_t op_a = pr.y_transposed ? CUBLAS_OP_N : CUBLAS_OP_T;
    const cublasOperation_t op_b = pr.x_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    set(raw_desc, CUBLASLT_MATMUL_DESC_TRANSA, op_a);
    set(raw_desc, CUBLASLT_MATMUL_DESC_TRANSB, op_b);
    if (pr.y.scale) set(raw_desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, pr.y.scale);
    if (pr.x.scale) set(raw_desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, pr.x.scale);
    a_ = pr.y_transposed ? layout(pr.y.type, pr.q, pr.t, pr.q, pr.batch, pr.q * pr.t)
                         : layout(pr.y.type, pr.t, pr.q, pr.t, pr.batch, pr.q * pr.t);
    b_ = pr.x_transposed ? layout(pr.x.type, pr.p, pr.t, pr.p, pr.batch, pr.p * pr.t)
                         : layout(pr.x.type, pr.t, pr.p, pr.t, pr.batch, pr.p * pr.t);
    c_ = layout(CUDA_R_16BF, pr.q, pr.p, pr.q, pr.batch, pr.p * pr.q);

    cublasLtMatmulPreference_t raw_pref = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_pref));
    Preference pref(raw_pref);
    const std::uint64_t workspace_bytes = kCublasWorkspaceBytes;
    SUITE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(raw_pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                            &workspace_bytes, sizeof workspace_bytes));
    // Several candidates: cuBLASLt's heuristic can offer an algorithm that cublasLtMatmul then
    // refuses (seen for FP8 on an H200), so the first candidate that runs is the one timed.
    constexpr int kCandidates = 8;
    cublasLtMatmulHeuristicResult_t heuristics[kCandidates] = {};
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(lt_handle(), raw_desc, a_.get(), b_.get(), c_.get(),
                                                                 c_.get(), raw_pref, kCandidates, heuristics, &found);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE ||
        (status == CUBLAS_STATUS_SUCCESS && found == 0))
      return std::string("cuBLASLt has no algorithm for this shape, layout and type on this GPU (") +
             cublasLtGetStatusName(status) + ")";
    SUITE_CUBLAS_CHECK(status);
    for (int i = 0; i < found; ++i) {
      const cublasStatus_t run = matmul(heuristics[i].algo, nullptr);
      if (run == CUBLAS_STATUS_SUCCESS) {
        algo_ = heuristics[i].algo;
        return "";
      }
      if (run != CUBLAS_STATUS_NOT_SUPPORTED) SUITE_CUBLAS_CHECK(run);
    }
    return "cuBLASLt refused all " + std::to_string(found) + " algorithms its heuristic offered (NOT_SUPPORTED)";
  }

  void run(cudaStream_t stream) const { SUITE_CUBLAS_CHECK(matmul(*algo_, stream)); }

 private:
  cublasStatus_t matmul(const cublasLtMatmulAlgo_t& algo, cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasLtMatmul(lt_handle(), desc_.get(), &alpha, pr_.y.data, a_.get(), pr_.x.data, b_.get(), &beta,
                          pr_.out, c_.get(), pr_.out, c_.get(), &algo, workspace_, kCublasWorkspaceBytes, stream);
  }

  Product pr_{};
  void* workspace_ = nullptr;
  MatmulDesc desc_;
  Layout a_, b_, c_;
  std::optional<cublasLtMatmulAlgo_t> algo_;
};

// `count` elements of row `index` of a logical [*, T] matrix stored as `m` (transposed: stored [T, *]),
// in batch `b`, decoded to float.
std::vector<float> logical_row(const Matrix& m, bool transposed, std::int64_t b, std::int64_t index) {
  const std::size_t size = type_size(m.type);
  const auto* base = static_cast<const std::uint8_t*>(m.data) + b * m.rows * m.cols * static_cast<std::int64_t>(size);
  std::vector<std::uint8_t> bytes;
  std::int64_t count;
  if (!transposed) {
    count = m.cols;
    bytes = suite::to_host(base + index * m.cols * static_cast<std::int64_t>(size), count * static_cast<std::int64_t>(size));
  } else {
    count = m.rows;  // column `index` of the stored matrix
    bytes.resize(static_cast<std::size_t>(count) * size);
    PITOT_CUDA_CHECK(cudaMemcpy2D(bytes.data(), size, base + index * static_cast<std::int64_t>(size), m.cols * size,
                                  size, static_cast<std::size_t>(count), cudaMemcpyDeviceToHost));
  }
  if (m.type == CUDA_R_16BF) {
    std::vector<__nv_bfloat16> values(static_cast<std::size_t>(count));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return suite::decode(values);
  }
  return suite::decode(bytes, m.type == CUDA_R_8F_E4M3 ? suite::Fp8::E4M3 : suite::Fp8::E5M2);
}

// Checks 8 x 16 entries of OUT in the first and last batch against the CPU.
void check_product(const Product& pr, const std::string& what) {
  const auto ps = suite::sample_indices(pr.p, 8), qs = suite::sample_indices(pr.q, 16);
  for (std::int64_t b : suite::sample_indices(pr.batch, 2)) {
    std::vector<float> x_rows, y_rows;
    for (auto i : ps) {
      const auto r = logical_row(pr.x, pr.x_transposed, b, i);
      x_rows.insert(x_rows.end(), r.begin(), r.end());
    }
    for (auto j : qs) {
      const auto r = logical_row(pr.y, pr.y_transposed, b, j);
      y_rows.insert(y_rows.end(), r.begin(), r.end());
    }
    const auto want = suite::gemm_reference(x_rows, y_rows, pr.t,
                                            static_cast<double>(pr.x.scale_value) * pr.y.scale_value);
    const auto out = suite::decode(suite::rows_to_host(static_cast<const __nv_bfloat16*>(pr.out) + b * pr.p * pr.q,
                                                       pr.q, ps));
    std::vector<double> got, atol;
    for (std::size_t i = 0; i < ps.size(); ++i)
      for (std::size_t j = 0; j < qs.size(); ++j) {
        got.push_back(out[i * pr.q + qs[j]]);
        atol.push_back(suite::kGemmAtol * want.magnitude[i * qs.size() + j]);
      }
    suite::require(suite::compare(got, want.value, suite::kBf16Rtol, atol),
                   what + " entries" + (pr.batch > 1 ? " of batch " + std::to_string(b) : ""));
  }
}

bool require_capability(pitot::State& state, Precision precision) {
  const bool fp8 = precision == Precision::Fp8;
  const int cc = suite::compute_capability();
  if (cc >= (fp8 ? 89 : 80)) return true;
  state.skip(std::string(fp8 ? "FP8" : "BF16") + " GEMMs need compute capability " + (fp8 ? "8.9" : "8.0") +
             "; this GPU has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10));
  return false;
}

// FP8 codes of uniform values in [lo, hi) written transposed: out[j * rows + i] holds the value that
// fill_uniform_fp8(seed) puts at [i * cols + j], so a transposed copy holds the same numbers.
__global__ void fill_fp8_transposed(std::uint8_t* out, std::int64_t rows, std::int64_t cols, float lo, float hi,
                                    __nv_fp8_interpretation_t format, std::uint64_t seed) {
  const std::int64_t n = rows * cols;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = e / rows, i = e % rows;
    out[e] = __nv_cvt_float_to_fp8(suite::uniform_at(seed, static_cast<std::uint64_t>(i * cols + j), lo, hi),
                                   __NV_SATFINITE, format);
  }
}

// An operand's buffer: bf16 uniform in [-1, 1), or FP8 codes uniform in [-2, 2) (dequantized by
// `scale`), optionally stored transposed (the same values).
struct Operand {
  std::unique_ptr<DeviceArray<std::uint8_t>> buffer;
  Matrix matrix;
};
Operand make_operand(Precision precision, suite::Fp8 format, std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                     const float* scale, float scale_value, bool stored_transposed = false) {
  const bool fp8 = precision == Precision::Fp8;
  Operand o;
  o.buffer = std::make_unique<DeviceArray<std::uint8_t>>(rows * cols * (fp8 ? 1 : 2));
  if (!fp8) {
    suite::fill_uniform(reinterpret_cast<__nv_bfloat16*>(o.buffer->get()), rows * cols, -1, 1, seed);
    o.matrix = {o.buffer->get(), CUDA_R_16BF, rows, cols};
    return o;
  }
  const auto type = format == suite::Fp8::E4M3 ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2;
  if (!stored_transposed) {
    suite::fill_uniform_fp8(o.buffer->get(), rows * cols, -2, 2, format, seed);
    o.matrix = {o.buffer->get(), type, rows, cols, scale, scale_value};
  } else {
    fill_fp8_transposed<<<4096, 256>>>(o.buffer->get(), rows, cols, -2, 2, format == suite::Fp8::E4M3 ? __NV_E4M3 : __NV_E5M2,
                                       seed);
    PITOT_CUDA_CHECK(cudaGetLastError());
    o.matrix = {o.buffer->get(), type, cols, rows, scale, scale_value};  // stored [cols, rows]
  }
  return o;
}

// Products timed back to back on one stream, each checked before timing.
struct Work {
  std::vector<Product> products;
  std::vector<std::string> names;
};

void run_products(pitot::State& state, Work& work, double flops) {
  auto workspace = std::make_unique<DeviceArray<std::uint8_t>>(kCublasWorkspaceBytes);
  std::vector<std::unique_ptr<LtProduct>> plans;
  for (std::size_t i = 0; i < work.products.size(); ++i) {
    plans.push_back(std::make_unique<LtProduct>());
    const std::string why_not = plans.back()->prepare(work.products[i], workspace->get());
    if (!why_not.empty()) {
      state.skip(work.names[i] + ": " + why_not);
      return;
    }
  }
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < work.products.size(); ++i) check_product(work.products[i], work.names[i]);
  double bytes = 0;
  for (const auto& pr : work.products)
    bytes += static_cast<double>(pr.batch) *
             (static_cast<double>(type_size(pr.x.type)) * pr.p * pr.t + static_cast<double>(type_size(pr.y.type)) * pr.q * pr.t +
              2.0 * pr.p * pr.q);
  state.add_flops(flops);
  state.add_bytes(bytes);
  state.exec([&](pitot::Launch& l) {
    for (const auto& plan : plans) plan->run(l.stream());
  });
}

// A linear layer's products for the chosen passes. FP8 on Hopper needs both operands K-major (the
// "TN" layout), so the backward reads transposed FP8 copies of W, X and dY, made untimed here as
// Transformer Engine keeps them (its cast-transpose kernels are not timed).
void run_linear(pitot::State& state, Precision precision, std::int64_t m, std::int64_t n, std::int64_t k,
                const suite::Passes& passes) {
  if (!require_capability(state, precision)) return;
  const bool fp8 = precision == Precision::Fp8;
  // Dequantization scales: X 0.25, W 0.5, dY 0.125 (at [0], [4], [8]: 16-byte aligned pointers).
  DeviceArray<float> scales(12);
  suite::fill_value(scales.get(), 1, 0.25f);
  suite::fill_value(scales.get() + 4, 1, 0.5f);
  suite::fill_value(scales.get() + 8, 1, 0.125f);
  const float* sx = fp8 ? scales.get() : nullptr;
  const float* sw = fp8 ? scales.get() + 4 : nullptr;
  const float* sdy = fp8 ? scales.get() + 8 : nullptr;
  const float vx = fp8 ? 0.25f : 1.0f, vw = fp8 ? 0.5f : 1.0f, vdy = fp8 ? 0.125f : 1.0f;
  using suite::Fp8;
  std::vector<Operand> keep;
  std::vector<std::unique_ptr<DeviceArray<__nv_bfloat16>>> outputs;
  auto output = [&](std::int64_t elems) {
    outputs.push_back(std::make_unique<DeviceArray<__nv_bfloat16>>(elems));
    suite::fill_uniform(outputs.back()->get(), elems, -1, 1, 43);  // noise: an unwritten output fails
    return static_cast<void*>(outputs.back()->get());
  };
  auto operand = [&](Fp8 format, std::int64_t rows, std::int64_t cols, std::uint64_t seed, const float* scale,
                     float value, bool transposed = false) {
    keep.push_back(make_operand(precision, format, rows, cols, seed, scale, value, transposed));
    return keep.back().matrix;
  };
  Work work;
  std::optional<Matrix> x, w;  // made once, shared by the forward and the bf16 backward
  auto need_x_w = [&] {
    if (!x) x = operand(Fp8::E4M3, m, k, 41, sx, vx);
    if (!w) w = operand(Fp8::E4M3, n, k, 42, sw, vw);
  };
  if (passes.forward) {
    need_x_w();
    work.products.push_back({*x, false, *w, false, output(m * n), m, n, k});  // Y = X W^T
    work.names.push_back("forward Y");
  }
  if (passes.backward) {
    const Matrix dy = operand(Fp8::E5M2, m, n, 44, sdy, vdy);
    if (!fp8) {
      need_x_w();
      // dX[m, k] = sum_n dY[m, n] W[n, k]: Y-operand rows are W's columns (W as its transpose).
      work.products.push_back({dy, false, *w, true, output(m * k), m, k, n});
      // dW[n, k] = sum_m dY[m, n] X[m, k]: both operands transposed.
      work.products.push_back({dy, true, *x, true, output(n * k), n, k, m});
    } else {
      const Matrix wt = operand(Fp8::E4M3, n, k, 42, sw, vw, true);     // W^T stored [k, n]
      const Matrix xt = operand(Fp8::E4M3, m, k, 41, sx, vx, true);     // X^T stored [k, m]
      const Matrix dyt = operand(Fp8::E5M2, m, n, 44, sdy, vdy, true);  // dY^T stored [n, m]
      work.products.push_back({dy, false, wt, false, output(m * k), m, k, n});
      work.products.push_back({dyt, false, xt, false, output(n * k), n, k, m});
    }
    work.names.push_back("dgrad dX");
    work.names.push_back("wgrad dW");
  }
  run_products(state, work,
               (passes.forward ? 1.0 : 0.0) * suite::gemm_flops(m, n, k) +
                   (passes.backward ? 2.0 : 0.0) * suite::gemm_flops(m, n, k));
}

void dense(pitot::State& state, Precision precision) {
  const auto& model = suite::dense_model(state.get_string("model"));
  const auto shape = suite::linear_shape(model, state.get_string("layer"), state.get_int("tp"));
  run_linear(state, precision, state.get_int("M"), shape.n, shape.k, suite::parse_pass(state.get_string("pass")));
}

void square(pitot::State& state, Precision precision) {
  const std::int64_t n = state.get_int("n");
  run_linear(state, precision, n, n, n, {true, false});
}

// --- MoE ----------------------------------------------------------------------------------------

// cuBLAS (not cuBLASLt) is opened at run time: a machine without libcublas.so.13 skips the grouped
// points instead of failing to start the program.
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
  decltype(&cublasGemmGroupedBatchedEx) grouped = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  cublasHandle_t handle = nullptr;
  std::string error;
};

const CublasApi& cublas() {
  static const CublasApi api = [] {
    CublasApi a;
    void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      a.error = std::string("cannot open libcublas.so.13: ") + dlerror();
      return a;
    }
    a.create = reinterpret_cast<decltype(a.create)>(dlsym(lib, "cublasCreate_v2"));
    a.set_stream = reinterpret_cast<decltype(a.set_stream)>(dlsym(lib, "cublasSetStream_v2"));
    a.set_workspace = reinterpret_cast<decltype(a.set_workspace)>(dlsym(lib, "cublasSetWorkspace_v2"));
    a.grouped = reinterpret_cast<decltype(a.grouped)>(dlsym(lib, "cublasGemmGroupedBatchedEx"));
    a.status_name = reinterpret_cast<decltype(a.status_name)>(dlsym(lib, "cublasGetStatusName"));
    if (!a.create || !a.set_stream || !a.set_workspace || !a.grouped || !a.status_name) {
      a.error = "libcublas.so.13 lacks cublasGemmGroupedBatchedEx or its helpers";
      return a;
    }
    const cublasStatus_t status = a.create(&a.handle);
    if (status != CUBLAS_STATUS_SUCCESS) a.error = std::string("cublasCreate failed: ") + a.status_name(status);
    return a;
  }();
  return api;
}

void moe(pitot::State& state, Precision precision) {
  const auto& model = suite::moe_model(state.get_string("model"));
  const std::int64_t ep = state.get_int("ep");
  if (model.experts % ep != 0) {
    state.skip(std::to_string(model.experts) + " experts do not split over " + std::to_string(ep) + " GPUs");
    return;
  }
  if (!require_capability(state, precision)) return;
  const auto shape = suite::moe_shape(model, state.get_string("layer"), state.get_int("M"), ep);
  const std::string& routing = state.get_string("routing");
  const std::vector<std::int64_t> rows = suite::routed_rows(shape.total_rows, shape.groups, routing);
  const std::int64_t g_count = shape.groups, n = shape.n, k = shape.k;
  // Useful work: every routed row times its expert's weight, whatever the call computes.
  const double flops = suite::gemm_flops(shape.total_rows, n, k);
  const std::string& impl = state.get_string("impl");

  if (impl == "strided") {
    // One strided batch: every expert padded to the largest expert's rows (the zero rows a
    // capacity-padded dispatch gives it), so the call computes groups x max rows.
    const std::int64_t padded = *std::max_element(rows.begin(), rows.end());
    DeviceArray<float> scales(8);
    const bool fp8 = precision == Precision::Fp8;
    suite::fill_value(scales.get(), 1, 0.25f);
    suite::fill_value(scales.get() + 4, 1, 0.5f);
    Operand x = make_operand(precision, suite::Fp8::E4M3, g_count * padded, k, 41, fp8 ? scales.get() : nullptr,
                             fp8 ? 0.25f : 1.0f);
    Operand w = make_operand(precision, suite::Fp8::E4M3, g_count * n, k, 42, fp8 ? scales.get() + 4 : nullptr,
                             fp8 ? 0.5f : 1.0f);
    x.matrix.rows = padded;  // per batch
    w.matrix.rows = n;
    DeviceArray<__nv_bfloat16> out(g_count * padded * n);
    suite::fill_uniform(out.get(), out.size(), -1, 1, 43);
    Work work;
    work.products.push_back({x.matrix, false, w.matrix, false, out.get(), padded, n, k, g_count});
    work.names.push_back("strided-batched experts");
    run_products(state, work, flops);
    return;
  }
  if (impl != "grouped") throw std::invalid_argument("impl must be grouped or strided, not " + impl);
  if (precision == Precision::Fp8) {
    state.skip("cublasGemmGroupedBatchedEx has no FP8 types");
    return;
  }
  const CublasApi& api = cublas();
  if (!api.error.empty()) {
    state.skip(api.error);
    return;
  }
  // Routed tokens contiguous by expert (as after the dispatch's permutation): X [R, K], OUT [R, N],
  // W [G, N, K]. Group g: OUT_g^T (N x rows_g) = W_g^T... in cuBLAS terms op_T(W_g: K x N) * X_g (K x rows_g).
  DeviceArray<__nv_bfloat16> x(shape.total_rows * k), w(g_count * n * k), out(shape.total_rows * n);
  suite::fill_uniform(x.get(), x.size(), -1, 1, 41);
  suite::fill_uniform(w.get(), w.size(), -1, 1, 42);
  suite::fill_uniform(out.get(), out.size(), -1, 1, 43);
  std::vector<std::int64_t> first(static_cast<std::size_t>(g_count), 0);
  for (std::int64_t g = 1; g < g_count; ++g) first[g] = first[g - 1] + rows[g - 1];
  std::vector<cublasOperation_t> trans_a(g_count, CUBLAS_OP_T), trans_b(g_count, CUBLAS_OP_N);
  std::vector<int> m_arr(g_count, static_cast<int>(n)), n_arr(g_count), k_arr(g_count, static_cast<int>(k)),
      lda(g_count, static_cast<int>(k)), ldb(g_count, static_cast<int>(k)), ldc(g_count, static_cast<int>(n)),
      group_size(g_count, 1);
  std::vector<float> alpha(g_count, 1.0f), beta(g_count, 0.0f);
  std::vector<const void*> a_ptrs(g_count), b_ptrs(g_count);
  std::vector<void*> c_ptrs(g_count);
  for (std::int64_t g = 0; g < g_count; ++g) {
    n_arr[g] = static_cast<int>(rows[g]);
    a_ptrs[g] = w.get() + g * n * k;
    b_ptrs[g] = x.get() + first[g] * k;
    c_ptrs[g] = out.get() + first[g] * n;
  }
  // The pointer arrays live in device memory.
  DeviceArray<const void*> a_dev(g_count), b_dev(g_count);
  DeviceArray<void*> c_dev(g_count);
  PITOT_CUDA_CHECK(cudaMemcpy(a_dev.get(), a_ptrs.data(), a_dev.bytes(), cudaMemcpyHostToDevice));
  PITOT_CUDA_CHECK(cudaMemcpy(b_dev.get(), b_ptrs.data(), b_dev.bytes(), cudaMemcpyHostToDevice));
  PITOT_CUDA_CHECK(cudaMemcpy(c_dev.get(), c_ptrs.data(), c_dev.bytes(), cudaMemcpyHostToDevice));
  DeviceArray<std::uint8_t> workspace(kCublasWorkspaceBytes);
  auto grouped = [&](cudaStream_t stream) {
    cublasStatus_t s = api.set_stream(api.handle, stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = api.set_workspace(api.handle, workspace.get(), kCublasWorkspaceBytes);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = api.grouped(api.handle, trans_a.data(), trans_b.data(), m_arr.data(), n_arr.data(), k_arr.data(),
                      alpha.data(), a_dev.get(), CUDA_R_16BF, lda.data(), b_dev.get(), CUDA_R_16BF, ldb.data(),
                      beta.data(), c_dev.get(), CUDA_R_16BF, ldc.data(), static_cast<int>(g_count),
                      group_size.data(), CUBLAS_COMPUTE_32F);
    return s;
  };
  const cublasStatus_t first_run = grouped(nullptr);
  if (first_run == CUBLAS_STATUS_NOT_SUPPORTED || first_run == CUBLAS_STATUS_ARCH_MISMATCH) {
    state.skip(std::string("cublasGemmGroupedBatchedEx: ") + api.status_name(first_run));
    return;
  }
  if (first_run != CUBLAS_STATUS_SUCCESS)
    suite::fail_library_call("cuBLAS", "cublasGemmGroupedBatchedEx", api.status_name(first_run), __FILE__, __LINE__);
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());
  // Check the first, the last and the largest expert.
  std::vector<std::int64_t> checked = {0, g_count - 1,
                                       std::max_element(rows.begin(), rows.end()) - rows.begin()};
  std::sort(checked.begin(), checked.end());
  checked.erase(std::unique(checked.begin(), checked.end()), checked.end());
  for (std::int64_t g : checked) {
    const Matrix xg{x.get() + first[g] * k, CUDA_R_16BF, rows[g], k};
    const Matrix wg{w.get() + g * n * k, CUDA_R_16BF, n, k};
    check_product({xg, false, wg, false, out.get() + first[g] * n, rows[g], n, k}, "expert " + std::to_string(g));
  }
  state.add_flops(flops);
  state.add_bytes(static_cast<double>(x.bytes() + w.bytes() + out.bytes()));
  state.exec([&](pitot::Launch& l) {
    const cublasStatus_t s = grouped(l.stream());
    if (s != CUBLAS_STATUS_SUCCESS)
      suite::fail_library_call("cuBLAS", "cublasGemmGroupedBatchedEx", api.status_name(s), __FILE__, __LINE__);
  });
}

void gemm_bf16(pitot::State& state) { dense(state, Precision::Bf16); }
void gemm_fp8(pitot::State& state) { dense(state, Precision::Fp8); }
void moe_bf16(pitot::State& state) { moe(state, Precision::Bf16); }
void moe_fp8(pitot::State& state) { moe(state, Precision::Fp8); }
void square_bf16(pitot::State& state) { square(state, Precision::Bf16); }
void square_fp8(pitot::State& state) { square(state, Precision::Fp8); }

// Dense GEMMs: M 2048 and 8192 (of the table's 1024-8192), and the table's models but
// Qwen2.5-72B (Llama-3.1-70B's shapes but for the MLP width), keep the suite's wall time within
// its budget now that every shape runs three passes (docs/suite.md).
const std::vector<std::int64_t> kDenseTokens = {2048, 8192};
std::vector<std::string> gemm_models() {
  std::vector<std::string> names;
  for (const auto& name : suite::dense_model_names())
    if (name != "qwen2.5-72b") names.push_back(name);
  return names;
}

PITOT_BENCHMARK(gemm_bf16)
    .axis("model", gemm_models())
    .axis("tp", suite::tensor_parallel_degrees())
    .axis("layer", suite::linear_layer_names())
    .axis("M", kDenseTokens)
    .axis("pass", suite::pass_names())
    .version("2");
PITOT_BENCHMARK(gemm_fp8)
    .axis("model", gemm_models())
    .axis("tp", suite::tensor_parallel_degrees())
    .axis("layer", suite::linear_layer_names())
    .axis("M", kDenseTokens)
    .axis("pass", suite::pass_names())
    .version("2");
PITOT_BENCHMARK(moe_bf16)
    .axis("model", suite::moe_model_names())
    .axis("ep", suite::expert_parallel_degrees())
    .axis("layer", suite::moe_layer_names())
    .axis("routing", suite::routing_names())
    .axis("M", suite::moe_token_counts())
    .axis("impl", {"grouped", "strided"})
    .version("2");
PITOT_BENCHMARK(moe_fp8)
    .axis("model", suite::moe_model_names())
    .axis("ep", suite::expert_parallel_degrees())
    .axis("layer", suite::moe_layer_names())
    .axis("routing", suite::routing_names())
    .axis("M", suite::moe_token_counts())
    .axis("impl", {"strided"})
    .version("2");
PITOT_BENCHMARK(square_bf16).axis("n", {4096, 8192});
PITOT_BENCHMARK(square_fp8).axis("n", {4096, 8192});

}  // namespace

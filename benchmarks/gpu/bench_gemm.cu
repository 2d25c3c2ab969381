// Matrix products through cuBLASLt, the library transformer frameworks call for their linear layers.
//   gemm_bf16, gemm_fp8: C[M,N] = A[M,K] W[N,K]^T for the qkv, attn_out, gate_up and down layers of
//                        the shape table's models at tensor parallelism 1 and 8 (bf16 output; FP8 is
//                        E4M3 with one dequantization scale per tensor, A and W)
//   moe_bf16, moe_fp8:   a grouped GEMM for MoE layers: one cuBLASLt call over all of a GPU's experts
//                        as a strided batch, every expert with the same row count (balanced routing;
//                        a real router gives uneven groups, which a batched call cannot express)
//   square_bf16/_fp8:    M = N = K, the shape usually quoted as a GPU's GEMM ceiling
// Each point first checks 128 entries of C against a double-precision CPU product of the same inputs.
#include <pitot/pitot.hpp>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "check.hpp"
#include "device.cuh"
#include "reference.hpp"
#include "shapes.hpp"

namespace {

using suite::DeviceArray;

constexpr std::size_t kWorkspaceBytes = 32u << 20;  // what cuBLAS recommends for Hopper

enum class Precision { Bf16, Fp8 };

// One cuBLASLt handle for the process: points run one at a time, each on the stream exec gives it.
// Never destroyed: its destructor would run after the CUDA runtime has shut down.
cublasLtHandle_t lt_handle() {
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtCreate(&h));
    return h;
  }();
  return handle;
}

// cuBLASLt descriptors, destroyed with the point.
struct DescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* d) const { cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayoutOpaque_t* d) const { cublasLtMatrixLayoutDestroy(d); }
  void operator()(cublasLtMatmulPreferenceOpaque_t* d) const { cublasLtMatmulPreferenceDestroy(d); }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, DescDeleter>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, DescDeleter>;

template <class T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  SUITE_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value));
}

// A column-major rows x cols matrix of `type` (cuBLAS's view), `batch` of them `stride` apart.
Layout layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t batch, std::int64_t stride) {
  cublasLtMatrixLayout_t raw = nullptr;
  SUITE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&raw, type, rows, cols, rows));
  Layout l(raw);
  if (batch > 1) {
    const auto count = static_cast<std::int32_t>(batch);
    SUITE_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
    SUITE_CUBLAS_CHECK(
        cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return l;
}

// `batch` independent products C_b[m,n] = sa * sw * A_b[m,k] W_b[n,k]^T, row-major, bf16 out.
// Row-major C is column-major C^T = W A^T: cuBLAS computes D(n x m) = op_T(W: k x n) * (A: k x m),
// the "TN" layout FP8 requires on Hopper.
struct Gemm {
  std::int64_t batch, m, n, k;
  Precision precision;
};

void run_gemm(pitot::State& state, const Gemm& g) {
  const bool fp8 = g.precision == Precision::Fp8;
  const int cc = suite::compute_capability();
  if (cc < (fp8 ? 89 : 80)) {
    state.skip(std::string(fp8 ? "FP8" : "BF16") + " GEMMs need compute capability " + (fp8 ? "8.9" : "8.0") +
               "; this GPU has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10));
    return;
  }
  const cudaDataType_t in_type = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
  const std::size_t in_size = fp8 ? 1 : 2;
  const std::int64_t a_elems = g.batch * g.m * g.k, w_elems = g.batch * g.n * g.k, c_elems = g.batch * g.m * g.n;

  // Inputs: bf16 uniform in [-1, 1); FP8 codes uniform in [-2, 2) with dequantization scales
  // 0.25 (A) and 0.5 (W), so the scales visibly matter. The output starts as noise.
  DeviceArray<std::uint8_t> a(a_elems * static_cast<std::int64_t>(in_size)), w(w_elems * static_cast<std::int64_t>(in_size));
  DeviceArray<__nv_bfloat16> c(c_elems);
  DeviceArray<float> scales(8);  // A's scale at [0], W's at [4]: each pointer 16-byte aligned
  DeviceArray<std::uint8_t> workspace(kWorkspaceBytes);
  const float a_scale = fp8 ? 0.25f : 1.0f, w_scale = fp8 ? 0.5f : 1.0f;
  if (fp8) {
    suite::fill_uniform_fp8(a.get(), a_elems, -2, 2, suite::Fp8::E4M3, 41);
    suite::fill_uniform_fp8(w.get(), w_elems, -2, 2, suite::Fp8::E4M3, 42);
  } else {
    suite::fill_uniform(reinterpret_cast<__nv_bfloat16*>(a.get()), a_elems, -1, 1, 41);
    suite::fill_uniform(reinterpret_cast<__nv_bfloat16*>(w.get()), w_elems, -1, 1, 42);
  }
  suite::fill_uniform(c.get(), c_elems, -1, 1, 43);
  suite::fill_value(scales.get(), 1, a_scale);
  suite::fill_value(scales.get() + 4, 1, w_scale);

  cublasLtMatmulDesc_t raw_desc = nullptr;
  SUITE_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  MatmulDesc desc(raw_desc);
  set(raw_desc, CUBLASLT_MATMUL_DESC_TRANSA, cublasOperation_t{CUBLAS_OP_T});
  set(raw_desc, CUBLASLT_MATMUL_DESC_TRANSB, cublasOperation_t{CUBLAS_OP_N});
  if (fp8) {
    // cuBLAS's A is our W and its B our A.
    set(raw_desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const float*>(scales.get() + 4));
    set(raw_desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const float*>(scales.get()));
  }
  const Layout w_layout = layout(in_type, g.k, g.n, g.batch, g.n * g.k);
  const Layout a_layout = layout(in_type, g.k, g.m, g.batch, g.m * g.k);
  const Layout c_layout = layout(CUDA_R_16BF, g.n, g.m, g.batch, g.m * g.n);

  cublasLtMatmulPreference_t raw_pref = nullptr;
  SUITE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_pref));
  Preference pref(raw_pref);
  const std::uint64_t workspace_bytes = kWorkspaceBytes;
  SUITE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(raw_pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &workspace_bytes, sizeof workspace_bytes));
  // Several candidates: cuBLASLt's heuristic can offer an algorithm that cublasLtMatmul then
  // refuses (seen for FP8 on an H200), so the first candidate that runs is the one timed.
  constexpr int kCandidates = 8;
  cublasLtMatmulHeuristicResult_t heuristics[kCandidates] = {};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(lt_handle(), raw_desc, w_layout.get(), a_layout.get(),
                                                               c_layout.get(), c_layout.get(), raw_pref, kCandidates,
                                                               heuristics, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0)) {
    state.skip("cuBLASLt has no algorithm for this shape and type on this GPU");
    return;
  }
  SUITE_CUBLAS_CHECK(status);

  const float alpha = 1.0f, beta = 0.0f;
  const cublasLtMatmulAlgo_t* algo = nullptr;
  auto try_matmul = [&](const cublasLtMatmulAlgo_t& candidate, cudaStream_t stream) {
    return cublasLtMatmul(lt_handle(), raw_desc, &alpha, w.get(), w_layout.get(), a.get(), a_layout.get(), &beta,
                          c.get(), c_layout.get(), c.get(), c_layout.get(), &candidate, workspace.get(),
                          kWorkspaceBytes, stream);
  };
  for (int i = 0; i < found && !algo; ++i) {
    const cublasStatus_t run = try_matmul(heuristics[i].algo, nullptr);
    if (run == CUBLAS_STATUS_SUCCESS) algo = &heuristics[i].algo;
    else if (run != CUBLAS_STATUS_NOT_SUPPORTED) SUITE_CUBLAS_CHECK(run);
  }
  if (!algo) {
    state.skip("cuBLASLt refused all " + std::to_string(found) + " algorithms its heuristic offered (NOT_SUPPORTED)");
    return;
  }
  auto matmul = [&](cudaStream_t stream) { SUITE_CUBLAS_CHECK(try_matmul(*algo, stream)); };
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());

  // Check 8 rows x 16 columns of C in the first and the last group.
  const auto rows = suite::sample_indices(g.m, 8), cols = suite::sample_indices(g.n, 16);
  for (std::int64_t group : suite::sample_indices(g.batch, 2)) {
    auto decode_rows = [&](const std::uint8_t* matrix, std::int64_t row_count, const std::vector<std::int64_t>& picked) {
      const std::uint8_t* base = matrix + group * row_count * g.k * static_cast<std::int64_t>(in_size);
      if (fp8) return suite::decode(suite::rows_to_host(base, g.k, picked), suite::Fp8::E4M3);
      return suite::decode(suite::rows_to_host(reinterpret_cast<const __nv_bfloat16*>(base), g.k, picked));
    };
    const auto a_rows = decode_rows(a.get(), g.m, rows);
    const auto w_rows = decode_rows(w.get(), g.n, cols);
    const auto want = suite::gemm_reference(a_rows, w_rows, g.k, static_cast<double>(a_scale) * w_scale);
    const auto c_rows = suite::decode(suite::rows_to_host(c.get() + group * g.m * g.n, g.n, rows));
    std::vector<double> got, atol;
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::size_t j = 0; j < cols.size(); ++j) {
        got.push_back(c_rows[i * g.n + cols[j]]);
        atol.push_back(suite::kGemmAtol * want.magnitude[i * cols.size() + j]);
      }
    suite::require(suite::compare(got, want.value, suite::kBf16Rtol, atol),
                   "C entries of group " + std::to_string(group));
  }

  state.add_flops(static_cast<double>(g.batch) * suite::gemm_flops(g.m, g.n, g.k));
  state.add_bytes(static_cast<double>(a.bytes() + w.bytes() + c.bytes()));
  state.exec([&](pitot::Launch& l) { matmul(l.stream()); });
}

Gemm dense(pitot::State& state, Precision precision) {
  const auto& model = suite::dense_model(state.get_string("model"));
  const auto shape = suite::linear_shape(model, state.get_string("layer"), state.get_int("tp"));
  return {1, state.get_int("M"), shape.n, shape.k, precision};
}

Gemm grouped(pitot::State& state, Precision precision) {
  const auto shape = suite::moe_shape(suite::moe_model(state.get_string("model")), state.get_string("layer"),
                                      state.get_int("M"));
  return {shape.groups, shape.rows, shape.n, shape.k, precision};
}

Gemm square(pitot::State& state, Precision precision) {
  const std::int64_t n = state.get_int("n");
  return {1, n, n, n, precision};
}

void gemm_bf16(pitot::State& state) { run_gemm(state, dense(state, Precision::Bf16)); }
void gemm_fp8(pitot::State& state) { run_gemm(state, dense(state, Precision::Fp8)); }
void moe_bf16(pitot::State& state) { run_gemm(state, grouped(state, Precision::Bf16)); }
void moe_fp8(pitot::State& state) { run_gemm(state, grouped(state, Precision::Fp8)); }
void square_bf16(pitot::State& state) { run_gemm(state, square(state, Precision::Bf16)); }
void square_fp8(pitot::State& state) { run_gemm(state, square(state, Precision::Fp8)); }

PITOT_BENCHMARK(gemm_bf16)
    .axis("model", suite::dense_model_names())
    .axis("tp", suite::tensor_parallel_degrees())
    .axis("layer", suite::linear_layer_names())
    .axis("M", suite::token_counts());
PITOT_BENCHMARK(gemm_fp8)
    .axis("model", suite::dense_model_names())
    .axis("tp", suite::tensor_parallel_degrees())
    .axis("layer", suite::linear_layer_names())
    .axis("M", suite::token_counts());
PITOT_BENCHMARK(moe_bf16)
    .axis("model", suite::moe_model_names())
    .axis("layer", suite::moe_layer_names())
    .axis("M", suite::token_counts());
PITOT_BENCHMARK(moe_fp8)
    .axis("model", suite::moe_model_names())
    .axis("layer", suite::moe_layer_names())
    .axis("M", suite::token_counts());
PITOT_BENCHMARK(square_bf16).axis("n", {4096, 8192});
PITOT_BENCHMARK(square_fp8).axis("n", {4096, 8192});

}  // namespace

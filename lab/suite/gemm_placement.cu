// Issue 33: is a GEMM's per-process offset the placement of its buffers? One process times the
// same cuBLAS BF16 GEMM on eight sets of buffers, each set allocated fresh and kept alive (so each
// lands elsewhere in the card's memory). If placement set the offset, the sets would spread within
// a process as much as processes spread; if not, they agree and the offset is the process's.
// gemm_rotated: one point whose launches cycle through eight fresh sets, to see whether a median
// over placements spreads less between processes than a median of one.
// Built and run by lab/suite/gemm-placement-h200.sh (not part of the suite).
#include <pitot/pitot.hpp>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace {

void check(cublasStatus_t s) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cuBLAS error " + std::to_string(static_cast<int>(s)));
}

struct Buffers {
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
};

// Every set ever made, kept until the process ends: a new point's buffers never reuse a freed set.
std::vector<Buffers>& kept() {
  static std::vector<Buffers> all;
  return all;
}

Buffers fresh_buffers(std::size_t bytes) {
  Buffers buf;
  PITOT_CUDA_CHECK(cudaMalloc(&buf.a, bytes));
  PITOT_CUDA_CHECK(cudaMalloc(&buf.b, bytes));
  PITOT_CUDA_CHECK(cudaMalloc(&buf.c, bytes));
  PITOT_CUDA_CHECK(cudaMemset(buf.a, 0x3c, bytes));
  PITOT_CUDA_CHECK(cudaMemset(buf.b, 0x3c, bytes));
  kept().push_back(buf);
  return buf;
}

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t made;
    check(cublasCreate(&made));
    return made;
  }();
  return h;
}

// `rotate` buffer sets of its own, the launches cycling through them: a point's median over
// `rotate` placements.
void gemm_on(pitot::State& state, int n, int rotate) {
  const std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(__nv_bfloat16);
  std::vector<Buffers> sets;
  for (int i = 0; i < rotate; ++i) sets.push_back(fresh_buffers(bytes));
  const float one = 1, zero = 0;
  std::size_t call = 0;
  state.add_flops(2.0 * n * n * n);
  state.exec([&](pitot::Launch& l) {
    const Buffers& buf = sets[call++ % sets.size()];
    check(cublasSetStream(handle(), l.stream()));
    check(cublasGemmEx(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, buf.a, CUDA_R_16BF, n, buf.b, CUDA_R_16BF,
                       n, &zero, buf.c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  });
}

void gemm(pitot::State& state) { gemm_on(state, static_cast<int>(state.get_int("n")), 1); }
PITOT_BENCHMARK(gemm).axis("n", {2048, 4096, 8192}).axis("set", {0, 1, 2, 3, 4, 5, 6, 7});

void gemm_rotated(pitot::State& state) { gemm_on(state, static_cast<int>(state.get_int("n")), 8); }
PITOT_BENCHMARK(gemm_rotated).axis("n", {2048, 4096, 8192});

}  // namespace

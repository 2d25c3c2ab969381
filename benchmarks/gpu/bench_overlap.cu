// One GEMM overlapped with a collective, against the same two back to back (issue 36, docs/ranks.md):
// how much of an all-reduce a tensor-parallel layer hides behind its matrix product.
//   gemm_allreduce: a cuBLASLt BF16 GEMM Y[n,n] = X[n,n] W[n,n]^T (bf16 output, fp32 accumulation)
//   and an NCCL all-reduce of `bytes` of floats (sums), in four schedules:
//     overlapped: the all-reduce queued on a second stream, then the GEMM on the sampler's stream,
//                 started together (the second stream waits for an event of the sampler's stream,
//                 so both wait for the sampler's blocker) and joined (the sampler's stream waits for
//                 an event of the second): the timed call ends when both are done;
//     serial:     the GEMM, then the all-reduce, on the sampler's stream;
//     gemm, all_reduce: each alone (the floor an overlap can reach is the longer of the two).
// Work counted: the GEMM's FLOPs and the all-reduce's bytes wherever each runs, so TFLOP/s of
// `overlapped` over TFLOP/s of `serial` (same n and bytes) is the overlap's speedup, back-to-back
// time / overlapped time; 1 means nothing was hidden, serial / max(gemm, all_reduce) all of it.
// Multi-rank: under a launcher or `pitot run --ranks N`, every rank runs the same schedule; in a
// world of one rank the all-reduce is NCCL's local copy. Both products are checked before timing.
#include <pitot/pitot.hpp>
#include <pitot/nccl.hpp>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "cublaslt.hpp"
#include "device.cuh"
#include "reference.hpp"

namespace {

using suite::DeviceArray;
using suite::kCublasWorkspaceBytes;
using suite::lt_handle;

// Y[n,n] = X[n,n] W[n,n]^T, row-major bf16 (PyTorch's Linear, the "TN" layout): cuBLAS computes
// Y^T = W X^T in column-major terms, A = W (op T), B = X (op N). Inputs uniform in [-1, 1).
class Gemm {
 public:
  explicit Gemm(std::int64_t n) : n_(n), x_(n * n), w_(n * n), y_(n * n), workspace_(kCublasWorkspaceBytes) {
    suite::fill_uniform(x_.get(), n * n, -1.0f, 1.0f, 1);
    suite::fill_uniform(w_.get(), n * n, -1.0f, 1.0f, 2);
    cublasLtMatmulDesc_t desc = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    desc_.reset(desc);
    const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    SUITE_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof op_t));
    SUITE_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n));
    cublasLtMatrixLayout_t layout = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, CUDA_R_16BF, n, n, n));  // every operand n x n, ld n
    layout_.reset(layout);
    cublasLtMatmulPreference_t pref = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    suite::Preference owned(pref);
    const std::uint64_t workspace_bytes = kCublasWorkspaceBytes;
    SUITE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                            &workspace_bytes, sizeof workspace_bytes));
    cublasLtMatmulHeuristicResult_t heuristic = {};
    int found = 0;
    SUITE_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt_handle(), desc, layout, layout, layout, layout, pref, 1,
                                                      &heuristic, &found));
    if (found == 0) throw std::runtime_error("cuBLASLt has no BF16 algorithm for n = " + std::to_string(n));
    algo_ = heuristic.algo;
  }

  void run(cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    SUITE_CUBLAS_CHECK(cublasLtMatmul(lt_handle(), desc_.get(), &alpha, w_.get(), layout_.get(), x_.get(), layout_.get(),
                                      &beta, y_.get(), layout_.get(), y_.get(), layout_.get(), &algo_, workspace_.get(),
                                      kCublasWorkspaceBytes, stream));
  }

  // 8 x 16 entries of Y against the CPU in double (bench_gemm's tolerance).
  void check() const {
    run(nullptr);
    PITOT_CUDA_CHECK(cudaDeviceSynchronize());
    const auto rows = suite::sample_indices(n_, 8), cols = suite::sample_indices(n_, 16);
    const auto x_rows = suite::decode(suite::rows_to_host(x_.get(), n_, rows));
    const auto w_rows = suite::decode(suite::rows_to_host(w_.get(), n_, cols));
    const auto want = suite::gemm_reference(x_rows, w_rows, n_, 1.0);
    const auto y_rows = suite::decode(suite::rows_to_host(y_.get(), n_, rows));
    std::vector<double> got, atol;
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::size_t j = 0; j < cols.size(); ++j) {
        got.push_back(y_rows[i * n_ + cols[j]]);
        atol.push_back(suite::kGemmAtol * want.magnitude[i * cols.size() + j]);
      }
    suite::require(suite::compare(got, want.value, suite::kBf16Rtol, atol), "GEMM entries");
  }

  double flops() const { return 2.0 * static_cast<double>(n_) * n_ * n_; }

 private:
  std::int64_t n_;
  DeviceArray<__nv_bfloat16> x_, w_, y_;
  DeviceArray<std::uint8_t> workspace_;
  suite::MatmulDesc desc_;
  suite::Layout layout_;
  cublasLtMatmulAlgo_t algo_{};
};

// The all-reduce: every rank sends `count` floats of rank + 1, so each received float is n(n+1)/2.
class AllReduce {
 public:
  AllReduce(std::int64_t count, int rank, int world, ncclComm_t comm)
      : count_(count), world_(world), comm_(comm), send_(count), recv_(count) {
    suite::fill_value(send_.get(), count, static_cast<float>(rank + 1));
  }
  void run(cudaStream_t stream) const {
    PITOT_NCCL_CHECK(ncclAllReduce(send_.get(), recv_.get(), count_, ncclFloat, ncclSum, comm_, stream));
  }
  void check() const {
    run(nullptr);
    PITOT_CUDA_CHECK(cudaDeviceSynchronize());
    const float want = world_ * (world_ + 1) / 2.0f;
    for (const std::int64_t i : {std::int64_t{0}, count_ - 1}) {
      float got = 0;
      PITOT_CUDA_CHECK(cudaMemcpy(&got, recv_.get() + i, sizeof got, cudaMemcpyDeviceToHost));
      if (got != want)
        throw std::runtime_error("all-reduce: element " + std::to_string(i) + " is " + std::to_string(got) +
                                 ", expected " + std::to_string(want));
    }
  }

 private:
  std::int64_t count_;
  int world_;
  ncclComm_t comm_;
  DeviceArray<float> send_, recv_;
};

// The second stream and the two events that fork it from the sampler's stream and join it back.
struct SideStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  SideStream() {
    PITOT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PITOT_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    PITOT_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  }
  ~SideStream() {
    cudaEventDestroy(fork);
    cudaEventDestroy(join);
    cudaStreamDestroy(stream);
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
};

void gemm_allreduce(pitot::State& state) {
  const std::string schedule = state.get_string("schedule");
  const std::int64_t n = state.get_int("n"), bytes = state.get_int("bytes");
  // Each alone does not depend on the other's size: timed once, at the smallest.
  if (schedule == "gemm" && bytes != (std::int64_t{1} << 24))
    return state.skip("the GEMM alone does not depend on bytes: see bytes=16777216");
  if (schedule == "all_reduce" && n != 2048) return state.skip("the all-reduce alone does not depend on n: see n=2048");
  const bool gemm_runs = schedule != "all_reduce", reduce_runs = schedule != "gemm";
  if (gemm_runs && suite::compute_capability() < 80)
    return state.skip("BF16 GEMMs need compute capability 8.0; this GPU has " +
                      std::to_string(suite::compute_capability() / 10) + "." +
                      std::to_string(suite::compute_capability() % 10));
  const int world = state.world_size();
  ncclComm_t comm = pitot::nccl_comm(state);  // every rank, every point, before exec
  std::optional<Gemm> gemm_made;
  std::optional<AllReduce> reduce_made;
  if (gemm_runs) gemm_made.emplace(n);
  if (reduce_runs) reduce_made.emplace(bytes / static_cast<std::int64_t>(sizeof(float)), state.rank(), world, comm);
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());  // the fills, on the default stream
  const Gemm* gemm_ptr = gemm_made ? &*gemm_made : nullptr;
  const AllReduce* reduce_ptr = reduce_made ? &*reduce_made : nullptr;
  if (gemm_runs) {
    gemm_ptr->check();
    state.add_flops(gemm_ptr->flops());
  }
  if (reduce_runs) {
    reduce_ptr->check();
    state.add_bytes(static_cast<double>(bytes));  // the all-reduce's algorithm bandwidth (bytes / time)
    state.set_bus_factor(world > 1 ? 2.0 * (world - 1) / world : 0.0);
  }
  const SideStream side;
  if (schedule == "overlapped") {
    state.exec([&](pitot::Launch& l) {
      PITOT_CUDA_CHECK(cudaEventRecord(side.fork, l.stream()));        // after the sampler's blocker
      PITOT_CUDA_CHECK(cudaStreamWaitEvent(side.stream, side.fork, 0));
      reduce_ptr->run(side.stream);                                     // queued first: its kernel gets SMs
      gemm_ptr->run(l.stream());
      PITOT_CUDA_CHECK(cudaEventRecord(side.join, side.stream));
      PITOT_CUDA_CHECK(cudaStreamWaitEvent(l.stream(), side.join, 0));  // the call ends when both are done
    });
  } else if (schedule == "serial") {
    state.exec([&](pitot::Launch& l) {
      gemm_ptr->run(l.stream());
      reduce_ptr->run(l.stream());
    });
  } else if (schedule == "gemm") {
    state.exec([&](pitot::Launch& l) { gemm_ptr->run(l.stream()); });
  } else {
    state.exec([&](pitot::Launch& l) { reduce_ptr->run(l.stream()); });
  }
}
PITOT_BENCHMARK(gemm_allreduce)
    .multi_rank()
    .axis("schedule", {"overlapped", "serial", "gemm", "all_reduce"})
    .axis("n", {2048, 4096, 8192})
    .axis_pow2("bytes", {24, 28});

}  // namespace

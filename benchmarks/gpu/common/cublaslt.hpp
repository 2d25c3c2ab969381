// cuBLASLt's pieces the suite's GEMM programs share (bench_gemm, bench_overlap): the process's one
// handle, owners of its descriptors, and the workspace size. Header-only: only the programs that
// include it link cuBLASLt.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <memory>

#include "check.hpp"

namespace suite {

inline constexpr std::size_t kCublasWorkspaceBytes = 32u << 20;  // what cuBLAS recommends for Hopper

// One cuBLASLt handle for the process: points run one at a time, each on the stream exec gives it.
// Never destroyed: its destructor would run after the CUDA runtime has shut down.
inline cublasLtHandle_t lt_handle() {
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    SUITE_CUBLAS_CHECK(cublasLtCreate(&h));
    return h;
  }();
  return handle;
}

// cuBLASLt descriptors, destroyed with their owner.
struct DescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* d) const { cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayoutOpaque_t* d) const { cublasLtMatrixLayoutDestroy(d); }
  void operator()(cublasLtMatmulPreferenceOpaque_t* d) const { cublasLtMatmulPreferenceDestroy(d); }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, DescDeleter>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, DescDeleter>;

}  // namespace suite

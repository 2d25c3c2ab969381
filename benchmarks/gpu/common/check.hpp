// Checking library calls in benchmark code: a failed cuBLAS or cuDNN call throws, naming the call
// and the library's status, so the point fails with a message instead of timing garbage.
// CUDA runtime calls use pitot's own PITOT_CUDA_CHECK (it also notices a lost device).
#pragma once

#include <string>

namespace suite {

// Throws std::runtime_error("<library> call failed: <call>: <status> (<file>:<line>)").
[[noreturn]] void fail_library_call(const char* library, const char* call, const std::string& status,
                                    const char* file, int line);

}  // namespace suite

// SUITE_CUBLAS_CHECK(cublasLtMatmul(...)); needs <cublasLt.h> (links only cuBLASLt).
#define SUITE_CUBLAS_CHECK(call)                                                                               \
  do {                                                                                                         \
    const cublasStatus_t suite_status_ = (call);                                                               \
    if (suite_status_ != CUBLAS_STATUS_SUCCESS)                                                                \
      ::suite::fail_library_call("cuBLASLt", #call, cublasLtGetStatusName(suite_status_), __FILE__, __LINE__); \
  } while (0)

// SUITE_CUDNN_CHECK(cudnnBackendFinalize(desc)); needs <cudnn.h>. cuDNN's own last-error text
// (which usually says which attribute it rejected) is added to the message.
#define SUITE_CUDNN_CHECK(call)                                                                   \
  do {                                                                                            \
    const cudnnStatus_t suite_status_ = (call);                                                   \
    if (suite_status_ != CUDNN_STATUS_SUCCESS) {                                                  \
      char suite_detail_[512] = "";                                                               \
      cudnnGetLastErrorString(suite_detail_, sizeof suite_detail_);                               \
      ::suite::fail_library_call("cuDNN", #call,                                                  \
                                 std::string(cudnnGetErrorString(suite_status_)) +                \
                                     (suite_detail_[0] ? std::string(": ") + suite_detail_ : ""), \
                                 __FILE__, __LINE__);                                             \
    }                                                                                             \
  } while (0)

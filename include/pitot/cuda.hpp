// pitot's CUDA backend: what a .cu benchmark sees.
//
//   state.exec([&](pitot::Launch& l) { kernel<<<grid, block, 0, l.stream()>>>(in[l.rotation()], out); });
//
// The launch is timed on the device: by default with the L2 flushed before every launch and the
// host's launch latency kept out of the number (see docs/cuda-backend.md).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include <pitot/state.hpp>

namespace pitot {

// What one timed launch may use: the stream to launch on and which input set to read.
class Launch {
 public:
  Launch(cudaStream_t stream, int rotation) : stream_(stream), rotation_(rotation) {}
  // Launch every piece of the timed work on this stream (in graph mode it is being captured).
  cudaStream_t stream() const { return stream_; }
  // Index of the input set for this launch: 0, 1, ..., k-1, 0, ... after set_rotations(state, k);
  // always 0 otherwise.
  int rotation() const { return rotation_; }

 private:
  cudaStream_t stream_;
  int rotation_;
};

namespace cuda {

// A failed CUDA call. The message names the benchmark point (when one is running) and the call.
struct Error : std::runtime_error {
  Error(const std::string& message, cudaError_t code) : std::runtime_error(message), code(code) {}
  cudaError_t code;
};

// The author has `count` input sets: successive launches get rotation() 0, 1, ..., count-1, 0, ...
// Call before state.exec. Useful in hot and graph mode, where a single input set would stay in L2.
void set_rotations(State& state, int count);

// True once a sticky error (an illegal address, a kernel fault) has made the device unusable:
// the program reports the point that hit it and exits with code 3.
bool device_lost();

// Throws pitot::cuda::Error when `status` is an error; marks the device lost when it is sticky.
void check(cudaError_t status, const char* call, const char* file, int line);

// Registers the CUDA backend with pitot's core (idempotent).
bool register_backend();
// Including this header is what puts the CUDA backend into a program.
inline const bool backend_registered = register_backend();

}  // namespace cuda
}  // namespace pitot

// Check a CUDA runtime call in benchmark code: PITOT_CUDA_CHECK(cudaMalloc(&p, bytes));
#define PITOT_CUDA_CHECK(call) ::pitot::cuda::check((call), #call, __FILE__, __LINE__)

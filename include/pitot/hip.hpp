// pitot's HIP (ROCm) backend: what a benchmark compiled by hipcc sees.
//
//   state.exec([&](pitot::Launch& l) { kernel<<<grid, block, 0, l.stream()>>>(in[l.rotation()], out); });
//
// The launch is timed on the GPU with HIP events: by default with the L2 and the Infinity Cache
// flushed before every launch (see docs/hip-backend.md). Sources meant for NVIDIA and AMD alike
// include <pitot/gpu.hpp> instead, which picks this header or <pitot/cuda.hpp>.
#pragma once

#include <hip/hip_runtime_api.h>

#include <stdexcept>
#include <string>

#include <pitot/state.hpp>

namespace pitot {

// What one timed launch may use: the stream to launch on and which input set to read.
class Launch {
 public:
  Launch(hipStream_t stream, int rotation) : stream_(stream), rotation_(rotation) {}
  // Launch every piece of the timed work on this stream (in graph mode it is being captured).
  hipStream_t stream() const { return stream_; }
  // Index of the input set for this launch: 0, 1, ..., k-1, 0, ... after set_rotations(state, k);
  // always 0 otherwise.
  int rotation() const { return rotation_; }

 private:
  hipStream_t stream_;
  int rotation_;
};

namespace hip {

// A failed HIP call. The message names the benchmark point (when one is running) and the call.
struct Error : std::runtime_error {
  Error(const std::string& message, hipError_t code) : std::runtime_error(message), code(code) {}
  hipError_t code;
};

// The author has `count` input sets: successive launches get rotation() 0, 1, ..., count-1, 0, ...
// Call before state.exec. Useful in hot and graph mode, where a single input set would stay cached.
void set_rotations(State& state, int count);

// True once a sticky error (an illegal address, a kernel fault) has made the device unusable:
// the program reports the point that hit it and exits with code 3.
bool device_lost();

// Throws pitot::hip::Error when `status` is an error; marks the device lost when it is sticky.
void check(hipError_t status, const char* call, const char* file, int line);

// Registers the HIP backend with pitot's core (idempotent).
bool register_backend();
// Including this header is what puts the HIP backend into a program.
inline const bool backend_registered = register_backend();

}  // namespace hip
}  // namespace pitot

// Check a HIP runtime call in benchmark code: PITOT_HIP_CHECK(hipMalloc(&p, bytes));
#define PITOT_HIP_CHECK(call) ::pitot::hip::check((call), #call, __FILE__, __LINE__)

// The untrusted mode's exploit corpus (docs/untrusted.md): each benchmark is one attack on the
// timing, beside an honest control. Under --untrusted each attack must fail with its named reason
// and the control must pass (check_corpus.py); without it the attacks read fast and "ok", which is
// why the mode exists. Every benchmark does the same work when it does it: an FMA loop of fixed
// length on one block per SM, about half a millisecond on an H200.
#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>

#include <pitot/pitot.hpp>

namespace {

constexpr int kIterations = 1 << 16;
constexpr int kThreads = 256;

__global__ void fma_loop(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.999f;
  for (int i = 0; i < iterations; ++i) a = fmaf(a, b, c);
  if (a == 12345.0f) out[threadIdx.x] = a;  // never true: keeps the loop, writes nothing
}

void check(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}

int blocks() {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device));
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

double fma_flops() { return 2.0 * kIterations * kThreads * blocks(); }

struct Buffer {
  float* p = nullptr;
  Buffer() { check(cudaMalloc(&p, kThreads * sizeof(float))); }
  ~Buffer() { cudaFree(p); }
};

// The control: the work on pitot's stream, every call.
void honest_fma(pitot::State& state) {
  Buffer out;
  const int grid = blocks();
  state.add_flops(fma_flops());
  state.exec([&](pitot::Launch& l) { fma_loop<<<grid, kThreads, 0, l.stream()>>>(out.p, kIterations); });
}

// The work on a stream of the benchmark's own (blocking: it orders with the legacy stream), so
// events on pitot's stream alone see none of it. Untrusted: the stop event waits for it and the
// kernel clock ties it to the call, so it reads the control's time (accepted, honestly timed).
void own_stream(pitot::State& state) {
  Buffer out;
  cudaStream_t own = nullptr;
  check(cudaStreamCreate(&own));
  const int grid = blocks();
  state.add_flops(fma_flops());
  state.exec([&](pitot::Launch&) { fma_loop<<<grid, kThreads, 0, own>>>(out.p, kIterations); });
  check(cudaStreamSynchronize(own));
  check(cudaStreamDestroy(own));
}

// The same on a non-blocking stream, which the legacy stream does not order with: the kernel clock
// (the default in cold mode) still ties it to the call; --clock events would not see it.
void own_nonblocking_stream(pitot::State& state) {
  Buffer out;
  cudaStream_t own = nullptr;
  check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
  const int grid = blocks();
  state.add_flops(fma_flops());
  state.exec([&](pitot::Launch&) { fma_loop<<<grid, kThreads, 0, own>>>(out.p, kIterations); });
  check(cudaStreamSynchronize(own));
  check(cudaStreamDestroy(own));
}

// The work only in the first three calls (the correctness check's), none after.
void skip_after_warmup(pitot::State& state) {
  Buffer out;
  const int grid = blocks();
  long calls = 0;
  state.add_flops(fma_flops());
  state.exec([&](pitot::Launch& l) {
    if (calls++ < 3) fma_loop<<<grid, kThreads, 0, l.stream()>>>(out.p, kIterations);
  });
}

// The time reported by the benchmark itself.
void manual_1us(pitot::State& state) {
  state.exec_manual([] { return 1e-6; });
}

// Declared work no card can do in the time: a petaflop per call of a short kernel.
void impossible_flops(pitot::State& state) {
  Buffer out;
  const int grid = blocks();
  state.add_flops(1e15);
  state.exec([&](pitot::Launch& l) { fma_loop<<<grid, kThreads, 0, l.stream()>>>(out.p, 256); });
}

// A persisting-L2 limit set by the benchmark, so its data would survive pitot's cache flush.
void persisting_l2(pitot::State& state) {
  Buffer out;
  const int grid = blocks();
  state.add_flops(fma_flops());
  state.exec([&](pitot::Launch& l) {
    check(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 4 << 20));
    fma_loop<<<grid, kThreads, 0, l.stream()>>>(out.p, kIterations);
  });
}

PITOT_BENCHMARK(honest_fma);
PITOT_BENCHMARK(own_stream);
PITOT_BENCHMARK(own_nonblocking_stream);
PITOT_BENCHMARK(skip_after_warmup);
PITOT_BENCHMARK(manual_1us);
PITOT_BENCHMARK(impossible_flops);
PITOT_BENCHMARK(persisting_l2);

}  // namespace

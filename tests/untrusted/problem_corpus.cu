// The attacks on a problem's timing on a GPU (docs/untrusted.md, "Problems"): the CPU stand-ins of
// problem_submissions.cpp as CUDA submissions to the same problem, beside honest controls.
// check_problems.py --gpu runs them through pitot run --untrusted (expected_problem_corpus.json);
// without a GPU the test is skipped.
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <stdexcept>

#include <pitot/pitot.hpp>

#include "problems.hpp"

namespace {

const pitot::Problem kProblem = untrusted_problems::multiply_add({1 << 20});
const pitot::Problem kDeterministicProblem = untrusted_problems::declared_deterministic(kProblem);
// 256 MB of output a call, as a large GEMM's: each comparison on the host takes far longer than
// the call (the driver's clock from below must allow the checks the harness timed).
const pitot::Problem kLargeOutput = untrusted_problems::large_output({std::int64_t{1} << 26});
constexpr int kThreads = 256;
constexpr int kKey = 64;        // the floats of input 0 a content cache keys on
constexpr int kEntries = 16;    // the content cache's entries (the problem has 3 distinct inputs 0)

void check(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}

unsigned grid_of(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__global__ void multiply_add(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i] + a[i];
}

void compute(pitot::Buffers in, pitot::Buffers out, cudaStream_t s) {
  const std::int64_t n = out[0].count();
  multiply_add<<<grid_of(n), kThreads, 0, s>>>(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), n);
}

// The controls: the work on pitot's stream, every call.
void honest(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) { compute(in, out, l.stream()); }
void honest_deterministic(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) { compute(in, out, l.stream()); }

__global__ void broadcast(const float* a, float* c, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = 2 * a[i % 64];
}
void honest_large_output(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  const std::int64_t n = out[0].count();
  broadcast<<<grid_of(n), kThreads, 0, l.stream()>>>(in[0].as<const float>(), out[0].as<float>(), n);
}

// Caches the result by the input's address: computed once per pointer, copied after that.
void cache_by_pointer(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static std::map<const void*, float*> cache;
  auto [it, fresh] = cache.try_emplace(in[0].data(), nullptr);
  if (fresh) {
    check(cudaMalloc(&it->second, out[0].bytes()));
    compute(in, out, l.stream());
    check(cudaMemcpyAsync(it->second, out[0].data(), out[0].bytes(), cudaMemcpyDeviceToDevice, l.stream()));
  } else {
    check(cudaMemcpyAsync(out[0].data(), it->second, out[0].bytes(), cudaMemcpyDeviceToDevice, l.stream()));
  }
}

// The content cache, all on the device: one block looks input 0's first floats up among the keys
// (a miss takes the next entry and stores the key), then the output is copied from the entry or
// computed and stored there.
struct ContentCache {
  float keys[kEntries][kKey];
  int used;
  int hit;   // the entry found, or -1
  int slot;  // the entry of this call
};

__global__ void look_up(ContentCache* cache, const float* a) {
  __shared__ int found;
  if (threadIdx.x == 0) found = -1;
  __syncthreads();
  for (int e = 0; e < cache->used; ++e) {
    const bool same = threadIdx.x >= kKey || cache->keys[e][threadIdx.x] == a[threadIdx.x];
    if (__syncthreads_and(same) && threadIdx.x == 0 && found < 0) found = e;
  }
  __syncthreads();
  if (threadIdx.x < kKey && found < 0 && cache->used < kEntries) cache->keys[cache->used][threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  if (threadIdx.x != 0) return;
  cache->hit = found;
  cache->slot = found >= 0 ? found : (cache->used < kEntries ? cache->used++ : 0);
}

__global__ void serve(const ContentCache* cache, float* entries, const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float* entry = entries + cache->slot * n;
  if (cache->hit >= 0) {
    c[i] = entry[i];
  } else {
    c[i] = a[i] * b[i] + a[i];
    entry[i] = c[i];
  }
}

void cache_by_first_input(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static ContentCache* cache = nullptr;
  static float* entries = nullptr;
  const std::int64_t n = out[0].count();
  if (!cache) {
    check(cudaMalloc(&cache, sizeof(ContentCache)));
    check(cudaMemset(cache, 0, sizeof(ContentCache)));
    check(cudaMalloc(&entries, kEntries * out[0].bytes()));
  }
  look_up<<<1, kThreads, 0, l.stream()>>>(cache, in[0].as<const float>());
  serve<<<grid_of(n), kThreads, 0, l.stream()>>>(cache, entries, in[0].as<const float>(), in[1].as<const float>(),
                                                 out[0].as<float>(), n);
}

// The work for the first 50 calls, nothing after.
void skip_after_calls(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static int calls = 0;
  if (++calls <= 50) compute(in, out, l.stream());
}

__global__ void add_one(float* c, std::int64_t at) { c[at] += 1.0f; }

// Right for the first 50 calls, one element wrong after them.
void wrong_after_calls(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static int calls = 0;
  compute(in, out, l.stream());
  if (++calls > 50) add_one<<<1, 1, 0, l.stream()>>>(out[0].as<float>(), 7);
}

__device__ std::uint64_t now_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void late_multiply_add(const float* a, const float* b, float* c, std::int64_t n, std::uint64_t wait_ns) {
  const std::uint64_t start = now_ns();
  while (now_ns() - start < wait_ns) {
  }
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    c[i] = a[i] * b[i] + a[i];
}

// The work on a non-blocking stream of its own that waits for pitot's stream and then 50 us more:
// it ends after the call's stop event.
void deferred_stream(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static cudaStream_t own = nullptr;
  static cudaEvent_t called = nullptr;
  if (!own) {
    check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    check(cudaEventCreateWithFlags(&called, cudaEventDisableTiming));
  }
  check(cudaEventRecord(called, l.stream()));
  check(cudaStreamWaitEvent(own, called, 0));
  const std::int64_t n = out[0].count();
  // Few blocks, so the harness's check kernel runs beside it rather than after it.
  late_multiply_add<<<16, kThreads, 0, own>>>(in[0].as<const float>(), in[1].as<const float>(),
                                                      out[0].as<float>(), n, 50'000);
}

__global__ void jittered_multiply_add(const float* a, const float* b, float* c, std::int64_t n, bool raise) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float v = a[i] * b[i] + a[i];
  c[i] = raise ? nextafterf(v, INFINITY) : v;
}

// The work, with each element's last bit raised on every other call (1 ulp, within the problem's
// atol): a result that depends on the call, as atomics' order would make it. Refused where the
// problem declares its submissions deterministic, accepted where it does not.
void jitter(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static std::int64_t calls = 0;
  const std::int64_t n = out[0].count();
  jittered_multiply_add<<<grid_of(n), kThreads, 0, l.stream()>>>(in[0].as<const float>(), in[1].as<const float>(),
                                                                 out[0].as<float>(), n, (++calls & 1) != 0);
}
void last_bit_jitter(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) { jitter(in, out, l); }
void last_bit_jitter_allowed(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) { jitter(in, out, l); }

}  // namespace

PITOT_SUBMISSION(kProblem, honest);
PITOT_SUBMISSION(kProblem, cache_by_pointer);
PITOT_SUBMISSION(kProblem, cache_by_first_input);
PITOT_SUBMISSION(kProblem, skip_after_calls);
PITOT_SUBMISSION(kProblem, wrong_after_calls);
PITOT_SUBMISSION(kProblem, deferred_stream);
PITOT_SUBMISSION(kDeterministicProblem, honest_deterministic);
PITOT_SUBMISSION(kLargeOutput, honest_large_output);
PITOT_SUBMISSION(kDeterministicProblem, last_bit_jitter);
PITOT_SUBMISSION(kProblem, last_bit_jitter_allowed);

// Submissions to a problem written once for both vendors (<pitot/gpu.hpp>): an honest
// multiply-add and one that caches its result by the input's address. Built by hipcc in CI (the
// build is the check there); on an AMD GPU, `pitot run problem_portable_hip --untrusted` accepts
// the honest one and refuses the cache, as the CUDA corpus does (tests/untrusted/problem_corpus.cu).
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>
#include <pitot/gpu_names.hpp>
#include <pitot/problem.hpp>

#include <map>
#include <stdexcept>

#include "problems.hpp"

namespace {

const pitot::Problem kProblem = untrusted_problems::multiply_add({1 << 12, 1 << 20});
constexpr int kThreads = 256;

void check(gpuError_t e) {
  if (e != gpuSuccess) throw std::runtime_error(gpuGetErrorString(e));
}

__global__ void multiply_add(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i] + a[i];
}

void compute(pitot::Buffers in, pitot::Buffers out, gpuStream_t s) {
  const std::int64_t n = out[0].count();
  const auto grid = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  multiply_add<<<grid, kThreads, 0, s>>>(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), n);
}

void honest(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) { compute(in, out, l.stream()); }

// Computed once per input address, copied after that: the wrong answer for the next set staged there.
void cache_by_pointer(pitot::Buffers in, pitot::Buffers out, pitot::Launch& l) {
  static std::map<const void*, void*> cache;
  auto [it, fresh] = cache.try_emplace(in[0].data(), nullptr);
  if (fresh) {
    check(gpuMalloc(&it->second, out[0].bytes()));
    compute(in, out, l.stream());
    check(gpuMemcpyAsync(it->second, out[0].data(), out[0].bytes(), gpuMemcpyDeviceToDevice, l.stream()));
  } else {
    check(gpuMemcpyAsync(out[0].data(), it->second, out[0].bytes(), gpuMemcpyDeviceToDevice, l.stream()));
  }
}

PITOT_SUBMISSION(kProblem, honest);
PITOT_SUBMISSION(kProblem, cache_by_pointer);

}  // namespace

// The GPU half of a mixed program: two GPU benchmarks (6 points) whose setup touches the device.
#include <pitot/pitot.hpp>

namespace {
__global__ void nothing() {}

void gpu_alloc(pitot::State& state) {
  float* data = nullptr;
  PITOT_CUDA_CHECK(cudaMalloc(&data, 1024));  // fails without a GPU: must never run there
  state.exec([&](pitot::Launch& l) { nothing<<<1, 1, 0, l.stream()>>>(); });
  cudaFree(data);
}
void gpu_empty(pitot::State& state) {
  state.add_flops(1e6);
  state.exec([&](pitot::Launch& l) { nothing<<<1, 1, 0, l.stream()>>>(); });
}
}  // namespace
PITOT_BENCHMARK(gpu_alloc).axis("n", {1, 2, 3, 4});
PITOT_BENCHMARK(gpu_empty).axis("k", {1, 2});

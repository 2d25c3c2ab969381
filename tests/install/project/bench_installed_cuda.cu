#include <pitot/pitot.hpp>

__global__ void fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

void fill_floats(pitot::State& state) {
  const int n = static_cast<int>(state.get_int("n"));
  float* out = nullptr;
  PITOT_CUDA_CHECK(cudaMalloc(&out, n * sizeof(float)));
  state.exec([&](pitot::Launch& l) { fill<<<(n + 255) / 256, 256, 0, l.stream()>>>(out, n); });
  cudaFree(out);
}
PITOT_BENCHMARK(fill_floats).axis("n", {1024});

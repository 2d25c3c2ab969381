// How much CUPTI's kernel tracing slows the traced kernels on this GPU, by grid size: event times
// of a copy kernel and an empty kernel over grids of 1 to 2^20 blocks, with tracing off, with
// CONCURRENT_KERNEL on, after disabling it again, and with KERNEL on. A device experiment behind
// the kernel clock's design (docs/DESIGN.md); built with nvcc against the toolkit's CUPTI:
//   nvcc -O2 -arch=sm_90 cupti-overhead.cu -lcupti -o cupti_overhead
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { auto e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CU(x) do { auto e_ = (x); if (e_ != CUPTI_SUCCESS) { const char* s_; cuptiGetResultString(e_, &s_); std::printf("%s: %s\n", #x, s_); } } while (0)

__global__ void copy(const float* in, float* out, long n) {
  long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void empty() {}

static std::vector<double> kernel_ns;  // CUPTI's durations of the last batch
void CUPTIAPI request(uint8_t** buf, size_t* size, size_t* max) {
  *size = 8 << 20; *buf = static_cast<uint8_t*>(aligned_alloc(8, *size)); *max = 0;
}
void CUPTIAPI complete(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel9*>(r);
      kernel_ns.push_back(static_cast<double>(k->end - k->start));
    }
  }
  free(buf);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const long max_n = 1L << 28;
  float *in, *out;
  CK(cudaMalloc(&in, max_n * 4)); CK(cudaMalloc(&out, max_n * 4));
  CK(cudaMemset(in, 1, max_n * 4));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  const int reps = 30;
  std::vector<cudaEvent_t> a(reps), b(reps);
  for (int i = 0; i < reps; ++i) { CK(cudaEventCreate(&a[i])); CK(cudaEventCreate(&b[i])); }
  const long grids[] = {1, 132, 1024, 4096, 16384, 131072, 1048576};
  auto measure = [&](const char* state) {
    for (int kind = 0; kind < 2; ++kind) {
      for (long g : grids) {
        const long n = g * 256;
        auto launch = [&] { if (kind == 0) copy<<<g, 256, 0, s>>>(in, out, n); else empty<<<g, 256, 0, s>>>(); };
        launch(); CK(cudaStreamSynchronize(s));
        CU(cuptiActivityFlushAll(1));
        kernel_ns.clear();
        for (int i = 0; i < reps; ++i) { CK(cudaEventRecord(a[i], s)); launch(); CK(cudaEventRecord(b[i], s)); }
        CK(cudaStreamSynchronize(s));
        std::vector<double> ev;
        for (int i = 0; i < reps; ++i) { float ms; CK(cudaEventElapsedTime(&ms, a[i], b[i])); ev.push_back(ms * 1e6); }
        CU(cuptiActivityFlushAll(1));
        std::printf("%-22s %-5s blocks=%8ld  events %10.1f ns  cupti %10.1f ns (%zu records)\n", state,
                    kind == 0 ? "copy" : "empty", g, median(ev), median(kernel_ns), kernel_ns.size());
      }
    }
  };
  measure("off");
  CU(cuptiActivityRegisterCallbacks(request, complete));
  CU(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  measure("concurrent_kernel");
  CU(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  measure("disabled_again");
  CU(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL));
  measure("kernel");
  CU(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL));
  CU(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  measure("concurrent_again");
  CU(cuptiActivityFlushAll(1));
  return 0;
}

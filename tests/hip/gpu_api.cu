// Every name <pitot/gpu.hpp> and <pitot/gpu_names.hpp> define, used once: compiled by nvcc and by
// hipcc, this fails to build when a mapping names something the vendor's runtime lacks, or when
// <pitot/gpu.hpp> alone defines the unprefixed gpu* names (they are opt-in). Running it checks
// nothing more.
#include <pitot/pitot.hpp>
#include <pitot/gpu.hpp>

#if defined(gpuMalloc) || defined(gpuStream_t) || defined(gpuSuccess) || defined(PITOT_GPU_PREFIX)
#error "<pitot/gpu.hpp> defines the gpu* names: they must come only with <pitot/gpu_names.hpp>"
#endif

#include <pitot/gpu_names.hpp>

#include <cstdio>

namespace {

__global__ void device_helpers(float* out) {
  const pitot::gpu::bfloat16 b = pitot::gpu::bf16_from_float(out[threadIdx.x]);
  const gpu_bfloat16 same = b;
  float v = pitot::gpu::float_from_bf16(same);
  v += pitot::gpu::shfl_xor(v, 1);
  out[threadIdx.x] = v + static_cast<float>(pitot::gpu::warp_size());
}

// Never called: only its compilation matters.
[[maybe_unused]] void every_runtime_name(pitot::State& state) {
  gpuError_t error = gpuSuccess;
  gpuStream_t stream = nullptr;
  gpuEvent_t start = nullptr, stop = nullptr;
  [[maybe_unused]] gpuGraph_t graph = nullptr;
  [[maybe_unused]] gpuGraphExec_t graph_exec = nullptr;
  gpuDeviceProp_t prop{};
  void* p = nullptr;
  void* host = nullptr;
  float ms = 0;
  int device = 0, count = 0, value = 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  PITOT_GPU_CHECK(gpuGetDeviceCount(&count));
  PITOT_GPU_CHECK(gpuGetDevice(&device));
  PITOT_GPU_CHECK(gpuSetDevice(device));
  PITOT_GPU_CHECK(gpuGetDeviceProperties(&prop, device));
  for (auto attribute : {gpuDevAttrMultiProcessorCount, gpuDevAttrL2CacheSize, gpuDevAttrMaxSharedMemoryPerBlock,
                         gpuDevAttrClockRate, gpuDevAttrWarpSize, gpuDevAttrComputeCapabilityMajor,
                         gpuDevAttrComputeCapabilityMinor})
    PITOT_GPU_CHECK(gpuDeviceGetAttribute(&value, attribute, device));
  PITOT_GPU_CHECK(gpuStreamCreate(&stream));
  PITOT_GPU_CHECK(gpuStreamCreateWithFlags(&stream, gpuStreamNonBlocking));
  PITOT_GPU_CHECK(gpuMalloc(&p, 1024));
  PITOT_GPU_CHECK(gpuMallocHost(&host, 1024));
  PITOT_GPU_CHECK(gpuMemGetInfo(&free_bytes, &total_bytes));
  PITOT_GPU_CHECK(gpuMemset(p, 0, 1024));
  PITOT_GPU_CHECK(gpuMemsetAsync(p, 0, 1024, stream));
  PITOT_GPU_CHECK(gpuMemcpy(host, p, 1024, gpuMemcpyDeviceToHost));
  PITOT_GPU_CHECK(gpuMemcpy(p, host, 1024, gpuMemcpyHostToDevice));
  PITOT_GPU_CHECK(gpuMemcpyAsync(p, p, 512, gpuMemcpyDeviceToDevice, stream));
  PITOT_GPU_CHECK(gpuMemcpyAsync(p, host, 512, gpuMemcpyDefault, stream));
  PITOT_GPU_CHECK(gpuMemcpy2D(host, 64, p, 64, 64, 4, gpuMemcpyDeviceToHost));
  PITOT_GPU_CHECK(gpuMemcpy2DAsync(host, 64, p, 64, 64, 4, gpuMemcpyDeviceToHost, stream));
  PITOT_GPU_CHECK(gpuEventCreate(&start));
  PITOT_GPU_CHECK(gpuEventCreateWithFlags(&stop, gpuEventDefault));
  PITOT_GPU_CHECK(gpuEventRecord(start, stream));
  device_helpers<<<1, 64, 0, stream>>>(static_cast<float*>(p));
  PITOT_GPU_CHECK(gpuPeekAtLastError());
  PITOT_GPU_CHECK(gpuGetLastError());
  PITOT_GPU_CHECK(gpuEventRecord(stop, stream));
  PITOT_GPU_CHECK(gpuEventSynchronize(stop));
  PITOT_GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
  PITOT_GPU_CHECK(gpuStreamSynchronize(stream));
  PITOT_GPU_CHECK(gpuDeviceSynchronize());
  std::printf("%s %s %d\n", gpuGetErrorString(error), gpuGetErrorName(error), gpuEventDisableTiming);
  PITOT_GPU_CHECK(gpuEventDestroy(start));
  PITOT_GPU_CHECK(gpuEventDestroy(stop));
  PITOT_GPU_CHECK(gpuFreeHost(host));
  PITOT_GPU_CHECK(gpuFree(p));
  PITOT_GPU_CHECK(gpuStreamDestroy(stream));
  pitot::gpu::set_rotations(state, 2);
  (void)pitot::gpu::device_lost();
  try {
    throw pitot::gpu::Error("x", gpuSuccess);
  } catch (const pitot::gpu::Error&) {
  }
}

}  // namespace

int main() { return PITOT_GPU_HIP + PITOT_GPU_CUDA == 1 ? 0 : 1; }

#include "device.cuh"

#if PITOT_GPU_CUDA
#include <cuda_fp8.h>
#endif

namespace suite {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::int64_t n) {
  // A grid-stride loop covers the rest; 65535 blocks keep any size within launch limits.
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

__global__ void fill_float(float* out, std::int64_t n, float lo, float hi, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi);
}

__global__ void fill_bf16(gpu_bfloat16* out, std::int64_t n, float lo, float hi, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = pitot::gpu::bf16_from_float(uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi));
}

#if PITOT_GPU_CUDA
__global__ void fill_fp8(std::uint8_t* out, std::int64_t n, float lo, float hi, __nv_fp8_interpretation_t format,
                         std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = __nv_cvt_float_to_fp8(uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi), __NV_SATFINITE, format);
}
#else
// No FP8 conversions in HIP's headers (ROCm 5), and MI300's are FNUZ: the OCP codes in software.
__global__ void fill_fp8(std::uint8_t* out, std::int64_t n, float lo, float hi, Fp8 format, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = encode_fp8(uniform_at(seed, static_cast<std::uint64_t>(i), lo, hi), format);
}
#endif

__global__ void fill_constant(float* out, std::int64_t n, float value) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = value;
}

}  // namespace

void fill_uniform(float* data, std::int64_t n, float lo, float hi, std::uint64_t seed) {
  fill_float<<<blocks_for(n), kBlock>>>(data, n, lo, hi, seed);
  PITOT_GPU_CHECK(gpuGetLastError());
}

void fill_uniform(gpu_bfloat16* data, std::int64_t n, float lo, float hi, std::uint64_t seed) {
  fill_bf16<<<blocks_for(n), kBlock>>>(data, n, lo, hi, seed);
  PITOT_GPU_CHECK(gpuGetLastError());
}

void fill_uniform_fp8(std::uint8_t* data, std::int64_t n, float lo, float hi, Fp8 format, std::uint64_t seed) {
#if PITOT_GPU_CUDA
  fill_fp8<<<blocks_for(n), kBlock>>>(data, n, lo, hi, format == Fp8::E4M3 ? __NV_E4M3 : __NV_E5M2, seed);
#else
  fill_fp8<<<blocks_for(n), kBlock>>>(data, n, lo, hi, format, seed);
#endif
  PITOT_GPU_CHECK(gpuGetLastError());
}

void fill_value(float* data, std::int64_t n, float value) {
  fill_constant<<<blocks_for(n), kBlock>>>(data, n, value);
  PITOT_GPU_CHECK(gpuGetLastError());
}

std::vector<float> decode(const std::vector<gpu_bfloat16>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint16_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    out[i] = float_from_bf16(bits);
  }
  return out;
}

std::vector<float> decode(const std::vector<std::uint8_t>& values, Fp8 format) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = float_from_fp8(values[i], format);
  return out;
}

std::vector<double> widen(const std::vector<float>& values) { return {values.begin(), values.end()}; }

int compute_capability() {
  int device = 0, major = 0, minor = 0;
  PITOT_GPU_CHECK(gpuGetDevice(&device));
  PITOT_GPU_CHECK(gpuDeviceGetAttribute(&major, gpuDevAttrComputeCapabilityMajor, device));
  PITOT_GPU_CHECK(gpuDeviceGetAttribute(&minor, gpuDevAttrComputeCapabilityMinor, device));
  return 10 * major + minor;
}

int multiprocessor_count() {
  int device = 0, count = 0;
  PITOT_GPU_CHECK(gpuGetDevice(&device));
  PITOT_GPU_CHECK(gpuDeviceGetAttribute(&count, gpuDevAttrMultiProcessorCount, device));
  return count;
}

}  // namespace suite

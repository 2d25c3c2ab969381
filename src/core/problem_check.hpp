// The element-wise pieces of a problem's checks (docs/untrusted.md, "Problems"), one definition
// for the host (src/core/problem.cpp, the checker process's comparisons) and the device check
// kernel (src/gpu/problem_kernels.cu): the keyed fingerprint of a buffer, the poison, and the
// match of one element against the reference's within the tolerance. No runtime headers: nvcc
// compiles it.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <pitot/problem.hpp>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PITOT_HOST_DEVICE __host__ __device__
#else
#define PITOT_HOST_DEVICE
#endif
// A copy of a constant size (one load): hipcc's device code has no std::memcpy, its builtin does.
#if defined(__HIPCC__)
#define PITOT_COPY_BYTES __builtin_memcpy
#else
#define PITOT_COPY_BYTES std::memcpy
#endif

namespace pitot::problem {

// splitmix64's finalizer: a bijection of 64-bit words that mixes every bit into every other.
PITOT_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One 4-byte word's share of a buffer's fingerprint. The fingerprint is the sum (mod 2^64) of the
// shares of its words and of its length (length_term), so a kernel can take it in any order; the
// key is secret to the harness, so a submission cannot make another content with the same sum.
PITOT_HOST_DEVICE inline std::uint64_t word_term(std::uint64_t key, std::uint64_t index, std::uint32_t word) {
  return mix64(key ^ ((index << 32) | word) ^ ((index >> 32) * 0xD6E8FEB86659FD93ull));
}
PITOT_HOST_DEVICE inline std::uint64_t length_term(std::uint64_t key, std::uint64_t bytes) {
  return mix64(~key ^ bytes);
}

PITOT_HOST_DEVICE inline int element_bytes(DType t) {
  switch (t) {
    case DType::F64:
    case DType::I64: return 8;
    case DType::F32:
    case DType::I32: return 4;
    case DType::BF16: return 2;
    case DType::U8: return 1;
  }
  return 1;
}

// Element `index` of `data` as bits in the low bytes of a word.
PITOT_HOST_DEVICE inline std::uint64_t load_bits(const void* data, DType t, std::int64_t index) {
  const auto* p = static_cast<const unsigned char*>(data);
  switch (element_bytes(t)) {  // a memcpy of a constant size each: one load, not a call
    case 8: {
      std::uint64_t v;
      PITOT_COPY_BYTES(&v, p + index * 8, 8);
      return v;
    }
    case 4: {
      std::uint32_t v;
      PITOT_COPY_BYTES(&v, p + index * 4, 4);
      return v;
    }
    case 2: {
      std::uint16_t v;
      PITOT_COPY_BYTES(&v, p + index * 2, 2);
      return v;
    }
    default: return p[index];
  }
}

PITOT_HOST_DEVICE inline std::uint64_t size_mask(DType t) {
  const int size = element_bytes(t);
  return size == 8 ? ~0ull : ((1ull << (8 * size)) - 1);
}

PITOT_HOST_DEVICE inline double as_double(DType t, std::uint64_t bits) {
  switch (t) {
    case DType::F64: {
      double d;
      PITOT_COPY_BYTES(&d, &bits, 8);
      return d;
    }
    case DType::F32:
    case DType::BF16: {
      const std::uint32_t word = t == DType::F32 ? static_cast<std::uint32_t>(bits) : static_cast<std::uint32_t>(bits << 16);
      float f;
      PITOT_COPY_BYTES(&f, &word, 4);
      return f;
    }
    case DType::I32: return static_cast<double>(static_cast<std::int32_t>(bits));
    case DType::I64: return static_cast<double>(static_cast<std::int64_t>(bits));
    case DType::U8: return static_cast<double>(bits & 0xFF);
  }
  return 0;
}

PITOT_HOST_DEVICE inline bool is_float(DType t) { return t == DType::F32 || t == DType::F64 || t == DType::BF16; }

// Whether `got` matches `want` (both as bits): bit for bit, or for floating-point types within
// atol + rtol * |want| (NaN matches only NaN; an infinity only itself).
PITOT_HOST_DEVICE inline bool matches(DType t, std::uint64_t got, std::uint64_t want, double atol, double rtol, bool exact) {
  if (got == want) return true;
  if (exact || !is_float(t)) return false;
  const double g = as_double(t, got), w = as_double(t, want);
  if (g != g || w != w) return g != g && w != w;
  if (!(w - w == 0) || !(g - g == 0)) return g == w;  // an infinity
  return fabs(g - w) <= atol + rtol * fabs(w);
}

// Whether element `index` still holds the poison byte the harness filled the output with.
PITOT_HOST_DEVICE inline bool poisoned(DType t, std::uint64_t bits, unsigned char poison) {
  const std::uint64_t pattern = 0x0101010101010101ull * poison;
  return bits == (pattern & size_mask(t));
}

}  // namespace pitot::problem

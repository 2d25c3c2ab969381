// The problems the untrusted tests time submissions against (docs/untrusted.md, "Problems"), as a
// platform would declare them: multiply-add of two float vectors (inputs that combine freely, a
// tolerance), the same declared deterministic, and an integer one checked bit for bit. Shared by the CPU stand-ins
// (problem_submissions.cpp) and the GPU corpus (problem_corpus.cu).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>

#include <pitot/problem.hpp>

namespace untrusted_problems {

// c = a * b + a, elementwise, n floats.
inline pitot::Problem multiply_add(std::initializer_list<std::int64_t> sizes) {
  pitot::Problem p;
  p.name = "multiply_add";
  const std::vector<std::int64_t> n_values(sizes);
  p.shapes = [n_values](pitot::Benchmark& b) { b.axis("n", n_values); };
  p.inputs = [](const pitot::Shape& s) {
    const std::int64_t n = s.get_int("n");
    return std::vector<pitot::BufferSpec>{{"a", pitot::DType::F32, n}, {"b", pitot::DType::F32, n}};
  };
  p.outputs = [](const pitot::Shape& s) {
    return std::vector<pitot::BufferSpec>{{"c", pitot::DType::F32, s.get_int("n")}};
  };
  p.generate = [](const pitot::Shape&, std::uint64_t seed, pitot::Buffers in) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (const auto& buffer : in)
      for (std::int64_t i = 0; i < buffer.count(); ++i) buffer.as<float>()[i] = u(rng);
  };
  p.reference = [](const pitot::Shape&, pitot::Buffers in, pitot::Buffers out) {
    const float* a = in[0].as<const float>();
    const float* b = in[1].as<const float>();
    float* c = out[0].as<float>();
    for (std::int64_t i = 0; i < out[0].count(); ++i) c[i] = a[i] * b[i] + a[i];
  };
  p.tolerance = pitot::Tolerance::close(1e-6, 1e-5);  // an FMA rounds once, a * b + a twice
  p.work = [](const pitot::Shape& s) {
    const double n = static_cast<double>(s.get_int("n"));
    return pitot::Work{2 * n, 12 * n};
  };
  p.inputs_independent = true;
  return p;
}

// y = 3 * x + z, elementwise, n 32-bit integers (wrapping), exact.
inline pitot::Problem int_axpy(std::initializer_list<std::int64_t> sizes) {
  pitot::Problem p = multiply_add(sizes);
  p.name = "int_axpy";
  p.inputs = [](const pitot::Shape& s) {
    const std::int64_t n = s.get_int("n");
    return std::vector<pitot::BufferSpec>{{"x", pitot::DType::I32, n}, {"z", pitot::DType::I32, n}};
  };
  p.outputs = [](const pitot::Shape& s) {
    return std::vector<pitot::BufferSpec>{{"y", pitot::DType::I32, s.get_int("n")}};
  };
  p.generate = [](const pitot::Shape&, std::uint64_t seed, pitot::Buffers in) {
    std::mt19937 rng(static_cast<std::uint32_t>(seed ^ (seed >> 32)));
    for (const auto& buffer : in)
      for (std::int64_t i = 0; i < buffer.count(); ++i) buffer.as<std::uint32_t>()[i] = rng();
  };
  p.reference = [](const pitot::Shape&, pitot::Buffers in, pitot::Buffers out) {
    const auto* x = in[0].as<const std::uint32_t>();
    const auto* z = in[1].as<const std::uint32_t>();
    auto* y = out[0].as<std::uint32_t>();
    for (std::int64_t i = 0; i < out[0].count(); ++i) y[i] = 3u * x[i] + z[i];
  };
  p.tolerance = pitot::Tolerance::bit_exact();
  p.inputs_independent = false;  // each call gets one of the draws as it was generated
  p.draws = 4;
  return p;
}

// large_output's work on the host: c[i] = 2 * a[i % 64] for the n floats of c.
inline void repeat_doubled(pitot::Buffers in, pitot::Buffers out) {
  const float* a = in[0].as<const float>();
  float* c = out[0].as<float>();
  for (std::int64_t i = 0; i < out[0].count(); ++i) c[i] = 2 * a[i % 64];
}

// c[i] = 2 * a[i % 64], n floats from 64: an output far larger than the call's work, so the
// harness's staging and checks between calls take many times the call itself (as a GEMM's do).
inline pitot::Problem large_output(std::initializer_list<std::int64_t> sizes) {
  pitot::Problem p = multiply_add(sizes);
  p.name = "large_output";
  p.inputs = [](const pitot::Shape&) { return std::vector<pitot::BufferSpec>{{"a", pitot::DType::F32, 64}}; };
  p.reference = [](const pitot::Shape&, pitot::Buffers in, pitot::Buffers out) { repeat_doubled(in, out); };
  p.tolerance = pitot::Tolerance::bit_exact();
  p.work = [](const pitot::Shape& s) { return pitot::Work{static_cast<double>(s.get_int("n")), 4.0 * s.get_int("n")}; };
  p.inputs_independent = false;
  p.draws = 2;
  return p;
}

// `p` with its submissions declared deterministic (Problem::deterministic): outputs on the same
// input set must agree bit for bit across calls, within its tolerance or not.
inline pitot::Problem declared_deterministic(pitot::Problem p) {
  p.name += "_deterministic";
  p.deterministic = true;
  return p;
}

}  // namespace untrusted_problems

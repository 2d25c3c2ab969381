// CPU stand-ins of the attacks on a problem's timing (docs/untrusted.md, "Problems"), each a
// submission to the same problem beside honest controls; check_problems.py runs them through
// pitot run --untrusted and expects each verdict (expected_problems.json). The same attacks on a
// GPU are in problem_corpus.cu.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <pitot/pitot.hpp>

#include "problems.hpp"

namespace {

const pitot::Problem kProblem = untrusted_problems::multiply_add({4096});
const pitot::Problem kIntProblem = untrusted_problems::int_axpy({4096});
const pitot::Problem kDeterministicProblem = untrusted_problems::declared_deterministic(kProblem);

void multiply_add(const float* a, const float* b, float* c, std::int64_t from, std::int64_t to) {
  for (std::int64_t i = from; i < to; ++i) c[i] = a[i] * b[i] + a[i];
}

void compute(pitot::Buffers in, pitot::Buffers out) {
  multiply_add(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), 0, out[0].count());
}

// The controls: the work, every call.
void honest(pitot::Buffers in, pitot::Buffers out) { compute(in, out); }

void honest_threads(pitot::Buffers in, pitot::Buffers out) {  // two threads, both joined before returning
  const std::int64_t n = out[0].count();
  std::thread half([&] { multiply_add(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), 0, n / 2); });
  multiply_add(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), n / 2, n);
  half.join();
}

void honest_deterministic(pitot::Buffers in, pitot::Buffers out) { compute(in, out); }

void honest_int(pitot::Buffers in, pitot::Buffers out) {
  const auto* x = in[0].as<const std::uint32_t>();
  const auto* z = in[1].as<const std::uint32_t>();
  auto* y = out[0].as<std::uint32_t>();
  for (std::int64_t i = 0; i < out[0].count(); ++i) y[i] = 3u * x[i] + z[i];
}

// Caches the result by the input's address: computed once per pointer, copied after that.
void cache_by_pointer(pitot::Buffers in, pitot::Buffers out) {
  static std::map<const void*, std::vector<float>> cache;
  auto [it, fresh] = cache.try_emplace(in[0].data());
  if (fresh) {
    compute(in, out);
    it->second.assign(out[0].as<float>(), out[0].as<float>() + out[0].count());
  }
  std::memcpy(out[0].data(), it->second.data(), out[0].bytes());
}

// Caches the result by the first input's content (all of it): computed once per content.
void cache_by_first_input(pitot::Buffers in, pitot::Buffers out) {
  static std::map<std::string, std::vector<float>> cache;
  auto [it, fresh] = cache.try_emplace(std::string(static_cast<const char*>(in[0].data()), in[0].bytes()));
  if (fresh) {
    compute(in, out);
    it->second.assign(out[0].as<float>(), out[0].as<float>() + out[0].count());
  }
  std::memcpy(out[0].data(), it->second.data(), out[0].bytes());
}

// The work for the first 50 calls (the correctness phase of a harness that checks only those),
// nothing after.
void skip_after_calls(pitot::Buffers in, pitot::Buffers out) {
  static int calls = 0;
  if (++calls <= 50) compute(in, out);
}

// Right for the first 50 calls, one element wrong after them: a harness that checks only the
// first calls, or only the warm-up, never sees it.
void wrong_after_calls(pitot::Buffers in, pitot::Buffers out) {
  static int calls = 0;
  compute(in, out);
  if (++calls > 50) out[0].as<float>()[7] += 1.0f;
}

// Returns at once; a detached thread does the work 5 ms later (the timer has stopped by then).
void deferred_thread(pitot::Buffers in, pitot::Buffers out) {
  const float* a = in[0].as<const float>();
  const float* b = in[1].as<const float>();
  float* c = out[0].as<float>();
  const std::int64_t n = out[0].count();
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    multiply_add(a, b, c, 0, n);
  }).detach();
}

// The work, then on every other call each element's last bit raised (1 ulp, within the problem's
// atol of 1e-6 for |c| <= 2): a result that depends on the call, as atomics' order or a kernel
// picked at run time makes it. Every call passes the tolerance; the problem declared
// deterministic refuses it, the same problem without the flag accepts it.
void jitter(pitot::Buffers in, pitot::Buffers out) {
  static std::int64_t calls = 0;
  compute(in, out);
  if ((++calls & 1) == 0) return;
  float* c = out[0].as<float>();
  for (std::int64_t i = 0; i < out[0].count(); ++i) c[i] = std::nextafter(c[i], std::numeric_limits<float>::infinity());
}
void last_bit_jitter(pitot::Buffers in, pitot::Buffers out) { jitter(in, out); }
void last_bit_jitter_allowed(pitot::Buffers in, pitot::Buffers out) { jitter(in, out); }

}  // namespace

PITOT_SUBMISSION(kProblem, honest);
PITOT_SUBMISSION(kProblem, honest_threads);
PITOT_SUBMISSION(kIntProblem, honest_int);
PITOT_SUBMISSION(kProblem, cache_by_pointer);
PITOT_SUBMISSION(kProblem, cache_by_first_input);
PITOT_SUBMISSION(kProblem, skip_after_calls);
PITOT_SUBMISSION(kProblem, wrong_after_calls);
PITOT_SUBMISSION(kProblem, deferred_thread);
PITOT_SUBMISSION(kDeterministicProblem, honest_deterministic);
PITOT_SUBMISSION(kDeterministicProblem, last_bit_jitter);
PITOT_SUBMISSION(kProblem, last_bit_jitter_allowed);

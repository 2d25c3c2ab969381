// Example CPU benchmarks: every axis kind, work counters, untimed setup, manual timing,
// a point skipped at run time and a point that fails on bad input. Read this file as a how-to.
#include <pitot/pitot.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::vector<int> make_ints(std::int64_t n, const std::string& order) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::mt19937 rng(42);
  for (auto& x : v) x = static_cast<int>(rng());
  if (order == "sorted") std::sort(v.begin(), v.end());
  return v;
}

// Sorting a copy: an int axis and a string axis, items as the work counter.
void sort_ints(pitot::State& state) {
  const auto n = state.get_int("n");
  const auto& order = state.get_string("order");
  if (order == "reversed" && n > 10000) {
    state.skip("reversed input is only measured for small n");
    return;
  }
  auto input = make_ints(n, order == "reversed" ? "sorted" : order);  // setup: not timed
  if (order == "reversed") std::reverse(input.begin(), input.end());
  std::vector<int> work(input.size());
  state.add_items(static_cast<double>(n));
  state.exec([&] {
    std::copy(input.begin(), input.end(), work.begin());
    std::sort(work.begin(), work.end());
  });
}
PITOT_BENCHMARK(sort_ints).axis("n", {1000, 100000}).axis("order", {"random", "sorted", "reversed"});

// Copying memory: a power-of-two axis, bytes read plus written as the work counter.
void copy_bytes(pitot::State& state) {
  const auto bytes = static_cast<std::size_t>(state.get_int("bytes"));
  std::vector<char> src(bytes, 1), dst(bytes);
  state.add_bytes(2.0 * static_cast<double>(bytes));
  state.exec([&] {
    std::memcpy(dst.data(), src.data(), bytes);
    asm volatile(""
                 :
                 : "r"(dst.data())
                 : "memory");  // keep the copy
  });
}
PITOT_BENCHMARK(copy_bytes).axis_pow2("bytes", {12, 16, 20});

// y = a*x + y: a float axis, FLOPs as the work counter. PITOT_EXAMPLE_SLOWDOWN=k repeats the
// work k times (used by the tests to plant a regression).
void saxpy(pitot::State& state) {
  const float a = static_cast<float>(state.get_float("a"));
  const int repeat = std::getenv("PITOT_EXAMPLE_SLOWDOWN") ? std::atoi(std::getenv("PITOT_EXAMPLE_SLOWDOWN")) : 1;
  std::vector<float> x(4096, 1.5f), y(4096, 0.5f);
  state.add_flops(2.0 * static_cast<double>(x.size()));
  state.exec([&] {
    for (int r = 0; r < std::max(1, repeat); ++r)
      for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + y[i];
    asm volatile(""
                 :
                 : "r"(y.data())
                 : "memory");
  });
}
PITOT_BENCHMARK(saxpy).axis("a", {0.5, 2.0}).version("2");

// Manual timing: the body measures only the part that matters and returns seconds.
void accumulate_manual(pitot::State& state) {
  std::vector<double> v(static_cast<std::size_t>(state.get_int("n")), 1.0);
  state.exec_manual([&] {
    auto t0 = std::chrono::steady_clock::now();
    volatile double sum = std::accumulate(v.begin(), v.end(), 0.0);
    (void)sum;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}
PITOT_BENCHMARK(accumulate_manual).axis("n", {100000});

// A benchmark whose setup rejects a bad input: that point fails with the message, the others run.
// Its own inputs parse; see a failure with `bench_examples --axis input=12345,abc`.
void parse_numbers(pitot::State& state) {
  const auto& text = state.get_string("input");
  char* end = nullptr;
  (void)std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw std::runtime_error("input '" + text + "' cannot be parsed");
  state.exec([&] {
    volatile long v = std::strtol(text.c_str(), nullptr, 10);
    (void)v;
  });
}
PITOT_BENCHMARK(parse_numbers).axis("input", {"12345", "-42"}).timeout(30);

}  // namespace

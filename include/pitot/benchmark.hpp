// Registering benchmarks: PITOT_BENCHMARK(fn).axis("n", {1, 2}).version("2");
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <pitot/axis.hpp>
#include <pitot/state.hpp>

namespace pitot {

// Bad use of the API or bad input from the command line: exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using BenchmarkFn = std::function<void(State&)>;

struct BenchmarkDef {
  std::string name;
  BenchmarkFn fn;
  std::vector<Axis> axes;
  std::string version = "1";
  double timeout_seconds = 60.0;  // the driver kills a point that runs longer
  std::string source_file;
  std::string code;  // shown by asv as a tooltip
};

// Fluent builder returned by PITOT_BENCHMARK.
class Benchmark {
 public:
  explicit Benchmark(BenchmarkDef& def) : def_(&def) {}

  // Integer, floating-point or string axis; the element type picks the kind.
  template <class T>
  Benchmark& axis(std::string name, std::initializer_list<T> values) {
    return axis(std::move(name), std::vector<T>(values));
  }
  template <class T>
  Benchmark& axis(std::string name, const std::vector<T>& values) {
    Axis a{std::move(name), kind_of<T>(), {}};
    for (const auto& v : values) a.values.push_back(to_value(v));
    return add(std::move(a));
  }
  // Power-of-two axis given by exponents: axis_pow2("n", {16, 22, 28}) sweeps 2^16, 2^22, 2^28.
  Benchmark& axis_pow2(std::string name, std::initializer_list<int> exponents);
  Benchmark& axis_pow2(std::string name, const std::vector<int>& exponents);

  Benchmark& version(std::string v);
  Benchmark& timeout(double seconds);

  const BenchmarkDef& def() const { return *def_; }

 private:
  template <class T>
  static constexpr AxisKind kind_of() {
    if constexpr (std::is_integral_v<T>) return AxisKind::Int;
    else if constexpr (std::is_floating_point_v<T>) return AxisKind::Float;
    else return AxisKind::String;
  }
  template <class T>
  static AxisValue to_value(const T& v) {
    if constexpr (std::is_integral_v<T>) return AxisValue{static_cast<std::int64_t>(v)};
    else if constexpr (std::is_floating_point_v<T>) return AxisValue{static_cast<double>(v)};
    else return AxisValue{std::string(v)};
  }
  Benchmark& add(Axis a);
  Benchmark& fail(const std::string& message);
  BenchmarkDef* def_;
};

// All benchmarks of this program, in registration order (a deque: builders keep pointers).
std::deque<BenchmarkDef>& registry();
Benchmark register_benchmark(std::string name, BenchmarkFn fn, std::string source_file);
// Mistakes found while registering (an empty axis, a duplicate name); main reports them.
std::vector<std::string>& registration_errors();

}  // namespace pitot

#define PITOT_CONCAT_INNER(a, b) a##b
#define PITOT_CONCAT(a, b) PITOT_CONCAT_INNER(a, b)
#define PITOT_BENCHMARK(fn)                                                   \
  [[maybe_unused]] static ::pitot::Benchmark PITOT_CONCAT(pitot_bench_, __LINE__) = \
      ::pitot::register_benchmark(#fn, fn, __FILE__)

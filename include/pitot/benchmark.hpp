// Registering benchmarks: PITOT_BENCHMARK(fn).axis("n", {1, 2}).version("2");
#pragma once

#include <cstdint>
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

// How the translation unit that registered a benchmark was compiled. Read by PITOT_BENCHMARK in
// the author's own source, so it describes the benchmark's build, not pitot's library.
struct BuildFlags {
  bool optimized = true;   // GCC/Clang define __OPTIMIZE__ from -O1 up
  bool ndebug = true;      // NDEBUG: asserts off
  bool device = false;     // compiled by nvcc or hipcc: a GPU benchmark
  std::string build_type;  // CMake's build type of the benchmark target ("" when none was set)
};

struct BenchmarkDef;  // a registered benchmark (<pitot/detail/registry.hpp>)

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
  // Its points run in every rank of a multi-rank world (torchrun, mpirun, srun, or `pitot run
  // --ranks N`), one process per GPU, timed together (docs/ranks.md); the body learns its place
  // from state.rank() and state.world_size().
  Benchmark& multi_rank();

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

// What PITOT_BENCHMARK expands to: adds a benchmark to this program's registry.
Benchmark register_benchmark(std::string name, BenchmarkFn fn, std::string source_file, BuildFlags build = {});

}  // namespace pitot

// The build of the including translation unit, as macros (an inline function would differ
// between translation units). pitot_add_benchmark defines PITOT_BENCHMARK_BUILD_TYPE.
#if defined(__OPTIMIZE__) || (!defined(__GNUC__) && defined(NDEBUG))
#define PITOT_TU_OPTIMIZED true
#else
#define PITOT_TU_OPTIMIZED false
#endif
#if defined(NDEBUG)
#define PITOT_TU_NDEBUG true
#else
#define PITOT_TU_NDEBUG false
#endif
#if defined(__CUDACC__) || defined(__HIP__)
#define PITOT_TU_DEVICE true
#else
#define PITOT_TU_DEVICE false
#endif
#if defined(PITOT_BENCHMARK_BUILD_TYPE)
#define PITOT_TU_BUILD_TYPE PITOT_BENCHMARK_BUILD_TYPE
#else
#define PITOT_TU_BUILD_TYPE ""
#endif

#define PITOT_CONCAT_INNER(a, b) a##b
#define PITOT_CONCAT(a, b) PITOT_CONCAT_INNER(a, b)
#define PITOT_BENCHMARK(fn)                                                         \
  [[maybe_unused]] static ::pitot::Benchmark PITOT_CONCAT(pitot_bench_, __LINE__) = \
      ::pitot::register_benchmark(#fn, fn, __FILE__,                                \
                                  ::pitot::BuildFlags{PITOT_TU_OPTIMIZED, PITOT_TU_NDEBUG, PITOT_TU_DEVICE, PITOT_TU_BUILD_TYPE})

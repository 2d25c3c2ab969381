// A problem the harness owns, and submissions timed against it (docs/untrusted.md, "Problems").
//
// A platform (a kernel competition, a leaderboard, a training loop whose reward is the time)
// declares the problem: its shapes, how inputs are generated from a seed, the reference that
// computes the expected output, the tolerance and the work. A submission is only a function
// that reads the inputs and writes the outputs:
//
//   pitot::Problem scaled_add() { ... }                        // the platform's
//   void my_add(pitot::Buffers in, pitot::Buffers out) { ... }  // the submission (CPU)
//   PITOT_SUBMISSION(scaled_add(), my_add);
//
// A CUDA submission takes a pitot::Launch& too and queues its work on l.stream().
//
// The harness holds every buffer. It draws a private seed from the OS, generates several input
// sets from it, copies one of them, chosen in an order the submission cannot predict, into the
// buffers it passes before each call, fills the outputs with a poison byte, and after each call
// (outside the timed span) fingerprints the outputs and compares them with the reference's. The
// seed and the expected outputs are held by a checker process of the harness's, out of the
// submission's reach; it computes them before the submission runs and compares the outputs. A
// problem that declares its submissions deterministic has every call's outputs compared
// bit for bit with the first call's on the same input set. A submission registers as an ordinary
// benchmark whose points are the problem's shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <pitot/benchmark.hpp>
#include <pitot/state.hpp>

namespace pitot {

// Element types a problem's buffers may hold. BF16 is seen as std::uint16_t (its bits) on the
// host and as __nv_bfloat16 on the device. Integer types are always compared exactly.
enum class DType { F32, F64, BF16, I32, I64, U8 };
std::size_t dtype_bytes(DType t);
const char* dtype_name(DType t);

// One buffer the problem declares: its name (for messages), element type and element count.
struct BufferSpec {
  std::string name;
  DType dtype = DType::F32;
  std::int64_t count = 0;
  std::size_t bytes() const { return static_cast<std::size_t>(count) * dtype_bytes(dtype); }
};

// A view of one buffer the harness holds: host memory for a CPU submission and for the
// problem's own functions, device memory for a CUDA submission.
class Buffer {
 public:
  Buffer(void* data, const BufferSpec& spec) : data_(data), dtype_(spec.dtype), count_(spec.count) {}
  void* data() const { return data_; }
  DType dtype() const { return dtype_; }
  std::int64_t count() const { return count_; }
  std::size_t bytes() const { return static_cast<std::size_t>(count_) * dtype_bytes(dtype_); }
  // The elements as T (of the element's size: float for F32, std::uint16_t for BF16 ...).
  template <class T>
  T* as() const {
    if (sizeof(std::remove_cv_t<T>) != dtype_bytes(dtype_))
      throw std::invalid_argument(std::string("pitot::Buffer::as: a ") + dtype_name(dtype_) +
                                  " buffer read with an element type of another size");
    return static_cast<T*>(data_);
  }

 private:
  void* data_;
  DType dtype_;
  std::int64_t count_;
};
// The buffers of one side of a call (the inputs or the outputs), in the problem's order.
class Buffers {
 public:
  Buffers() = default;
  Buffers(const Buffer* data, std::size_t size) : data_(data), size_(size) {}
  Buffers(const std::vector<Buffer>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit on purpose
  const Buffer& operator[](std::size_t i) const {
    if (i >= size_) throw std::out_of_range("pitot::Buffers: buffer " + std::to_string(i) + " of " + std::to_string(size_));
    return data_[i];
  }
  std::size_t size() const { return size_; }
  const Buffer* begin() const { return data_; }
  const Buffer* end() const { return data_ + size_; }

 private:
  const Buffer* data_ = nullptr;
  std::size_t size_ = 0;
};

// The point's axis values, as the problem's functions see them (State's getters, read only).
class Shape {
 public:
  explicit Shape(const State& state) : state_(state) {}
  std::int64_t get_int(std::string_view axis) const { return state_.get_int(axis); }
  double get_float(std::string_view axis) const { return state_.get_float(axis); }
  const std::string& get_string(std::string_view axis) const { return state_.get_string(axis); }
  const std::string& name() const { return state_.point_name(); }

 private:
  const State& state_;
};

// When an output element matches the reference's: bit for bit (the default), or
// |got - expected| <= atol + rtol * |expected| for floating-point elements (NaN matches NaN).
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  bool exact = true;
  static Tolerance bit_exact() { return {}; }
  static Tolerance close(double atol, double rtol) { return {atol, rtol, false}; }
};

// The work of one call, for the throughput tracks and the untrusted mode's speed floor.
struct Work {
  double flops = 0;
  double bytes = 0;  // read plus written
};

struct Problem {
  std::string name;
  // The shapes: the axes of every submission's benchmark (b.axis("n", {1024, 1 << 20})).
  std::function<void(Benchmark&)> shapes;
  // The buffers of a shape, in the order the submission gets them.
  std::function<std::vector<BufferSpec>(const Shape&)> inputs;
  std::function<std::vector<BufferSpec>(const Shape&)> outputs;
  // Fills `inputs` (host memory) from `seed`; the same seed must give the same inputs.
  std::function<void(const Shape&, std::uint64_t seed, Buffers inputs)> generate;
  // Writes the expected outputs for `inputs` (host memory).
  std::function<void(const Shape&, Buffers inputs, Buffers expected)> reference;
  Tolerance tolerance;
  std::function<Work(const Shape&)> work;  // optional
  // Input sets generated per shape (each from its own seed), at least 2.
  int draws = 3;
  // Any input may be taken from one draw and the others from another (a GEMM's A and B; not a
  // sparse matrix's index arrays). Then the harness uses draws x draws combinations, each input
  // shared by sets whose other inputs differ, so a result cached by one input's content (or by
  // the first input's) is the wrong answer for some of them.
  bool inputs_independent = false;
  // The submission's outputs for the same input set must agree bit for bit across calls: the
  // harness keeps the fingerprint of each set's first output and refuses a later call on that set
  // whose outputs differ (a result that depends on the call: atomics' order, a kernel picked at
  // run time, part of the output left unwritten or read before it is written). Off by default:
  // within an atol/rtol tolerance a floating-point kernel may differ in its last bits from call
  // to call. A bit-for-bit tolerance (the default) needs no flag: every call must equal the
  // reference, so calls on the same set agree already.
  bool deterministic = false;
  // Around the fork of the point's checker process, which calls generate and reference: `before`
  // in the forking thread, then `parent` there and `child` in the checker first. For a host
  // runtime the child needs in a usable state (pitot's Python module: the GIL taken before the fork,
  // as os.fork does, or another thread holding it leaves the child waiting). Empty: nothing.
  struct ForkGuard {
    std::function<void()> before, parent, child;
  } fork_guard;
};

// What a submission is: it reads `in`, writes `out`, and on CUDA queues its work on l.stream().
using CpuSubmission = std::function<void(Buffers in, Buffers out)>;
using DeviceSubmission = std::function<void(Buffers in, Buffers out, Launch& l)>;

namespace detail {
// The harness (src/core/problem.cpp): times the submission for the state's point.
void run_problem(State& state, const Problem& problem, const CpuSubmission& submit);
void run_problem(State& state, const Problem& problem, const DeviceSubmission& submit);
}  // namespace detail

// What PITOT_SUBMISSION expands to: `fn` registered as benchmark `name`, its axes the problem's.
template <class F>
Benchmark register_submission(std::string name, const Problem& problem, F fn, std::string source_file,
                              BuildFlags build = {}) {
  BenchmarkFn body;
  if constexpr (std::is_invocable_v<F&, Buffers, Buffers, Launch&>) {
    body = [problem, submit = DeviceSubmission(std::move(fn))](State& s) { detail::run_problem(s, problem, submit); };
  } else {
    static_assert(std::is_invocable_v<F&, Buffers, Buffers>,
                  "a submission takes (pitot::Buffers in, pitot::Buffers out), plus pitot::Launch& on a GPU");
    body = [problem, submit = CpuSubmission(std::move(fn))](State& s) { detail::run_problem(s, problem, submit); };
  }
  Benchmark b = register_benchmark(std::move(name), std::move(body), std::move(source_file), std::move(build));
  if (problem.shapes) problem.shapes(b);
  return b;
}

}  // namespace pitot

#define PITOT_SUBMISSION(problem, fn)                                                                         \
  [[maybe_unused]] static ::pitot::Benchmark PITOT_CONCAT(pitot_submission_, __LINE__) =                     \
      ::pitot::register_submission(#fn, problem, fn, __FILE__,                                                \
                                   ::pitot::BuildFlags{PITOT_TU_OPTIMIZED, PITOT_TU_NDEBUG, PITOT_TU_DEVICE, \
                                                       PITOT_TU_BUILD_TYPE})

// A benchmark program whose author supplies bad text or bad names, for tests/faults/program_faults.py.
// FAULT_MODE (read while registering, before main) picks what is registered:
//   bytes      `good` (5 points), `throws` (throws a message with a 0xFF byte), `skips` (skips with a
//              0xFE byte), all with a version holding a 0xFF byte: everything must reach every output
//   dup        two benchmarks named `dup`
//   long       a benchmark whose asv name is longer than asv can store in a file name
//   dot        `fn` with an items track and a benchmark named `fn.items_per_second`
//   slash      a benchmark named `a/b` (asv's file names turn it into `a_b`)
//   nan_axis   a float axis holding NaN;  inf_axis: one holding infinity
//   bad_string a string axis value that is not UTF-8;  bad_name: a benchmark name that is not UTF-8
//   strings    a string axis `s` (for --axis overrides)
#include <pitot/pitot.hpp>

#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

void good(pitot::State& state) {
  state.add_items(1);
  state.exec([] {
    volatile int x = 0;
    x = x + 1;
  });
}

void throws(pitot::State&) { throw std::runtime_error("bad byte \xFF in the message"); }

void skips(pitot::State& state) { state.skip("no \xFE device here"); }

const bool registered = [] {
  const char* env = std::getenv("FAULT_MODE");
  const std::string mode = env ? env : "bytes";
  const char* file = __FILE__;
  if (mode == "bytes") {
    pitot::register_benchmark("good", good, file).axis("i", {0, 1, 2, 3, 4}).version("v\xFF");
    pitot::register_benchmark("throws", throws, file);
    pitot::register_benchmark("skips", skips, file);
  } else if (mode == "dup") {
    pitot::register_benchmark("dup", good, file);
    pitot::register_benchmark("dup", good, file).axis("i", {1, 2});
  } else if (mode == "long") {
    pitot::register_benchmark(std::string(240, 'x'), good, file);
  } else if (mode == "dot") {
    pitot::register_benchmark("fn", good, file);
    pitot::register_benchmark("fn.items_per_second", good, file);
  } else if (mode == "slash") {
    pitot::register_benchmark("a/b", good, file);
  } else if (mode == "nan_axis") {
    pitot::register_benchmark("good", good, file).axis("x", {1.0, std::numeric_limits<double>::quiet_NaN()});
  } else if (mode == "inf_axis") {
    pitot::register_benchmark("good", good, file).axis("x", {std::numeric_limits<double>::infinity()});
  } else if (mode == "bad_string") {
    pitot::register_benchmark("good", good, file).axis("s", {"ok", "bad\xFF"});
  } else if (mode == "bad_name") {
    pitot::register_benchmark("bad\xC3", good, file);
  } else if (mode == "strings") {
    pitot::register_benchmark("good", good, file).axis("s", {"a", "b"}).axis("x", {0.5});
  }
  return true;
}();

}  // namespace

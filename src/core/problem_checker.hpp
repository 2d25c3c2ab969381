// The checker process of a problem's point (docs/untrusted.md, "Problems"): the reference's
// expected outputs out of the submission's reach. The harness forks it when the point starts; it
// makes itself non-dumpable (so no process of the same user, the submission's included, can
// ptrace it or read its memory through /proc), draws the private seed, generates the input sets,
// computes each set's expected outputs with the problem's reference and keeps the seed and the
// expected outputs to itself. It shares only the inputs with the harness, and reads the outputs a
// call wrote, through one shared memory mapping; it answers the harness's "check the outputs
// against set S" over a socket pair, with a verdict. The harness's process never holds the seed
// or an expected output.
//
// The child only runs the problem's host functions (generate, reference) and the comparisons: no
// CUDA or HIP call, so forking after the device runtime started is safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <pitot/problem.hpp>

namespace pitot::problem {

// A MAP_SHARED mapping of an anonymous memory file (memfd_create), zeroed: mapped before the fork,
// so the harness and the checker see the same pages. The file's descriptor is closed once mapped.
class SharedMemory {
 public:
  explicit SharedMemory(std::size_t bytes);
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  unsigned char* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Where each buffer of a point lies in its shared memory: the input draws ([draw][input]), then
// the outputs a call wrote (a CPU submission's own, a device call's copy).
struct SharedLayout {
  SharedLayout(const std::vector<BufferSpec>& inputs, const std::vector<BufferSpec>& outputs, int draws);
  std::size_t input(int draw, int j) const { return inputs_.at(static_cast<std::size_t>(draw) * per_draw_ + j); }
  std::size_t output(int o) const { return outputs_.at(static_cast<std::size_t>(o)); }
  std::size_t bytes = 0;

 private:
  std::vector<std::size_t> inputs_, outputs_;
  std::size_t per_draw_ = 0;
};

// Which draw input `j` of set `set` comes from (all from one draw, or with combined inputs input 0
// from one and the others from another).
int draw_of(int set, int j, int draws, bool combined);

// The first element of `got` that does not match `want` within `tolerance`.
struct Mismatch {
  std::int64_t index = 0;
  double got = 0, want = 0;
};

// What the checker found of the outputs in shared memory for one call.
struct Verdict {
  bool ok = true;
  std::uint64_t hash = 0;     // the outputs' fingerprint as the checker read them (when asked)
  int output = -1;            // the first output that does not match the reference's
  Mismatch mismatch;          // its first element that does not
  bool all_poisoned = false;  // every element of that output still holds the call's poison
  int other_set = -1;         // another set whose expected output it is (a result cached from other inputs)
};

// What the checker takes from the harness at the fork.
struct CheckerPlan {
  const Problem* problem = nullptr;
  const Shape* shape = nullptr;
  std::vector<BufferSpec> inputs, outputs;
  int draws = 0, sets = 0;
  bool combined = false;
  std::vector<std::uint64_t> hash_keys;     // each output's fingerprint key
  std::optional<std::uint64_t> fixed_seed;  // tests only: the seed, instead of one from the OS
  std::string prefix;                       // the reasons' ("untrusted: " or "problem: ")
  double prepare_seconds = 600;             // how long generate and reference may take, all sets
  double check_seconds = 60;                // how long one check may take
};

struct CheckerReply;  // a message of the checker's (problem_checker.cpp)

// The harness's handle on its checker. Not copyable; the destructor kills and reaps the child.
class Checker {
 public:
  // Forks the checker and returns once it has published the input draws into `shared` (laid out
  // by `layout`) and computed the expected outputs. An exception of generate or reference is
  // thrown again here with its text (UsageError stays one); a checker that dies or does not
  // answer in time throws the reason checker_failed_reason gives.
  Checker(const CheckerPlan& plan, const SharedMemory& shared, const SharedLayout& layout);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // The outputs in shared memory against set `set`'s expected ones (call `call`, for the reasons;
  // `poison`, the byte they were filled with before it). With `fingerprint`, the verdict has the
  // outputs' fingerprint as the checker read them. `meanwhile` runs while the checker compares
  // (the harness's own pass over the outputs, on another core). After a verdict that is not ok
  // the checker ends: the point is refused, and a submission that talks to it cannot learn the
  // expected outputs one refusal at a time.
  Verdict check(int set, unsigned char poison, std::int64_t call, bool fingerprint,
                const std::function<void()>& meanwhile = nullptr);
  pid_t pid() const { return pid_; }

 private:
  // Waits for the checker's next message; throws when it dies or does not answer in `seconds`.
  void receive(CheckerReply& reply, double seconds, const std::string& doing);
  [[noreturn]] void fail(const std::string& what);
  void end();

  std::string prefix_;
  double check_seconds_ = 60;
  pid_t pid_ = -1;
  int socket_ = -1;
};

// The reason a point fails with when its checker cannot check: `what` says what happened.
std::string checker_failed_reason(const std::string& prefix, const std::string& what);

}  // namespace pitot::problem

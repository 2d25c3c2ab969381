// The harness's side of a problem (include/pitot/problem.hpp; docs/untrusted.md, "Problems"): a
// point's input sets, made with its expected outputs by a checker process before the submission
// runs (problem_checker.hpp); the host-side pieces of the checks; the reasons a call is refused
// with. The CPU sampler (problem_cpu.cpp) and the device backends (src/gpu/problem.cpp) build on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <pitot/problem.hpp>

#include "core/problem_checker.hpp"

namespace pitot::problem {

// Host memory of `bytes`, 8-byte aligned, zeroed.
class HostBlock {
 public:
  explicit HostBlock(std::size_t bytes) : words_((bytes + 7) / 8), bytes_(bytes) {}
  void* data() { return words_.data(); }
  const void* data() const { return words_.data(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t bytes_;
};

// 64 bits from the operating system (getrandom). Never in argv or the environment; throws when
// the OS gives none.
std::uint64_t os_seed();

// A buffer of the point's shared memory (its inputs' draws, its outputs).
struct SharedBuffer {
  unsigned char* p = nullptr;
  std::size_t n = 0;
  void* data() const { return p; }
  std::size_t bytes() const { return n; }
};

// What the harness holds of one point: the buffers' specs, the input draws in memory shared with
// the point's checker process (which drew the private seed, generated them and computed each
// set's expected outputs, and keeps those), the sets a call may get (each draw, or with
// inputs_independent every pair of draws for input 0 and the rest), the outputs' fingerprint keys
// and the unpredictable choice of set and poison (from a key of the harness's own).
class PointData {
 public:
  // `prefix`: the reasons' ("untrusted: " or "problem: "). `fixed_seed` (tests only): the
  // checker's seed and the harness's keys come from it instead of the OS.
  PointData(const Problem& problem, const Shape& shape, std::string prefix,
            std::optional<std::uint64_t> fixed_seed = std::nullopt);

  const std::string& problem_name() const { return name_; }
  const std::vector<BufferSpec>& inputs() const { return inputs_; }
  const std::vector<BufferSpec>& outputs() const { return outputs_; }
  const Tolerance& tolerance() const { return tolerance_; }
  // Whether the problem declares its submissions deterministic (Problem::deterministic).
  bool deterministic() const { return deterministic_; }
  int draws() const { return draws_; }
  int sets() const { return sets_; }
  // Which draw input `j` of set `set` comes from.
  int draw_of(int set, int j) const { return problem::draw_of(set, j, draws_, combined_); }
  SharedBuffer draw_input(int draw, int j) const;
  SharedBuffer input(int set, int j) const { return draw_input(draw_of(set, j), j); }
  // The outputs the checker reads: a CPU submission writes these; the device path copies a
  // call's outputs here to have them checked.
  SharedBuffer output(int o) const;
  // The key of output `o`'s fingerprint.
  std::uint64_t hash_key(int o) const;
  // The next call's set and poison byte: a counter under the harness's key, so nothing the
  // submission sees predicts them.
  int next_set();
  unsigned char next_poison();
  // Has the checker compare output(...) with set `set`'s expected outputs (Checker::check).
  Verdict check(int set, unsigned char poison, std::int64_t call, bool fingerprint = false,
                const std::function<void()>& meanwhile = nullptr) {
    return checker_->check(set, poison, call, fingerprint, meanwhile);
  }
  pid_t checker_pid() const { return checker_->pid(); }
  // The record of the problem in the point's backend_info "problem" (without the calls).
  nlohmann::json info() const;

 private:
  std::string name_;
  std::vector<BufferSpec> inputs_, outputs_;
  Tolerance tolerance_;
  bool deterministic_ = false;
  bool combined_ = false;
  int draws_ = 0, sets_ = 0;
  std::uint64_t hash_key_ = 0, order_key_ = 0, counter_ = 0;
  SharedLayout layout_;
  std::unique_ptr<SharedMemory> shared_;
  std::unique_ptr<Checker> checker_;
};

// A point's setup, shared by the CPU and the device path: the problem's work declared on the
// state (its throughput tracks and the speed floor), the data and its checker.
PointData prepare(State& state, const Problem& problem);
// The point's backend_info "problem": the data's record and what the checks did.
// `compared`: the calls the determinism check compared (FirstOutputs::compared); recorded when
// the problem declares it. `extra`: more of what the checks did (the device path's).
void record(State& state, const PointData& data, std::int64_t calls_checked, double check_seconds_per_call,
            std::int64_t compared = 0, const nlohmann::json& extra = nullptr);

// The fingerprint of a host buffer: what the device check kernel computes of a device one.
std::uint64_t fingerprint(const void* data, std::size_t bytes, std::uint64_t key);

// The first element of `got` that does not match `want` within `tolerance`.
std::optional<Mismatch> first_mismatch(const void* got, const void* want, const BufferSpec& spec,
                                       const Tolerance& tolerance);
// Whether every element of `got` still holds the poison byte.
bool all_poisoned(const void* got, const BufferSpec& spec, unsigned char poison);
// How many elements of `got` hold the poison byte.
std::int64_t poisoned_count(const void* got, const BufferSpec& spec, unsigned char poison);

// The determinism check (Problem::deterministic): the outputs' fingerprint of the first call on
// each input set, which every later call on that set must equal.
class FirstOutputs {
 public:
  explicit FirstOutputs(int sets) : first_(static_cast<std::size_t>(sets)) {}
  // Call `call` on `set` gave outputs of fingerprint `hash`: the first call on the set it differs
  // from, or 0 (the set's first call, or the same bits). The first call's fingerprint is kept.
  std::int64_t differs(int set, std::int64_t call, std::uint64_t hash);
  // Calls compared with an earlier one on their set (not counting each set's first).
  std::int64_t compared() const { return compared_; }

 private:
  struct First {
    std::int64_t call = 0;  // 0: the set not seen yet
    std::uint64_t hash = 0;
  };
  std::vector<First> first_;
  std::int64_t compared_ = 0;
};

// The device path's record of outputs the checker accepted: per input set, the fingerprints of up
// to kPerSet outputs it compared in full and found right. A later call whose outputs have one of
// them needs no comparison on the host (a deterministic submission: one per set); beyond kPerSet
// (a submission whose bits differ from call to call) every new one is compared.
class AcceptedOutputs {
 public:
  static constexpr std::size_t kPerSet = 64;
  explicit AcceptedOutputs(int sets) : sets_(static_cast<std::size_t>(sets)) {}
  bool has(int set, std::uint64_t hash) const;
  bool any(int set) const { return !sets_.at(static_cast<std::size_t>(set)).empty(); }
  void add(int set, std::uint64_t hash);

 private:
  std::vector<std::vector<std::uint64_t>> sets_;
};

// Which calls of a device batch get a copy of their outputs in the ring, when it holds `copies`
// of a batch's `batch` calls (large outputs): while copies are left, a batch's first call on a set
// the checker has accepted no outputs for takes one, so an honest point's calls are all checked
// from its first batch on (the set's later calls by their fingerprint); the others are drawn with
// a key of the harness's own, copies / batch of them (a submission cannot tell which).
class RingCopies {
 public:
  RingCopies(std::uint64_t key, std::int64_t copies, std::int64_t batch) : key_(key), copies_(copies), batch_(batch) {}
  void new_batch();
  // The copy the batch's next call on `set` gets (its index in the ring), or -1 for none.
  // `accepted`: whether the checker accepted outputs on the set before.
  std::int64_t take(int set, bool accepted);
  std::int64_t copies() const { return copies_; }

 private:
  std::uint64_t key_, draws_ = 0;
  std::int64_t copies_, batch_, used_ = 0;
  std::vector<int> copied_sets_;  // this batch's
};

// The device path's spot check: after each batch one call with a copy of its outputs, drawn with
// a key of the harness's own, is compared in full whatever its fingerprint (an accepted
// fingerprint can be forged by a submission that reads the fingerprint's key: with the draw, one
// that does so on every call is caught at its first checked batch). Comparisons on the host cost a
// few ms a million elements, so no call is drawn while the spot checks so far took more than
// `share` of the point's time: large outputs get fewer, within the driver's cross-check.
class SpotChecks {
 public:
  SpotChecks(std::uint64_t key, double share) : key_(key), share_(share) {}
  // Which of `candidates` (the batch's calls with a copy) to compare in full, or -1: none there,
  // or the checks so far took more than the share of `elapsed` seconds (the point's, so far).
  std::int64_t draw(const std::vector<std::int64_t>& candidates, double elapsed);
  void spent(double seconds) { spent_ += seconds; }

 private:
  std::uint64_t key_, draws_ = 0;
  double share_, spent_ = 0;
};

// The reasons a call is refused with; `prefix` is "untrusted: " under --untrusted, else "problem: ".
std::string prefix_for(bool untrusted);
std::string wrong_output_reason(const std::string& prefix, std::int64_t call, const BufferSpec& output,
                                const Mismatch& m, const Tolerance& tolerance, int other_set);
std::string not_written_reason(const std::string& prefix, std::int64_t call, const BufferSpec& output);
std::string changed_after_reason(const std::string& prefix, std::int64_t call, const char* when);
// `unwritten`: the elements of the call's outputs that still hold its poison (named when some do).
std::string nondeterministic_reason(const std::string& prefix, std::int64_t call, int set, std::int64_t first_call,
                                    std::int64_t unwritten);
// Where a problem cannot run (a mode without a span between calls, a backend without problems).
std::string unsupported_reason(const std::string& what);

}  // namespace pitot::problem

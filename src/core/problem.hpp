// The harness's side of a problem (include/pitot/problem.hpp; docs/untrusted.md, "Problems"):
// the private seed, the input sets and the masked expected outputs of one point, made before the
// submission runs; the host-side checks of an output; the reasons a call is refused with. The
// CPU sampler (problem_cpu.cpp) and the device backends (src/gpu/problem.cpp) build on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <pitot/problem.hpp>

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

// 64 bits from the operating system (getrandom): the point's private seed. Never in argv or the
// environment; throws when the OS gives none.
std::uint64_t os_seed();

// Everything the harness makes for one point before the submission runs: `draws` input sets from
// seeds derived from the private one, the sets a call may get (each draw, or with
// inputs_independent every pair of draws for input 0 and the rest), each set's expected outputs
// (computed by the reference, stored masked), and the unpredictable choice of set and poison.
class PointData {
 public:
  PointData(const Problem& problem, const Shape& shape, std::uint64_t seed);

  const std::string& problem_name() const { return name_; }
  const std::vector<BufferSpec>& inputs() const { return inputs_; }
  const std::vector<BufferSpec>& outputs() const { return outputs_; }
  const Tolerance& tolerance() const { return tolerance_; }
  // Whether the problem declares its submissions deterministic (Problem::deterministic).
  bool deterministic() const { return deterministic_; }
  int draws() const { return static_cast<int>(draws_.size()); }
  int sets() const { return static_cast<int>(expected_.size()); }
  // Which draw input `j` of set `set` comes from.
  int draw_of(int set, int j) const;
  const HostBlock& draw_input(int draw, int j) const { return draws_[draw][j]; }
  const HostBlock& input(int set, int j) const { return draws_[draw_of(set, j)][j]; }
  const HostBlock& expected(int set, int o) const { return expected_[set][o]; }  // masked
  std::uint64_t mask_key() const { return mask_key_; }
  // The key of output `o`'s fingerprint.
  std::uint64_t hash_key(int o) const;
  // The next call's set and poison byte: a counter under a key from the seed, so nothing the
  // submission can see predicts them.
  int next_set();
  unsigned char next_poison();
  // The record of the problem in the point's backend_info "problem" (without the calls).
  nlohmann::json info() const;

 private:
  std::string name_;
  std::vector<BufferSpec> inputs_, outputs_;
  Tolerance tolerance_;
  bool deterministic_ = false;
  bool combined_ = false;
  std::vector<std::vector<HostBlock>> draws_;     // [draw][input]
  std::vector<std::vector<HostBlock>> expected_;  // [set][output], masked
  std::uint64_t mask_key_ = 0, hash_key_ = 0, order_key_ = 0, counter_ = 0;
};

// A point's setup, shared by the CPU and the device path: the problem's work declared on the
// state (its throughput tracks and the speed floor), the data made from a seed from the OS.
PointData prepare(State& state, const Problem& problem);
// The point's backend_info "problem": the data's record and what the checks did.
// `compared`: the calls the determinism check compared (FirstOutputs::compared); recorded when
// the problem declares it.
void record(State& state, const PointData& data, std::int64_t calls_checked, double check_seconds_per_call,
            std::int64_t compared = 0);

// The fingerprint of a host buffer: what the CUDA check kernel computes of a device one.
std::uint64_t fingerprint(const void* data, std::size_t bytes, std::uint64_t key);

// The first element of `got` that does not match the masked `expected` within `tolerance`.
struct Mismatch {
  std::int64_t index = 0;
  double got = 0, want = 0;
};
std::optional<Mismatch> first_mismatch(const void* got, const void* expected_masked, const BufferSpec& spec,
                                       const Tolerance& tolerance, std::uint64_t mask_key);
// Whether every element of `got` still holds the poison byte.
bool all_poisoned(const void* got, const BufferSpec& spec, unsigned char poison);
// How many elements of `got` hold the poison byte.
std::int64_t poisoned_count(const void* got, const BufferSpec& spec, unsigned char poison);
// A set other than `set` whose expected output `o` `got` matches (a result cached from other
// inputs), or -1.
int other_set_matching(const PointData& data, int set, int o, const void* got);

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

// A device submission (CUDA or HIP) timed against a problem (include/pitot/problem.hpp; docs/untrusted.md,
// "Problems"). The harness's buffers live on the device: the input draws, the inputs a call reads,
// the outputs it writes, and a ring of copies of the outputs; the expected outputs are only in the
// point's checker process (src/core/problem_checker.hpp). Around each cold launch, outside its
// events (src/gpu/sampler.hpp, CallHooks): before it, a set chosen by the harness is copied into
// the inputs and the outputs are filled with a poison byte; after it, the outputs are copied into
// the ring and a check kernel takes the copy's fingerprint. Once the batch has finished (device
// synchronized) the outputs are fingerprinted again; each call whose fingerprint is not one the
// checker already accepted for its set has its copy read back into the memory shared with the
// checker, which compares it with the reference's; where the problem declares its submissions
// deterministic, each call's fingerprint is compared with the first one of its input set.
#include "gpu/problem.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>
#include <pitot/problem.hpp>

#include "core/backend.hpp"
#include "core/problem.hpp"
#include "core/problem_check.hpp"
#include "gpu/api.hpp"
#include "gpu/backend.hpp"
#include "gpu/error.hpp"
#include "gpu/problem_kernels.hpp"
#include "gpu/sampler.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {
namespace {

using problem::PointData;

// How long the harness waits before its last look at the outputs (work a thread queues later).
constexpr auto kSettle = std::chrono::milliseconds(20);

struct DeviceBlock {
  explicit DeviceBlock(std::size_t n) : bytes(n) { PITOT_GPU_TRY(gpuMalloc(&p, n > 0 ? n : 1)); }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;
  ~DeviceBlock() { (void)gpuFree(p); }
  void* p = nullptr;
  std::size_t bytes;
};
using Blocks = std::vector<std::unique_ptr<DeviceBlock>>;

// The outputs' copies (the ring): one per call of a batch, within this many bytes and a quarter
// of the device's free memory. Fewer fit: the calls that get one are drawn, and a call without
// one is checked only when its fingerprint is one the checker accepted.
constexpr std::size_t kRingBytes = std::size_t{1} << 30;
// The most of a point's time since its first batch the spot checks may take (problem::SpotChecks).
constexpr double kSpotShare = 0.1;

std::unique_ptr<DeviceBlock> upload(const problem::SharedBuffer& host) {
  auto d = std::make_unique<DeviceBlock>(host.bytes());
  PITOT_GPU_TRY(gpuMemcpy(d->p, host.data(), host.bytes(), gpuMemcpyHostToDevice));
  return d;
}

class ProblemHooks final : public CallHooks {
 public:
  ProblemHooks(PointData& data, std::string prefix)
      : data_(data), prefix_(std::move(prefix)), first_(data.sets()), accepted_(data.sets()) {
    const std::size_t inputs = data_.inputs().size(), outputs = data_.outputs().size();
    for (int d = 0; d < data_.draws(); ++d)
      for (std::size_t j = 0; j < inputs; ++j) draws_.push_back(upload(data_.draw_input(d, static_cast<int>(j))));
    for (const auto& spec : data_.inputs()) staged_.push_back(std::make_unique<DeviceBlock>(spec.bytes()));
    for (const auto& spec : data_.outputs()) {
      out_.push_back(std::make_unique<DeviceBlock>(spec.bytes()));
      copy_at_.push_back(copy_bytes_);
      copy_bytes_ += (spec.bytes() + 255) / 256 * 256;
    }
    for (std::size_t j = 0; j < inputs; ++j) in_views_.emplace_back(staged_[j]->p, data_.inputs()[j]);
    for (std::size_t o = 0; o < outputs; ++o) out_views_.emplace_back(out_[o]->p, data_.outputs()[o]);
    std::size_t free_bytes = 0, total_bytes = 0;
    PITOT_GPU_TRY(gpuMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t fit = std::min(kRingBytes, free_bytes / 4) / copy_bytes_;
    const auto copies = static_cast<std::int64_t>(std::clamp<std::size_t>(fit, 1, kMaxColdLaunches));
    ring_ = std::make_unique<DeviceBlock>(copy_bytes_ * static_cast<std::size_t>(copies));
    ring_copies_ = problem::RingCopies(problem::os_seed(), copies, kMaxColdLaunches);
    slots_ = std::make_unique<DeviceBlock>(sizeof(CheckSlot) * outputs * (kMaxColdLaunches + 1));
    host_slots_.resize(outputs * (kMaxColdLaunches + 1));
    int device = 0;
    PITOT_GPU_TRY(gpuGetDevice(&device));
    PITOT_GPU_TRY(gpuDeviceGetAttribute(&blocks_, gpuDevAttrMultiProcessorCount, device));
    blocks_ *= 4;
    stage(0, nullptr);  // the warm-up's first call and the sizing's reads get a set too
    PITOT_GPU_TRY(gpuDeviceSynchronize());
  }
  Buffers inputs() const { return in_views_; }
  Buffers outputs() const { return out_views_; }
  std::int64_t calls() const { return calls_; }
  std::int64_t checked() const { return checked_; }
  std::int64_t compared() const { return first_.compared(); }
  double check_seconds_per_call() const { return calls_ > 0 ? check_seconds_ / static_cast<double>(calls_) : 0; }
  double host_seconds() const override { return check_seconds_; }
  // What the checks did beyond the calls checked (backend_info "problem").
  nlohmann::json record() const {
    const std::int64_t copies = ring_copies_.copies();
    nlohmann::json r{{"output_copies_per_batch", copies},
                     {"calls_compared_on_host", compared_on_host_},
                     {"calls_not_checked", calls_ - checked_}};
    if (copies < kMaxColdLaunches)
      r["output_copies_note"] = fmt::format(
          "a copy of the outputs ({} bytes) for only {} of a batch's {} calls fits the ring (at most {} bytes, and a "
          "quarter of the device's free memory): a call without one is checked only when its outputs' fingerprint "
          "is one the checker accepted for its input set",
          copy_bytes_, copies, kMaxColdLaunches, kRingBytes);
    return r;
  }

  void before_call(gpuStream_t stream, std::int64_t k) override {
    if (k >= kMaxColdLaunches) throw std::logic_error("problem hooks: more calls in a batch than slots");
    if (k == 0) {
      PITOT_GPU_TRY(gpuMemsetAsync(slots_->p, 0, slots_->bytes, stream));
      ring_copies_.new_batch();
    }
    sets_[k] = data_.next_set();
    poisons_[k] = data_.next_poison();
    copy_of_[k] = ring_copies_.take(sets_[k], accepted_.any(sets_[k]));
    stage(sets_[k], stream);
    for (auto& o : out_) PITOT_GPU_TRY(gpuMemsetAsync(o->p, poisons_[k], o->bytes, stream));
  }
  void after_call(gpuStream_t stream, std::int64_t k) override {
    for (std::size_t o = 0; o < out_.size(); ++o) {
      const void* what = out_[o]->p;
      if (copy_of_[k] >= 0) {
        PITOT_GPU_TRY(gpuMemcpyAsync(copy(copy_of_[k], o), out_[o]->p, out_[o]->bytes, gpuMemcpyDeviceToDevice, stream));
        what = copy(copy_of_[k], o);
      }
      fingerprint(stream, what, o, poisons_[k], slot(k, o));
    }
  }
  void after_batch(gpuStream_t stream, std::int64_t launches) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (calls_ == 0) first_batch_ = t0;
    // The outputs' fingerprints once the whole device is done (--untrusted already synchronized
    // it; without, work on other streams ends here too), beside the last call's.
    PITOT_GPU_TRY(gpuDeviceSynchronize());
    for (std::size_t o = 0; o < out_.size(); ++o) fingerprint(stream, out_[o]->p, o, 0, slot(kMaxColdLaunches, o));
    PITOT_GPU_TRY(gpuStreamSynchronize(stream));
    PITOT_GPU_TRY(gpuMemcpy(host_slots_.data(), slots_->p, slots_->bytes, gpuMemcpyDeviceToHost));
    const std::int64_t before = calls_;
    calls_ += launches;
    if (launches > 0 && hash_of(kMaxColdLaunches) != hash_of(launches - 1))
      throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, "after the batch's final synchronize"));
    last_hash_ = hash_of(launches - 1);
    const std::int64_t spot = spot_check(launches);
    for (std::int64_t k = 0; k < launches; ++k) {
      const auto s0 = std::chrono::steady_clock::now();
      refuse_if_wrong(k, before + k + 1, k == spot);
      if (k == spot) spot_.spent(std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count());
      if (data_.deterministic()) refuse_if_not_first(k, before + k + 1);
    }
    check_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // After the last batch: the outputs once more, a while later.
  void final_look(gpuStream_t stream) {
    if (calls_ == 0) return;
    std::this_thread::sleep_for(kSettle);
    PITOT_GPU_TRY(gpuDeviceSynchronize());
    PITOT_GPU_TRY(gpuMemsetAsync(slots_->p, 0, slots_->bytes, stream));
    for (std::size_t o = 0; o < out_.size(); ++o) fingerprint(stream, out_[o]->p, o, 0, slot(kMaxColdLaunches, o));
    PITOT_GPU_TRY(gpuStreamSynchronize(stream));
    PITOT_GPU_TRY(gpuMemcpy(host_slots_.data(), slots_->p, slots_->bytes, gpuMemcpyDeviceToHost));
    if (hash_of(kMaxColdLaunches) != last_hash_)
      throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, "after the last call, 20 ms later"));
  }

 private:
  std::size_t slot(std::int64_t k, std::size_t o) const { return static_cast<std::size_t>(k) * out_.size() + o; }
  CheckSlot* device_slot(std::size_t i) const { return static_cast<CheckSlot*>(slots_->p) + i; }
  void* copy(std::int64_t c, std::size_t o) const {
    return static_cast<unsigned char*>(ring_->p) + static_cast<std::size_t>(c) * copy_bytes_ + copy_at_[o];
  }

  void stage(int set, gpuStream_t stream) {
    for (std::size_t j = 0; j < staged_.size(); ++j) {
      const DeviceBlock& from = *draws_[static_cast<std::size_t>(data_.draw_of(set, static_cast<int>(j))) * staged_.size() + j];
      PITOT_GPU_TRY(gpuMemcpyAsync(staged_[j]->p, from.p, from.bytes, gpuMemcpyDeviceToDevice, stream));
    }
  }

  // Queues the fingerprint of output o's bytes at `got` (and the count of `poison` in them).
  void fingerprint(gpuStream_t stream, const void* got, std::size_t o, unsigned char poison, std::size_t at) {
    const BufferSpec& spec = data_.outputs()[o];
    CheckArgs a;
    a.got = got;
    a.dtype = spec.dtype;
    a.count = spec.count;
    a.hash_key = data_.hash_key(static_cast<int>(o));
    a.poison = poison;
    PITOT_GPU_TRY(launch_check(stream, a, device_slot(at), blocks_));
  }

  std::uint64_t hash_of(std::int64_t k) const {
    std::uint64_t sum = 0;
    for (std::size_t o = 0; o < out_.size(); ++o) sum += host_slots_[slot(k, o)].hash;
    return sum;
  }

  // The batch's spot check (problem::SpotChecks): one call with a copy, drawn, or -1.
  std::int64_t spot_check(std::int64_t launches) {
    std::vector<std::int64_t> with_copy;
    for (std::int64_t k = 0; k < launches; ++k)
      if (copy_of_[k] >= 0) with_copy.push_back(k);
    return spot_.draw(with_copy, std::chrono::duration<double>(std::chrono::steady_clock::now() - first_batch_).count());
  }

  // Call k's outputs against the reference's: known right when the checker accepted the same
  // fingerprint on its set before (unless `full`: the batch's spot check); otherwise its copy read
  // back into the memory shared with the checker, which compares it in full.
  void refuse_if_wrong(std::int64_t k, std::int64_t call, bool full) {
    const std::uint64_t hash = hash_of(k);
    if (!full && accepted_.has(sets_[k], hash)) {
      ++checked_;
      return;
    }
    if (copy_of_[k] < 0) return;  // no copy of this call (the ring is short): not checked
    for (std::size_t o = 0; o < out_.size(); ++o)
      PITOT_GPU_TRY(gpuMemcpy(data_.output(static_cast<int>(o)).data(), copy(copy_of_[k], o), out_[o]->bytes,
                              gpuMemcpyDeviceToHost));
    ++compared_on_host_;
    const problem::Verdict v = data_.check(sets_[k], poisons_[k], call, true);
    if (v.hash != hash)  // the copy changed after its fingerprint: written by something else
      throw std::runtime_error(problem::changed_after_reason(prefix_, call, "when its copy was read for the checker"));
    if (!v.ok) {
      const BufferSpec& spec = data_.outputs().at(static_cast<std::size_t>(v.output));
      if (v.all_poisoned) throw std::runtime_error(problem::not_written_reason(prefix_, call, spec));
      throw std::runtime_error(
          problem::wrong_output_reason(prefix_, call, spec, v.mismatch, data_.tolerance(), v.other_set));
    }
    accepted_.add(sets_[k], hash);
    ++checked_;
  }

  // Call k's fingerprint against the first one of its set. It runs after the batch's look for a
  // deferred write (the last call's outputs against the ones after the final synchronize), so a
  // submission that defers its work is named as such when the batch's last call shows it.
  void refuse_if_not_first(std::int64_t k, std::int64_t call) {
    const std::int64_t first = first_.differs(sets_[k], call, hash_of(k));
    if (first == 0) return;
    std::int64_t unwritten = 0;
    for (std::size_t o = 0; o < out_.size(); ++o) unwritten += static_cast<std::int64_t>(host_slots_[slot(k, o)].unwritten);
    throw std::runtime_error(problem::nondeterministic_reason(prefix_, call, sets_[k], first, unwritten));
  }

  PointData& data_;
  std::string prefix_;
  Blocks draws_, staged_, out_;  // draws_: [draw][input]
  std::vector<Buffer> in_views_, out_views_;
  std::unique_ptr<DeviceBlock> ring_;   // [copy][output], copy_bytes_ each
  std::vector<std::size_t> copy_at_;    // each output's offset in a copy
  std::size_t copy_bytes_ = 0;
  problem::RingCopies ring_copies_{0, 1, 1};  // how many copies the ring holds; which calls get one
  std::unique_ptr<DeviceBlock> slots_;  // [call of the batch, then the final look][output]
  std::vector<CheckSlot> host_slots_;
  int sets_[kMaxColdLaunches + 1] = {};
  unsigned char poisons_[kMaxColdLaunches + 1] = {};
  std::int64_t copy_of_[kMaxColdLaunches + 1] = {};  // each call's copy, or -1
  int blocks_ = 1;
  std::int64_t calls_ = 0, checked_ = 0, compared_on_host_ = 0;
  std::uint64_t last_hash_ = 0;
  double check_seconds_ = 0;  // reading the checks after each batch (the device's part is in the batch)
  std::chrono::steady_clock::time_point first_batch_ = std::chrono::steady_clock::now();
  problem::SpotChecks spot_{problem::os_seed(), kSpotShare};
  problem::FirstOutputs first_;      // each set's first fingerprint (Problem::deterministic)
  problem::AcceptedOutputs accepted_;  // the fingerprints the checker accepted, per set
};

}  // namespace

void exec_problem(State& state, const DeviceOptions& options, const Problem& p, const DeviceSubmission& submit) {
  if (const DeviceBackend* b = device_backend(); b && b->unusable) {
    if (const std::string why = b->unusable(); !why.empty()) {
      state.skip(std::string("no ") + kRuntimeName + " GPU usable here: " + why);
      return;
    }
  }
  if (options.timing != Timing::Cold)
    throw UsageError("problem " + p.name + ": a submission is timed in cold mode only (each call's output is checked "
                     "between calls, outside its events); drop --timing " + std::string(name_of(options.timing)));
  select_device(options.device);
  PointData data = problem::prepare(state, p);
  ProblemHooks hooks(data, problem::prefix_for(options.untrusted));
  const Buffers in = hooks.inputs(), out = hooks.outputs();
  std::function<void(Launch&)> work = [&](Launch& l) { submit(in, out, l); };
  try {
    exec_with_hooks(state, options, std::move(work), &hooks);
    if (!state.skipped()) hooks.final_look(nullptr);
  } catch (...) {
    problem::record(state, data, hooks.checked(), hooks.check_seconds_per_call(), hooks.compared(), hooks.record());
    throw;
  }
  problem::record(state, data, hooks.checked(), hooks.check_seconds_per_call(), hooks.compared(), hooks.record());
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

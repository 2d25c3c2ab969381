// A device submission (CUDA or HIP) timed against a problem (include/pitot/problem.hpp; docs/untrusted.md,
// "Problems"). The harness's buffers live on the device: the draws, each set's expected outputs
// (masked), the inputs a call reads and the outputs it writes. Around each cold launch, outside its
// events (src/gpu/sampler.hpp, CallHooks): before it, a set chosen by the harness is copied into
// the inputs and the outputs are filled with a poison byte; after it, a check kernel takes the
// outputs' fingerprints and compares them with the reference's. Once the batch has finished
// (device synchronized) the outputs are fingerprinted again and every call's check is read; where
// the problem declares its submissions deterministic, each call's fingerprint is compared with the
// first one of its input set (kept on the host across batches).
#include "gpu/problem.hpp"

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

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

std::unique_ptr<DeviceBlock> upload(const problem::HostBlock& host) {
  auto d = std::make_unique<DeviceBlock>(host.bytes());
  PITOT_GPU_TRY(gpuMemcpy(d->p, host.data(), host.bytes(), gpuMemcpyHostToDevice));
  return d;
}

class ProblemHooks final : public CallHooks {
 public:
  ProblemHooks(PointData& data, std::string prefix) : data_(data), prefix_(std::move(prefix)), first_(data.sets()) {
    const std::size_t inputs = data_.inputs().size(), outputs = data_.outputs().size();
    for (int d = 0; d < data_.draws(); ++d)
      for (std::size_t j = 0; j < inputs; ++j) draws_.push_back(upload(data_.draw_input(d, static_cast<int>(j))));
    for (int s = 0; s < data_.sets(); ++s)
      for (std::size_t o = 0; o < outputs; ++o) expected_.push_back(upload(data_.expected(s, static_cast<int>(o))));
    for (const auto& spec : data_.inputs()) staged_.push_back(std::make_unique<DeviceBlock>(spec.bytes()));
    for (const auto& spec : data_.outputs()) out_.push_back(std::make_unique<DeviceBlock>(spec.bytes()));
    for (std::size_t j = 0; j < inputs; ++j) in_views_.emplace_back(staged_[j]->p, data_.inputs()[j]);
    for (std::size_t o = 0; o < outputs; ++o) out_views_.emplace_back(out_[o]->p, data_.outputs()[o]);
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
  std::int64_t compared() const { return first_.compared(); }
  double check_seconds_per_call() const { return calls_ > 0 ? check_seconds_ / static_cast<double>(calls_) : 0; }

  void before_call(gpuStream_t stream, std::int64_t k) override {
    if (k >= kMaxColdLaunches) throw std::logic_error("problem hooks: more calls in a batch than slots");
    if (k == 0) PITOT_GPU_TRY(gpuMemsetAsync(slots_->p, 0, slots_->bytes, stream));
    sets_[k] = data_.next_set();
    poisons_[k] = data_.next_poison();
    stage(sets_[k], stream);
    for (auto& o : out_) PITOT_GPU_TRY(gpuMemsetAsync(o->p, poisons_[k], o->bytes, stream));
  }
  void after_call(gpuStream_t stream, std::int64_t k) override {
    for (std::size_t o = 0; o < out_.size(); ++o) check(stream, o, sets_[k], poisons_[k], slot(k, o));
  }
  void after_batch(gpuStream_t stream, std::int64_t launches) override {
    const auto t0 = std::chrono::steady_clock::now();
    // The outputs' fingerprints once the whole device is done (--untrusted already synchronized
    // it; without, work on other streams ends here too), beside the last call's.
    PITOT_GPU_TRY(gpuDeviceSynchronize());
    for (std::size_t o = 0; o < out_.size(); ++o) check(stream, o, -1, 0, slot(kMaxColdLaunches, o));
    PITOT_GPU_TRY(gpuStreamSynchronize(stream));
    PITOT_GPU_TRY(gpuMemcpy(host_slots_.data(), slots_->p, slots_->bytes, gpuMemcpyDeviceToHost));
    const std::int64_t before = calls_;
    calls_ += launches;
    if (launches > 0 && hash_of(kMaxColdLaunches) != hash_of(launches - 1))
      throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, "after the batch's final synchronize"));
    last_hash_ = hash_of(launches - 1);
    for (std::int64_t k = 0; k < launches; ++k) {
      refuse_if_wrong(k, before + k + 1);
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
    for (std::size_t o = 0; o < out_.size(); ++o) check(stream, o, -1, 0, slot(kMaxColdLaunches, o));
    PITOT_GPU_TRY(gpuStreamSynchronize(stream));
    PITOT_GPU_TRY(gpuMemcpy(host_slots_.data(), slots_->p, slots_->bytes, gpuMemcpyDeviceToHost));
    if (hash_of(kMaxColdLaunches) != last_hash_)
      throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, "after the last call, 20 ms later"));
  }

 private:
  std::size_t slot(std::int64_t k, std::size_t o) const { return static_cast<std::size_t>(k) * out_.size() + o; }
  CheckSlot* device_slot(std::size_t i) const { return static_cast<CheckSlot*>(slots_->p) + i; }

  void stage(int set, gpuStream_t stream) {
    for (std::size_t j = 0; j < staged_.size(); ++j) {
      const DeviceBlock& from = *draws_[static_cast<std::size_t>(data_.draw_of(set, static_cast<int>(j))) * staged_.size() + j];
      PITOT_GPU_TRY(gpuMemcpyAsync(staged_[j]->p, from.p, from.bytes, gpuMemcpyDeviceToDevice, stream));
    }
  }

  // Queues output o's check against set `set`'s expected output (set -1: the fingerprint alone).
  void check(gpuStream_t stream, std::size_t o, int set, unsigned char poison, std::size_t at) {
    const BufferSpec& spec = data_.outputs()[o];
    const Tolerance& t = data_.tolerance();
    CheckArgs a;
    a.got = out_[o]->p;
    a.expected = set >= 0 ? expected_[static_cast<std::size_t>(set) * out_.size() + o]->p : nullptr;
    a.dtype = spec.dtype;
    a.count = spec.count;
    a.atol = t.atol;
    a.rtol = t.rtol;
    a.exact = t.exact;
    a.mask_key = data_.mask_key();
    a.hash_key = data_.hash_key(static_cast<int>(o));
    a.poison = poison;
    PITOT_GPU_TRY(launch_check(stream, a, device_slot(at), blocks_));
  }

  std::uint64_t hash_of(std::int64_t k) const {
    std::uint64_t sum = 0;
    for (std::size_t o = 0; o < out_.size(); ++o) sum += host_slots_[slot(k, o)].hash;
    return sum;
  }

  void refuse_if_wrong(std::int64_t k, std::int64_t call) const {
    for (std::size_t o = 0; o < out_.size(); ++o) {
      const CheckSlot& s = host_slots_[slot(k, o)];
      if (s.mismatches == 0) continue;
      const BufferSpec& spec = data_.outputs()[o];
      if (static_cast<std::int64_t>(s.unwritten) == spec.count)
        throw std::runtime_error(problem::not_written_reason(prefix_, call, spec));
      problem::Mismatch m;
      m.index = static_cast<std::int64_t>(first_bad_index(s.first_bad));
      m.got = dtype_bytes(spec.dtype) <= 4 ? problem::as_double(spec.dtype, s.first_bad & 0xFFFFFFFFull) : NAN;
      m.want = expected_value(sets_[k], o, m.index);
      throw std::runtime_error(problem::wrong_output_reason(prefix_, call, spec, m, data_.tolerance(), -1));
    }
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

  double expected_value(int set, std::size_t o, std::int64_t index) const {
    const BufferSpec& spec = data_.outputs()[o];
    const std::uint64_t bits = problem::load_bits(data_.expected(set, static_cast<int>(o)).data(), spec.dtype, index) ^
                               problem::mask_of(data_.mask_key(), static_cast<std::uint64_t>(index));
    return problem::as_double(spec.dtype, bits & problem::size_mask(spec.dtype));
  }

  PointData& data_;
  std::string prefix_;
  Blocks draws_, expected_, staged_, out_;  // draws_: [draw][input]; expected_: [set][output]
  std::vector<Buffer> in_views_, out_views_;
  std::unique_ptr<DeviceBlock> slots_;  // [call of the batch, then the final look][output]
  std::vector<CheckSlot> host_slots_;
  int sets_[kMaxColdLaunches + 1] = {};
  unsigned char poisons_[kMaxColdLaunches + 1] = {};
  int blocks_ = 1;
  std::int64_t calls_ = 0;
  std::uint64_t last_hash_ = 0;
  double check_seconds_ = 0;  // reading the checks after each batch (the device's part is in the batch)
  problem::FirstOutputs first_;  // each set's first fingerprint (Problem::deterministic)
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
    problem::record(state, data, hooks.calls(), hooks.check_seconds_per_call(), hooks.compared());
    throw;
  }
  problem::record(state, data, hooks.calls(), hooks.check_seconds_per_call(), hooks.compared());
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

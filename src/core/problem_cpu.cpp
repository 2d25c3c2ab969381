// A CPU submission timed against a problem (include/pitot/problem.hpp): the sampler times each call
// alone on the host clock, and between calls (outside the timed span) stages the next input set,
// poisons the outputs, fingerprints what the call wrote, and has the point's checker process
// compare it with the reference's (the outputs lie in memory shared with it; problem_checker.hpp);
// where the problem declares it, the fingerprint must equal the first call's on the same set.
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <pitot/problem.hpp>

#include "core/backend.hpp"
#include "core/problem.hpp"

namespace pitot {
namespace {

using problem::HostBlock;
using problem::PointData;
using Clock = std::chrono::steady_clock;

// How long the harness waits for an output to settle before it refuses a call (a write still
// coming tells a deferred call from a wrong one) and before its last look at the output.
constexpr auto kSettle = std::chrono::milliseconds(20);

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

class CpuProblemSampler final : public detail::Sampler {
 public:
  CpuProblemSampler(PointData& data, const CpuSubmission& submit, std::string prefix)
      : data_(data), submit_(submit), prefix_(std::move(prefix)), first_(data.sets()) {
    for (const auto& s : data_.inputs()) staged_.emplace_back(s.bytes());
    for (std::size_t o = 0; o < data_.outputs().size(); ++o) out_.push_back(data_.output(static_cast<int>(o)));
    for (std::size_t j = 0; j < staged_.size(); ++j) in_views_.emplace_back(staged_[j].data(), data_.inputs()[j]);
    for (std::size_t o = 0; o < out_.size(); ++o) out_views_.emplace_back(out_[o].data(), data_.outputs()[o]);
  }
  const char* backend() const override { return "cpu"; }
  void warmup(double warmup_seconds, double min_sample_seconds) override {
    // As the CPU sampler: a sample's timed calls last at least 100 us.
    if (min_sample_seconds <= 0) min_sample_seconds = 1e-4;
    const auto start = Clock::now();
    do {
      double t = time_calls(number_);
      while (t * static_cast<double>(number_) < min_sample_seconds && number_ < (std::int64_t{1} << 30)) {
        number_ *= 2;
        t = time_calls(number_);
      }
    } while (seconds(Clock::now() - start) < warmup_seconds);
  }
  detail::Sample sample() override {
    const double t = time_calls(number_);
    const auto l0 = Clock::now();
    look_again("at the end of its sample");  // written between the call and here
    look_seconds_ += seconds(Clock::now() - l0);
    return detail::Sample{t};
  }
  double harness_seconds() const override { return check_seconds_ + look_seconds_; }
  std::int64_t iterations_per_sample() const override { return number_; }
  void finish() override {
    std::this_thread::sleep_for(kSettle);
    look_again("after the last call, 20 ms later");
  }
  std::int64_t calls() const { return calls_; }
  std::int64_t compared() const { return first_.compared(); }
  double check_seconds_per_call() const { return calls_ > 0 ? check_seconds_ / static_cast<double>(calls_) : 0; }

 private:
  double time_calls(std::int64_t n) {
    double timed = 0;
    for (std::int64_t i = 0; i < n; ++i) timed += call();
    return timed / static_cast<double>(n);
  }

  // One call on a fresh set: staged, timed alone, then checked.
  double call() {
    const auto c0 = Clock::now();
    set_ = data_.next_set();
    poison_ = data_.next_poison();
    for (std::size_t j = 0; j < staged_.size(); ++j)
      std::memcpy(staged_[j].data(), data_.input(set_, static_cast<int>(j)).data(), staged_[j].bytes());
    for (auto& o : out_) std::memset(o.data(), poison_, o.bytes());
    const auto t0 = Clock::now();
    submit_(in_views_, out_views_);
    const auto t1 = Clock::now();
    ++calls_;
    verify();
    if (data_.deterministic()) same_as_first();
    check_seconds_ += seconds((t0 - c0) + (Clock::now() - t1));
    return seconds(t1 - t0);
  }

  std::uint64_t fingerprint() const {
    std::uint64_t sum = 0;
    for (std::size_t o = 0; o < out_.size(); ++o)
      sum += problem::fingerprint(out_[o].data(), out_[o].bytes(), data_.hash_key(static_cast<int>(o)));
    return sum;
  }

  // The call's outputs against the reference's, by the checker, while this process takes their
  // fingerprint; a mismatch is refused, as deferred work when the output still changes after it
  // returned.
  void verify() {
    const problem::Verdict v = data_.check(set_, poison_, calls_, false, [this] { hash_ = fingerprint(); });
    if (v.ok) return;
    const BufferSpec& spec = data_.outputs().at(static_cast<std::size_t>(v.output));
    std::this_thread::sleep_for(kSettle);
    if (fingerprint() != hash_) throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, "20 ms later"));
    if (v.all_poisoned) throw std::runtime_error(problem::not_written_reason(prefix_, calls_, spec));
    throw std::runtime_error(problem::wrong_output_reason(prefix_, calls_, spec, v.mismatch, data_.tolerance(), v.other_set));
  }

  // The call's outputs bit for bit against the first call's on the same set; a difference is
  // refused, as deferred work when the output still changes after the call returned.
  void same_as_first() {
    const std::int64_t first = first_.differs(set_, calls_, hash_);
    if (first == 0) return;
    std::this_thread::sleep_for(kSettle);
    if (fingerprint() != hash_) throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, "20 ms later"));
    std::int64_t unwritten = 0;
    for (std::size_t o = 0; o < out_.size(); ++o)
      unwritten += problem::poisoned_count(out_[o].data(), data_.outputs()[o], poison_);
    throw std::runtime_error(problem::nondeterministic_reason(prefix_, calls_, set_, first, unwritten));
  }

  void look_again(const char* when) const {
    if (calls_ > 0 && fingerprint() != hash_) throw std::runtime_error(problem::changed_after_reason(prefix_, calls_, when));
  }

  PointData& data_;
  const CpuSubmission& submit_;
  std::string prefix_;
  std::vector<HostBlock> staged_;
  std::vector<problem::SharedBuffer> out_;  // in the memory shared with the checker
  std::vector<Buffer> in_views_, out_views_;
  std::int64_t number_ = 1;
  std::int64_t calls_ = 0;
  double check_seconds_ = 0;  // staging, poison, fingerprint and check, summed over the calls
  double look_seconds_ = 0;   // the looks at the end of each sample
  int set_ = 0;
  unsigned char poison_ = 0;
  std::uint64_t hash_ = 0;  // the outputs' fingerprint when the last call returned
  problem::FirstOutputs first_;  // each set's first fingerprint (Problem::deterministic)
};

}  // namespace

namespace detail {

void run_problem(State& state, const Problem& p, const CpuSubmission& submit) {
  if (state.skipped()) return;
  PointData data = problem::prepare(state, p);
  CpuProblemSampler sampler(data, submit, problem::prefix_for(device_options(state).untrusted));
  try {
    run_schedule(state, sampler);
  } catch (...) {
    problem::record(state, data, sampler.calls(), sampler.check_seconds_per_call(), sampler.compared());
    throw;
  }
  problem::record(state, data, sampler.calls(), sampler.check_seconds_per_call(), sampler.compared());
}

}  // namespace detail
}  // namespace pitot

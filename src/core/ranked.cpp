// See ranked.hpp. Per sample: a barrier (outside the timed span), the sample on every rank, a
// gather of the ranks' times (the max is the sample), and rank 0's decision broadcast: another
// sample in this turn, end of the turn, or stop (with the reason). So every rank takes exactly as
// many samples as rank 0 decided and no rank's clock decides anything for the others.
#include "core/ranked.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/stats.hpp"
#include "core/tracks.hpp"
#include "ranks/ranks.hpp"

namespace pitot::detail {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Rank 0's decisions and the slowest rank's values for the sampler (its warm-up, a GPU batch's start).
class GroupAgreement final : public Agreement {
 public:
  GroupAgreement(ranks::Group& group, const std::string& point) : group_(group), label_("a step of the sampler of " + point) {}
  bool rank0(bool mine) override { return group_.broadcast(mine ? 1 : 0, label_) != 0; }
  double slowest(double mine) override { return group_.gather(mine, label_).max; }
  void release_together() override {
    if (!one_clock_) one_clock_ = ranks::one_clock(group_);  // asked once a point, on every rank alike
    (void)ranks::release_together(group_, *one_clock_, label_);
  }

 private:
  ranks::Group& group_;
  std::string label_;
  std::optional<bool> one_clock_;
};

// What rank 0 broadcasts after each sample.
enum Decision : std::int64_t { kNextSample = 0, kEndTurn, kTimeLimit, kCi, kSamples, kMaxSamples };
const char* stop_name(std::int64_t d) {
  switch (d) {
    case kTimeLimit: return "time_limit";
    case kCi: return "ci";
    case kSamples: return "samples";
    case kMaxSamples: return "max_samples";
    default: return "";
  }
}
std::int64_t stop_code(const std::string& reason) {
  if (reason == "time_limit") return kTimeLimit;
  if (reason == "ci") return kCi;
  if (reason == "samples") return kSamples;
  if (reason == "max_samples") return kMaxSamples;
  return kEndTurn;
}

// One sample on every rank; the slowest rank's time kept (a throttled rank discards it for all).
void ranked_sample(PointRun& run, Sampler& sampler, ranks::Group& group) {
  PointResult& r = run.result;
  const std::size_t k = r.samples.size() + static_cast<std::size_t>(r.discarded_samples) + 1;
  group.barrier(fmt::format("before sample {} of {}", k, run.point.name));
  const Sample s = sampler.sample();
  // A throttled sample counts as infinitely slow: the max says some rank discarded it.
  const double mine = s.throttled ? std::numeric_limits<double>::infinity() : s.seconds;
  const ranks::Spread spread = group.gather(mine, fmt::format("sample {} of {}", k, run.point.name));
  if (!std::isfinite(spread.max)) {
    ++r.discarded_samples;
    return;
  }
  r.samples.push_back(spread.max);
  run.rank_spread.fastest.push_back(spread.min);
  run.rank_spread.mean.push_back(spread.mean);
  ++run.rank_spread.slowest[static_cast<std::size_t>(spread.slowest)];
  if (!std::isnan(s.clock_ratio)) r.clock_ratios.push_back(s.clock_ratio);  // this rank's card
}

}  // namespace

void run_ranked(PointRun& run, Sampler& sampler) {
  ranks::Group& group = *run.config.group;
  const RunConfig& cfg = run.config;
  PointResult& r = run.result;
  run.rank_spread.slowest.assign(static_cast<std::size_t>(group.world_size()), 0);
  GroupAgreement agreement(group, run.point.name);
  sampler.set_agreement(&agreement);
  const DeviceBackend* backend = device_backend();
  PointRun::Phases& phases = run.phases;

  group.barrier("before the warm-up of " + run.point.name);
  const auto warmup_start = std::chrono::steady_clock::now();
  sampler.warmup(cfg.warmup_seconds, cfg.min_sample_seconds);
  phases.warmup = seconds_since(warmup_start);
  r.number = sampler.iterations_per_sample();
  if (cfg.profile) {  // one call of the work on every rank, started together
    group.barrier("before the profiled call of " + run.point.name);
    const auto t0 = std::chrono::steady_clock::now();
    if (backend && backend->profiler_start) backend->profiler_start();
    sampler.run_once();
    if (backend && backend->profiler_stop) backend->profiler_stop();
    r.samples.push_back(seconds_since(t0));
    r.stop_reason = "profile";
  } else {
    double spent = 0;  // rank 0's wall time sampling this point, over all its turns
    for (std::int64_t decision = kEndTurn; decision == kEndTurn;) {
      if (run.hooks.on_sampling_begin) run.hooks.on_sampling_begin(run.point);
      const double harness_before = sampler.harness_seconds();
      const auto turn_start = std::chrono::steady_clock::now();
      if (backend && backend->range_push) backend->range_push("pitot:" + run.point.name);
      do {
        ranked_sample(run, sampler, group);
        decision = kNextSample;
        if (group.rank() == 0) {
          const int taken = static_cast<int>(r.samples.size()) + r.discarded_samples;
          const bool full = taken >= cfg.max_samples;
          if (sampler.exhausted()) decision = kSamples;
          else if (seconds_since(turn_start) >= cfg.batch_seconds || full) {
            const std::string why = stop_reason(r.samples, spent + seconds_since(turn_start), cfg);
            decision = !why.empty() ? stop_code(why) : full ? kMaxSamples : kEndTurn;
          }
        }
        decision = group.broadcast(decision, "the decision after a sample of " + run.point.name);
      } while (decision == kNextSample);
      if (backend && backend->range_pop) backend->range_pop();
      spent += seconds_since(turn_start);
      if (run.hooks.on_sampling_end) run.hooks.on_sampling_end(run.point, sampler.harness_seconds() - harness_before);
      phases.sampling = spent;
      if (decision == kEndTurn) {
        run.yield_turn();
        run.wait_for_turn();
      } else {
        r.stop_reason = stop_name(decision);
      }
    }
  }
  sampler.set_agreement(nullptr);
  const auto finish_start = std::chrono::steady_clock::now();
  sampler.finish();
  phases.finish = seconds_since(finish_start);
  phases.timed_end = std::chrono::steady_clock::now();
}

void ranked_tracks(PointRun& run) {
  PointResult& r = run.result;
  const PointRun::RankSpread& spread = run.rank_spread;
  if (!run.ranked() || spread.fastest.empty()) return;
  const auto most = std::max_element(spread.slowest.begin(), spread.slowest.end());
  const int straggler = static_cast<int>(most - spread.slowest.begin());
  const double fastest = compute_stats(spread.fastest).median, mean = compute_stats(spread.mean).median;
  r.tracks.push_back(make_track(track::kRankFastestSeconds, fastest));
  r.tracks.push_back(make_track(track::kRankMeanSeconds, mean));
  r.tracks.push_back(make_track(track::kStragglerRank, straggler));
  r.backend_info["ranks"] = {{"world_size", run.config.group->world_size()},
                             {"sample", "the slowest rank's time"},
                             {"fastest_rank_median_seconds", fastest},
                             {"rank_mean_median_seconds", mean},
                             {"straggler", straggler},
                             {"slowest_counts", spread.slowest}};
}

}  // namespace pitot::detail

// The energy phase of a GPU point (--energy, docs/results/card-h200.md): the work back to back
// between two steps of the card's energy counter, after the samples. Shared by the CUDA and HIP
// backends as src/gpu/sampler.cpp is.
#include "gpu/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "card/watch.hpp"
#include "gpu/activity.hpp"
#include "gpu/error.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

DeviceSampler::Energy DeviceSampler::measure_energy(card::Card& card, double window_seconds) {
  Energy out;
  const auto start_mj = card.energy_millijoules();
  if (!start_mj) {
    out.problem = "the card reports no energy counter";
    return out;
  }
  // Back to within 2 C of this temperature afterwards (at most 5 s), so the next point starts on
  // a card about as warm as without the energy phase; not to the degree: near idle the last one
  // takes longer than the phase itself (docs/results/card-h200.md).
  const auto start_c = card.temperature_c();
  // The kernel clock's recording stays off here: CUPTI would slow kernels of several waves.
  if (clock_ == Clock::Kernel) activity_record(false);
  // Chunks of about 2 ms of calls, kept three deep: the card never waits for the host.
  std::vector<gpuEvent_t> events;
  struct Mark {
    std::size_t event;
    std::int64_t calls;  // launched before the event
  };
  auto new_event = [&] {
    gpuEvent_t e = nullptr;
    PITOT_GPU_TRY(gpuEventCreate(&e));
    events.push_back(e);
    return events.size() - 1;
  };
  struct DestroyEvents {
    std::vector<gpuEvent_t>& events;
    ~DestroyEvents() {
      for (auto e : events) (void)gpuEventDestroy(e);
    }
  } destroy{events};
  const std::size_t before = new_event(), after = new_event();
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
  PITOT_GPU_TRY(gpuEventRecord(events[before], stream_));
  launch_work();
  PITOT_GPU_TRY(gpuEventRecord(events[after], stream_));
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
  const double one = std::max(elapsed_seconds(events[before], events[after]), 1e-7);
  // At most 1000 calls a chunk: a microsecond kernel is host-bound back to back anyway.
  const auto chunk = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::llround(2e-3 / one)), 1, 1000);
  std::vector<Mark> queued;
  std::size_t done = 0;  // marks [0, done) have completed
  std::int64_t calls = 0;
  std::optional<Mark> first_in_window, last_in_window;
  bool in_window = false;
  auto keep_busy = [&] {
    while (done < queued.size()) {
      const gpuError_t status = gpuEventQuery(events[queued[done].event]);
      if (status == gpuErrorNotReady) break;
      PITOT_GPU_TRY(status);
      if (in_window) (first_in_window ? last_in_window : first_in_window) = queued[done];
      ++done;
    }
    while (queued.size() - done < 3) {
      for (std::int64_t i = 0; i < chunk; ++i) launch_work();
      calls += chunk;
      const std::size_t e = new_event();
      PITOT_GPU_TRY(gpuEventRecord(events[e], stream_));
      queued.push_back({e, calls});
    }
  };
  const card::Clock clock = card::steady_clock();
  // A quarter second first, so power and clocks settle at the back-to-back rate.
  for (const double settle = clock() + 0.25; clock() < settle;) keep_busy();
  const auto now_mj = card.energy_millijoules();
  const auto first = now_mj ? card::wait_for_energy_step(card, *now_mj, keep_busy, 1.0) : std::nullopt;
  std::optional<card::EnergyStep> last;
  if (first) {
    in_window = true;
    while (clock() - first->seconds < window_seconds) keep_busy();
    last = card::wait_for_energy_step(card, first->millijoules, keep_busy, 1.0);
    in_window = false;
  }
  PITOT_GPU_TRY(gpuStreamSynchronize(stream_));
  if (start_c) {
    if (const auto c = card::cool_down(card, *start_c + 2, 5.0)) out.cooled_seconds = c->waited_seconds;
  }
  if (!first || !last) {
    out.problem = "the card's energy counter did not move within a second while the work ran";
    return out;
  }
  const auto watts = card::watts_between(*first, *last);
  if (!watts) {
    out.problem = "the card's energy counter went back (the driver reloaded?)";
    return out;
  }
  if (!first_in_window || !last_in_window || last_in_window->calls <= first_in_window->calls) {
    out.problem = "too few chunks of calls completed inside the energy window";
    return out;
  }
  out.calls = last_in_window->calls - first_in_window->calls;
  out.seconds_per_call =
      elapsed_seconds(events[first_in_window->event], events[last_in_window->event]) / static_cast<double>(out.calls);
  out.watts = *watts;
  out.joules_per_call = out.watts * out.seconds_per_call;
  out.window_seconds = last->seconds - first->seconds;
  return out;
}

}  // namespace pitot::PITOT_GPU_NAMESPACE

#include "card/watch.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/stats.hpp"

namespace pitot::card {

Clock steady_clock() {
  return [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
}

PointLog::PointLog(Card& card, double every_seconds, Clock clock, std::optional<Reading>* shared)
    : card_(card), every_(every_seconds), clock_(std::move(clock)), shared_(shared) {}

void PointLog::read_now() {
  const double now = clock_();
  last_ = now;
  if (shared_ && *shared_ && now - (*shared_)->seconds < every_) {
    readings_.push_back(**shared_);
    return;
  }
  Reading r = card_.read();
  ++reads_;
  r.seconds = now;
  if (shared_) *shared_ = r;
  readings_.push_back(std::move(r));
}

void PointLog::read_if_due() {
  if (readings_.empty() || clock_() - last_ >= every_) read_now();
}

nlohmann::json PointLog::summary() const {
  nlohmann::json j = {{"source", card_.source_name()}, {"readings", readings_.size()}};
  auto spread = [&](const char* key, std::optional<double> Reading::* field) {
    std::vector<double> v;
    for (const auto& r : readings_)
      if (r.*field) v.push_back(*(r.*field));
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    j[key] = {{"min", v.front()}, {"median", quantile_sorted(v, 0.5)}, {"max", v.back()}};
  };
  spread("sm_clock_mhz", &Reading::sm_clock_mhz);
  spread("mem_clock_mhz", &Reading::mem_clock_mhz);
  spread("temperature_c", &Reading::temperature_c);
  spread("power_watts", &Reading::power_watts);
  std::uint64_t reasons = 0;
  bool any = false;
  for (const auto& r : readings_)
    if (r.reasons) {
      reasons |= *r.reasons;
      any = true;
    }
  if (any) j["clock_reasons"] = card_.reason_names(reasons);
  if (!card_.missing().empty()) j["missing"] = card_.missing();
  return j;
}

std::optional<EnergyStep> wait_for_energy_step(Card& card, std::uint64_t after, const std::function<void()>& keep_busy,
                                               double timeout_seconds, const Clock& clock) {
  const double start = clock();
  for (;;) {
    const auto mj = card.energy_millijoules();
    const double now = clock();
    if (!mj) return std::nullopt;
    if (*mj != after) return EnergyStep{*mj, now};
    if (now - start > timeout_seconds) return std::nullopt;
    if (keep_busy) keep_busy();
  }
}

std::optional<double> watts_between(const EnergyStep& first, const EnergyStep& last) {
  if (last.millijoules < first.millijoules || !(last.seconds > first.seconds)) return std::nullopt;
  return static_cast<double>(last.millijoules - first.millijoules) * 1e-3 / (last.seconds - first.seconds);
}

std::optional<CoolDown> cool_down(Card& card, double target_c, double timeout_seconds, double poll_seconds,
                                  const Clock& clock, const std::function<void(double)>& sleep) {
  const auto first = card.temperature_c();
  if (!first) return std::nullopt;
  CoolDown c;
  c.from_c = c.to_c = *first;
  const double start = clock();
  while (c.to_c > target_c) {
    if (clock() - start >= timeout_seconds) break;
    if (sleep)
      sleep(poll_seconds);
    else
      std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds));
    const auto t = card.temperature_c();
    if (!t) break;
    c.to_c = *t;
  }
  c.reached = c.to_c <= target_c;
  c.waited_seconds = clock() - start;
  return c;
}

}  // namespace pitot::card

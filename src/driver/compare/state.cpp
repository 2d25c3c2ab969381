#include "driver/compare/state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/stats.hpp"
#include "driver/compare/comparison.hpp"

namespace pitot::driver::compare {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A reading's unit for people, by kind.
const char* state_unit(const std::string& kind) { return kind == "sm_clock" ? "MHz" : "°C"; }

std::string state_value(double v, const std::string& kind) {
  return std::isfinite(v) ? fmt::format("{:.0f} {}", v, state_unit(kind)) : "-";
}

// Throttle reasons that say nothing about the state: the card idling between launches.
bool benign_reason(const std::string& reason) { return reason == "gpu_idle" || reason == "none"; }

std::vector<std::string> significant_reasons(const CardState& card) {
  std::vector<std::string> out;
  for (const auto& r : card.throttle_reasons)
    if (!benign_reason(r) && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  std::sort(out.begin(), out.end());
  return out;
}

// Each side's reading of one judged kind (sm_clock or temperature).
std::pair<double, double> readings(const Row& row, const std::string& kind) {
  const CardState &b = row.base.card, &h = row.head.card;
  if (kind == "sm_clock") return {b.sm_clock_mhz, h.sm_clock_mhz};
  return {b.temperature_c, h.temperature_c};
}

std::string count_points(int n) { return fmt::format("{} point{}", n, n == 1 ? "" : "s"); }

std::string reasons_text(const std::map<std::string, int>& reasons) {
  std::string out;
  for (const auto& [r, n] : reasons) out += (out.empty() ? "" : ", ") + fmt::format("{} at {}", r, count_points(n));
  return out;
}

}  // namespace

StateCheck check_state(const std::vector<Row>& rows) {
  StateCheck check;
  std::map<std::string, std::vector<const Row*>> by_kind;
  for (const auto& row : rows) {
    if (!row.base.card.any() || !row.head.card.any()) continue;
    ++check.judged;
    if (!row.state_differs.empty()) ++check.differing;
    for (const auto& kind : row.state_differs) by_kind[kind].push_back(&row);
  }
  for (const std::string kind : {"sm_clock", "temperature", "throttle"}) {
    auto it = by_kind.find(kind);
    if (it == by_kind.end()) continue;
    StateDifference d;
    d.kind = kind;
    d.points = static_cast<int>(it->second.size());
    if (kind == "throttle") {
      for (const Row* row : it->second) {
        const auto b = significant_reasons(row->base.card), h = significant_reasons(row->head.card);
        for (const auto& r : b)
          if (std::find(h.begin(), h.end(), r) == h.end()) ++d.base_only[r];
        for (const auto& r : h)
          if (std::find(b.begin(), b.end(), r) == b.end()) ++d.head_only[r];
        if (d.worst.size() < 3) d.worst.push_back({row->base.display, kNaN, kNaN});
      }
      d.base = d.head = kNaN;
    } else {
      std::vector<double> base, head;
      std::vector<const Row*> order = it->second;
      for (const Row* row : order) {
        const auto [b, h] = readings(*row, kind);
        base.push_back(b);
        head.push_back(h);
      }
      d.base = median(base);
      d.head = median(head);
      // Temperatures by their difference, clocks by their ratio.
      auto distance = [&](const Row* row) {
        const auto [b, h] = readings(*row, kind);
        return kind == "temperature" ? std::abs(h - b) : std::abs(std::log(h / b));
      };
      std::stable_sort(order.begin(), order.end(), [&](const Row* a, const Row* b) { return distance(a) > distance(b); });
      for (std::size_t i = 0; i < order.size() && i < 3; ++i) {
        const auto [b, h] = readings(*order[i], kind);
        d.worst.push_back({order[i]->base.display, b, h});
      }
    }
    check.differences.push_back(std::move(d));
  }
  return check;
}

std::vector<std::string> state_differences(const CardState& base, const CardState& head, const ClockShift& measured) {
  std::vector<std::string> out;
  auto both = [](double b, double h) { return std::isfinite(b) && std::isfinite(h) && b > 0 && h > 0; };
  const bool clocks_apart = std::isfinite(measured.percent)
                                ? measured.by_time()
                                : both(base.sm_clock_mhz, head.sm_clock_mhz) &&
                                      std::abs(head.sm_clock_mhz / base.sm_clock_mhz - 1) > kStateClockFraction &&
                                      std::abs(head.sm_clock_mhz - base.sm_clock_mhz) >= kStateClockStepMhz;
  if (clocks_apart) out.push_back("sm_clock");
  if (std::isfinite(base.temperature_c) && std::isfinite(head.temperature_c) &&
      std::abs(head.temperature_c - base.temperature_c) > kStateTemperatureC)
    out.push_back("temperature");
  // Power is recorded but not judged: NVML's reading is an average over about a second, longer than
  // most points sample, so it mixes in the neighbours' work (H200: 25-47% apart between the sides
  // of a no-change `pitot ab`, docs/results/card-h200.md).
  if (base.has_throttle && head.has_throttle && significant_reasons(base) != significant_reasons(head))
    out.push_back("throttle");
  return out;
}

std::vector<std::string> state_warning(const Report& r) {
  std::vector<std::string> lines;
  const StateCheck& s = r.state;
  if (s.differing == 0) return lines;
  lines.push_back(fmt::format(
      "WARNING: base and head ran in different machine states at {} of {} compared points; the ratios there "
      "may reflect the card's state, not the code:",
      s.differing, s.judged));
  for (const auto& d : s.differences) {
    std::string worst;
    for (std::size_t i = 0; i < d.worst.size() && i < 2; ++i) {
      const auto& w = d.worst[i];
      worst += (i ? ", " : "") + (d.kind == "throttle" ? w.name
                                                      : fmt::format("{} ({} -> {})", w.name, state_value(w.base, d.kind),
                                                                    state_value(w.head, d.kind)));
    }
    const std::string where = d.kind == "throttle" ? fmt::format("{}, such as {}", count_points(d.points), worst)
                                                   : fmt::format("{}; worst: {}", count_points(d.points), worst);
    if (d.kind == "sm_clock")
      lines.push_back(fmt::format("  SM clock: head ran at {} median, base at {}: {}", state_value(d.head, d.kind),
                                  state_value(d.base, d.kind), where));
    else if (d.kind == "temperature")
      lines.push_back(fmt::format("  temperature: head reached {}, base {} (highest per point): {}",
                                  state_value(d.head, d.kind), state_value(d.base, d.kind), where));
    else {
      std::vector<std::string> sides;
      if (!d.head_only.empty()) sides.push_back("head: " + reasons_text(d.head_only));
      if (!d.base_only.empty()) sides.push_back("base: " + reasons_text(d.base_only));
      std::string joined;
      for (const auto& x : sides) joined += (joined.empty() ? "" : "; ") + x;
      lines.push_back(fmt::format("  throttled on one side only ({}): {}", joined, where));
    }
  }
  lines.push_back(fmt::format(
      "  (a point differs when its SM clock medians differ by more than {:g}% and {:g} MHz (with two "
      "processes on a side: when the clocks measured over their samples are surely or more than {:g} "
      "thresholds apart), its highest temperatures by more than {:g} °C, or a clock (throttle) reason shows "
      "on one side only; `pitot ab` alternates base and head on one card)",
      kStateClockFraction * 100, kStateClockStepMhz, kClockShiftFar, kStateTemperatureC));
  return lines;
}

}  // namespace pitot::driver::compare

#include "core/settings.hpp"

#include <algorithm>
#include <charconv>
#include <array>

namespace pitot {
namespace {

template <class E, std::size_t N>
struct NameTable {
  std::array<std::pair<E, const char*>, N> rows;
  const char* name(E e) const {
    for (const auto& [value, name] : rows)
      if (value == e) return name;
    return "?";
  }
  std::optional<E> find(std::string_view text) const {
    for (const auto& [value, name] : rows)
      if (text == name) return value;
    return std::nullopt;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& row : rows) out.emplace_back(row.second);
    return out;
  }
};

constexpr NameTable<Timing, 3> kTimings{{{{Timing::Cold, "cold"}, {Timing::Hot, "hot"}, {Timing::Graph, "graph"}}}};
constexpr NameTable<GpuClock, 2> kClocks{{{{GpuClock::Kernel, "kernel"}, {GpuClock::Events, "events"}}}};

}  // namespace

const std::vector<std::string>& timing_names() {
  static const std::vector<std::string> names = kTimings.names();
  return names;
}

const std::vector<std::string>& clock_names() {
  static const std::vector<std::string> names = kClocks.names();
  return names;
}

const char* name_of(Timing timing) { return kTimings.name(timing); }
const char* name_of(GpuClock clock) { return kClocks.name(clock); }
const char* name_of(std::optional<GpuClock> clock) { return clock ? name_of(*clock) : "default"; }
std::optional<Timing> timing_from_name(std::string_view name) { return kTimings.find(name); }
std::optional<GpuClock> clock_from_name(std::string_view name) { return kClocks.find(name); }

std::string timing_env_suffix(Timing timing) {
  return timing == Timing::Cold ? std::string() : std::string("-") + name_of(timing);
}

std::string device_settings_problem(Timing timing, std::optional<GpuClock> clock) {
  if (clock == GpuClock::Kernel && timing != Timing::Cold)
    return "--clock kernel times cold launches only; hot and graph mode time with events";
  return "";
}

std::optional<std::pair<int, int>> shard_from_text(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto whole_int = [](std::string_view part) -> std::optional<int> {
    int value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || error != std::errc() || end != part.data() + part.size()) return std::nullopt;
    return value;
  };
  const auto k = whole_int(text.substr(0, slash)), n = whole_int(text.substr(slash + 1));
  if (!k || !n || *n < 1 || *k < 1 || *k > *n) return std::nullopt;
  return std::pair{*k, *n};
}

}  // namespace pitot

#include "driver/compare/render/text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "driver/compare/render.hpp"

namespace pitot::driver::compare::render {

std::string format_ratio(double r) { return std::isfinite(r) ? fmt::format("{:.3f}", r) : "-"; }

std::string format_interval(const Comparison& c) {
  if (!(c.ratio_lo > 0) || !std::isfinite(c.ratio_hi)) return c.evidence == Evidence::Values ? "(no interval)" : "(unbounded)";
  return fmt::format("[{:.3f}, {:.3f}]", c.ratio_lo, c.ratio_hi);
}

std::string format_p(double p) {
  if (p < 0) return "-";
  return p < 0.001 ? fmt::format("{:.1e}", p) : fmt::format("{:.3f}", p);
}

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

std::string format_noise(const Comparison& c) {
  if (!std::isfinite(c.noise_percent)) return "-";
  std::string source;
  switch (c.noise) {
    case NoiseSource::Processes: source = fmt::format("{}+{} processes", c.base_processes, c.head_processes); break;
    case NoiseSource::Pooled:
      source = fmt::format("{}+{} processes, pooled with {} points", c.base_processes, c.head_processes,
                           c.pooled_points);
      break;
    case NoiseSource::History: source = fmt::format("history, {} runs", c.history_runs); break;
    case NoiseSource::Prior: source = "prior"; break;
    case NoiseSource::None: return "-";
  }
  if (c.per_clock) source += ", per clock";
  return fmt::format("±{}% ({})", percent_text(c.noise_percent), source);
}

namespace {
constexpr std::size_t kShownKernels = 3;
}  // namespace

std::vector<KernelChange> shown_kernels(const Row& row) {
  return {row.kernels.begin(), row.kernels.begin() + static_cast<std::ptrdiff_t>(std::min(row.kernels.size(), kShownKernels))};
}

std::string kernel_line(const KernelChange& k) {
  if (!std::isfinite(k.base)) return fmt::format("new: {} {}", k.name, format_value(k.head, "seconds"));
  if (!std::isfinite(k.head)) return fmt::format("vanished: {} {}", k.name, format_value(k.base, "seconds"));
  return fmt::format("{} {} -> {} ({})", k.name, format_value(k.base, "seconds"), format_value(k.head, "seconds"),
                     format_ratio(k.head / k.base));
}

std::string join_environments(const Report& r) {
  std::string joined;
  for (const auto& e : r.environments) joined += (joined.empty() ? "" : ", ") + e;
  return joined;
}

std::string row_note(const Comparison& c) {
  std::string note = c.note;
  if (std::isfinite(c.noise_percent) && c.verdict != Verdict::Slower && c.verdict != Verdict::Faster &&
      std::isfinite(c.ratio) && std::abs(c.ratio - 1) * 100 <= c.noise_percent) {
    const std::string within = fmt::format("within run-to-run noise ±{}%", percent_text(c.noise_percent));
    note = note.empty() ? within : within + "; " + note;
  }
  return note;
}

std::vector<const Row*> visible_rows(const Report& r, bool only_changed) {
  std::vector<const Row*> rows;
  for (const auto& row : r.rows)
    if (!only_changed || is_change(row.comparison.verdict)) rows.push_back(&row);
  return rows;
}

std::vector<Section> sections(const Report& r) {
  return {{"Failed in head (ok in base)", &r.failed},
          {"Fixed in head (failed in base)", &r.fixed},
          {"Failing in both", &r.still_failing},
          {"New in head", &r.added},
          {"Removed in head", &r.removed},
          {"Not comparable", &r.not_comparable}};
}

std::string count_points(int n) { return fmt::format("{} point{}", n, n == 1 ? "" : "s"); }

}  // namespace pitot::driver::compare::render

namespace pitot::driver::compare {

std::string percent_text(double p) {
  // {:.2g} writes an exponent where two digits do not reach the units (99.7 rounds to 1e+02) and
  // below 0.0001: whole numbers from 99.5, and enough decimals for two digits below.
  const double a = std::abs(p);
  if (!std::isfinite(p) || a >= 99.5) return fmt::format("{:.0f}", p);
  if (a > 0 && a < 1e-4) return fmt::format("{:.{}f}", p, 1 - static_cast<int>(std::floor(std::log10(a))));
  return fmt::format("{:.2g}", p);
}

std::string format_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "-";
  if (unit == "seconds") {
    const double a = std::abs(value);
    if (a < 1e-6) return fmt::format("{:.4g} ns", value * 1e9);
    if (a < 1e-3) return fmt::format("{:.4g} µs", value * 1e6);
    if (a < 1) return fmt::format("{:.4g} ms", value * 1e3);
    return fmt::format("{:.4g} s", value);
  }
  // Throughputs: SI prefixes keep the column short (1.25M items/s).
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::abs(value) >= 1e3 && i < 5) {
    value /= 1e3;
    ++i;
  }
  return fmt::format("{:.4g}{} {}", value, prefixes[i], unit);
}

std::string summary_line(const Report& r) {
  std::string s = fmt::format("{} slower, {} faster, {} unchanged, {} inconclusive", r.count(Verdict::Slower),
                              r.count(Verdict::Faster), r.count(Verdict::Unchanged), r.count(Verdict::Inconclusive));
  std::vector<std::string> apart;
  if (!r.failed.empty()) apart.push_back(fmt::format("{} newly failed", r.failed.size()));
  if (!r.fixed.empty()) apart.push_back(fmt::format("{} fixed", r.fixed.size()));
  if (!r.still_failing.empty()) apart.push_back(fmt::format("{} failing in both", r.still_failing.size()));
  if (!r.added.empty()) apart.push_back(fmt::format("{} new", r.added.size()));
  if (!r.removed.empty()) apart.push_back(fmt::format("{} removed", r.removed.size()));
  if (!r.not_comparable.empty()) apart.push_back(fmt::format("{} not comparable", r.not_comparable.size()));
  for (const auto& a : apart) s += "; " + a;
  const double g = r.geometric_mean();
  if (std::isfinite(g)) s += fmt::format("; geometric mean of time ratios {:.3f}", g);
  return s;
}

}  // namespace pitot::driver::compare

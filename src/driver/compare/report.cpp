#include "driver/compare/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "core/stats.hpp"

namespace pitot::driver::compare {

using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_change(Verdict v) { return v == Verdict::Slower || v == Verdict::Faster; }

// Pick the strongest evidence both sides have.
Comparison compare_points(const PointData& base, const PointData& head, bool higher_is_better,
                          const MethodOptions& options, const NoiseFloor& history) {
  if (!base.samples.empty() && !head.samples.empty())
    return compare_runs({base.samples, base.process_medians}, {head.samples, head.process_medians},
                        higher_is_better, options, history);
  if (base.has_interval && head.has_interval)
    return compare_intervals(base.value, base.ci_lo, base.ci_hi, head.value, head.ci_lo, head.ci_hi,
                             higher_is_better, options);
  return compare_values(base.value, head.value);
}

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

int severity(Verdict v) {
  switch (v) {
    case Verdict::Slower: return 0;
    case Verdict::Inconclusive: return 1;
    case Verdict::Faster: return 2;
    case Verdict::Unchanged: return 3;
  }
  return 1;
}

// A percentage for people: two significant digits, never an exponent (3100, 7.6, 0.31).
std::string percent_text(double p) {
  if (std::abs(p) >= 100) return fmt::format("{:.0f}", p);
  return fmt::format("{:.2g}", p);
}

// "±2.1% (5+5 processes)": the run-to-run noise the row's interval allows for.
std::string format_noise(const Comparison& c) {
  if (!std::isfinite(c.noise_percent)) return "-";
  std::string source;
  switch (c.noise) {
    case NoiseSource::Processes: source = fmt::format("{}+{} processes", c.base_processes, c.head_processes); break;
    case NoiseSource::History: source = fmt::format("history, {} runs", c.history_runs); break;
    case NoiseSource::Prior: source = "prior"; break;
    case NoiseSource::None: return "-";
  }
  return fmt::format("±{}% ({})", percent_text(c.noise_percent), source);
}

// The kernels a changed row shows: the few that changed most (the JSON keeps them all).
constexpr std::size_t kShownKernels = 3;
std::vector<KernelChange> shown_kernels(const Row& row) {
  return {row.kernels.begin(), row.kernels.begin() + static_cast<std::ptrdiff_t>(std::min(row.kernels.size(), kShownKernels))};
}

// "gemm_kernel 120.3 µs -> 125.1 µs (1.040)", "new: cast_kernel 3.2 µs", "vanished: ...".
std::string kernel_line(const KernelChange& k) {
  if (!std::isfinite(k.base)) return fmt::format("new: {} {}", k.name, format_value(k.head, "seconds"));
  if (!std::isfinite(k.head)) return fmt::format("vanished: {} {}", k.name, format_value(k.base, "seconds"));
  return fmt::format("{} {} -> {} ({})", k.name, format_value(k.base, "seconds"), format_value(k.head, "seconds"),
                     format_ratio(k.head / k.base));
}

nlohmann::json kernels_json(const std::vector<KernelChange>& kernels) {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : kernels) out.push_back({{"name", k.name}, {"base_seconds", number(k.base)}, {"head_seconds", number(k.head)}});
  return out;
}

std::string join_environments(const Report& r) {
  std::string joined;
  for (const auto& e : r.environments) joined += (joined.empty() ? "" : ", ") + e;
  return joined;
}

// The note a row shows: why it is inconclusive, or that its change is within the noise.
std::string row_note(const Comparison& c) {
  std::string note = c.note;
  if (std::isfinite(c.noise_percent) && c.verdict != Verdict::Slower && c.verdict != Verdict::Faster &&
      std::isfinite(c.ratio) && std::abs(c.ratio - 1) * 100 <= c.noise_percent) {
    const std::string within = fmt::format("within run-to-run noise ±{}%", percent_text(c.noise_percent));
    note = note.empty() ? within : within + "; " + note;
  }
  return note;
}

std::string markdown_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '`') out += "'";
    else out += c;
  }
  return out;
}

// Terminal width of UTF-8 text: count code points, not bytes (µ, ±).
std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, std::size_t width) {
  std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::vector<const Row*> visible_rows(const Report& r, bool only_changed) {
  std::vector<const Row*> rows;
  for (const auto& row : r.rows)
    if (!only_changed || is_change(row.comparison.verdict)) rows.push_back(&row);
  return rows;
}

struct Section {
  const char* title;
  const std::vector<Listed>* items;
};

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::vector<Section> sections(const Report& r) {
  return {{"Failed in head (ok in base)", &r.failed},
          {"Fixed in head (failed in base)", &r.fixed},
          {"Failing in both", &r.still_failing},
          {"New in head", &r.added},
          {"Removed in head", &r.removed},
          {"Not comparable", &r.not_comparable}};
}

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

std::string count_points(int n) { return fmt::format("{} point{}", n, n == 1 ? "" : "s"); }

std::string reasons_text(const std::map<std::string, int>& reasons) {
  std::string out;
  for (const auto& [r, n] : reasons) out += (out.empty() ? "" : ", ") + fmt::format("{} at {}", r, count_points(n));
  return out;
}

}  // namespace

std::vector<std::string> state_differences(const CardState& base, const CardState& head) {
  std::vector<std::string> out;
  auto both = [](double b, double h) { return std::isfinite(b) && std::isfinite(h) && b > 0 && h > 0; };
  if (both(base.sm_clock_mhz, head.sm_clock_mhz) &&
      std::abs(head.sm_clock_mhz / base.sm_clock_mhz - 1) > kStateClockFraction &&
      std::abs(head.sm_clock_mhz - base.sm_clock_mhz) >= kStateClockStepMhz)
    out.push_back("sm_clock");
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
      "  (a point differs when its SM clock medians differ by more than {:g}% and {:g} MHz, its highest "
      "temperatures by more than {:g} °C, or a clock (throttle) reason shows on one side only; `pitot ab` "
      "alternates base and head on one card)",
      kStateClockFraction * 100, kStateClockStepMhz, kStateTemperatureC));
  return lines;
}

int Report::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const Row& r) { return r.comparison.verdict == v; }));
}

double Report::geometric_mean() const {
  double sum = 0;
  int n = 0;
  for (const auto& r : rows)
    if (std::isfinite(r.effect)) {
      sum += r.effect;
      ++n;
    }
  return n ? std::exp(sum / n) : kNaN;
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

std::vector<KernelChange> kernel_changes(const PointData& base, const PointData& head) {
  std::vector<KernelChange> out;
  if (base.kernels.empty() || head.kernels.empty()) return out;
  std::map<std::string, KernelChange> by_name;
  for (const auto& [name, seconds] : base.kernels) by_name[name] = {name, seconds, kNaN};
  for (const auto& [name, seconds] : head.kernels) {
    auto [it, fresh] = by_name.try_emplace(name, KernelChange{name, kNaN, seconds});
    if (!fresh) it->second.head = seconds;
  }
  for (auto& [name, k] : by_name) out.push_back(k);
  // New and vanished kernels count their whole time as the change.
  auto delta = [](const KernelChange& k) {
    return std::abs((std::isfinite(k.head) ? k.head : 0) - (std::isfinite(k.base) ? k.base : 0));
  };
  std::stable_sort(out.begin(), out.end(), [&](const KernelChange& a, const KernelChange& b) { return delta(a) > delta(b); });
  return out;
}

Report build_report(const ResultSet& base, const ResultSet& head, const MethodOptions& options) {
  Report r;
  r.base_label = base.label;
  r.head_label = head.label;
  r.options = options;
  r.history_files = head.history_files;
  r.environments = head.environments;
  std::map<std::string, const PointData*> head_by_key;
  for (const auto& p : head.points) head_by_key[p.key] = &p;
  std::size_t shared = 0;
  for (const auto& b : base.points) shared += head_by_key.count(b.key);
  if (shared == 0 && !base.points.empty() && !head.points.empty())
    throw InputError(fmt::format(
        "base and head share no point: nothing to compare (base has {} points, such as {}; "
        "head has {}, such as {}). Are they runs of the same programs?",
        base.points.size(), base.points.front().display, head.points.size(),
        head.points.front().display));
  std::map<std::string, bool> in_base;
  for (const auto& b : base.points) {
    in_base[b.key] = true;
    auto it = head_by_key.find(b.key);
    if (it == head_by_key.end()) {
      if (!b.derived) r.removed.push_back({b.display, ""});
      continue;
    }
    const PointData& h = *it->second;
    if (b.unit != h.unit)
      throw InputError(fmt::format("mismatched units for {}: {} in base ({}), {} in head ({})", b.display, b.unit,
                                   base.label, h.unit, head.label));
    const bool skipped_both = b.state == PointState::Skipped && h.state == PointState::Skipped;
    if (b.derived || h.derived) {
      if (!skipped_both) ++r.derived_tracks;
      continue;
    }
    if (skipped_both) {
      // Nothing ran on either side: no change to report, and no line for it.
      ++r.skipped_both;
      continue;
    }
    const bool base_ok = b.state == PointState::Ok, head_ok = h.state == PointState::Ok;
    if (base_ok && h.state == PointState::Failed) {
      r.failed.push_back({b.display, h.reason});
    } else if (b.state == PointState::Failed && head_ok) {
      r.fixed.push_back({b.display, b.reason});
    } else if (b.state == PointState::Failed && h.state == PointState::Failed) {
      r.still_failing.push_back({b.display, h.reason});
    } else if (!base_ok || !head_ok) {
      if (base_ok || head_ok)
        r.not_comparable.push_back(
            {b.display, fmt::format("skipped in {}: {}", base_ok ? "head" : "base", base_ok ? h.reason : b.reason)});
      else  // one side failed, the other skipped
        r.not_comparable.push_back({b.display, b.state == PointState::Failed
                                                   ? fmt::format("failed in base, skipped in head: {}", h.reason)
                                                   : fmt::format("skipped in base, failed in head: {}", h.reason)});
    } else if (!b.version.empty() && !h.version.empty() && b.version != h.version) {
      r.not_comparable.push_back({b.display, fmt::format("benchmark version changed ({} -> {})", b.version, h.version)});
    } else {
      Row row;
      row.base = b;
      row.head = h;
      row.higher_is_better = unit_higher_is_better(b.unit);
      NoiseFloor floor;
      if (auto hist = head.history.find(b.key); hist != head.history.end()) floor = history_noise(hist->second);
      row.comparison = compare_points(b, h, row.higher_is_better, options, floor);
      r.dropped += row.comparison.dropped;
      const double ratio = row.comparison.ratio;
      row.effect = (std::isfinite(ratio) && ratio > 0) ? std::log(ratio) * (row.higher_is_better ? -1 : 1) : kNaN;
      if (is_change(row.comparison.verdict)) row.kernels = kernel_changes(b, h);
      row.state_differs = state_differences(b.card, h.card);
      r.rows.push_back(std::move(row));
    }
  }
  for (const auto& h : head.points)
    if (!in_base.count(h.key) && !h.derived) r.added.push_back({h.display, h.state == PointState::Ok ? "" : h.reason});
  // By severity (slower, inconclusive, faster, unchanged), then worst first; unknown effects
  // last; ties by name so the order is stable.
  std::stable_sort(r.rows.begin(), r.rows.end(), [](const Row& a, const Row& b) {
    const int sa = severity(a.comparison.verdict), sb = severity(b.comparison.verdict);
    if (sa != sb) return sa < sb;
    const bool fa = std::isfinite(a.effect), fb = std::isfinite(b.effect);
    if (fa != fb) return fa;
    if (fa && a.effect != b.effect) return a.effect > b.effect;
    return a.base.display < b.base.display;
  });
  r.state = check_state(r.rows);
  return r;
}

int report_exit_code(const Report& report) {
  return (report.count(Verdict::Slower) > 0 || !report.failed.empty()) ? 1 : 0;
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

std::string render_table(const Report& r, bool color, bool only_changed) {
  auto paint = [&](const std::string& text, Verdict v) {
    if (!color) return text;
    const char* code = v == Verdict::Slower ? "31;1" : v == Verdict::Faster     ? "32"
                                                   : v == Verdict::Inconclusive ? "33"
                                                                                : nullptr;
    return code ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
  };
  std::string out = fmt::format("base: {}\nhead: {}\n", r.base_label, r.head_label);
  if (!r.environments.empty()) out += fmt::format("environments compared: {}\n", join_environments(r));
  out += fmt::format(
      "threshold ±{}, {} intervals of the ratio head/base per point, widened to the run-to-run "
      "noise floor (noise: its half-width and source)\n\n",
      percent(r.options.threshold), percent(r.options.confidence));
  const auto rows = visible_rows(r, only_changed);
  if (!rows.empty()) {
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"verdict", "ratio", "interval", "noise", "base", "head", "p", "benchmark"});
    for (const Row* row : rows) {
      const auto& c = row->comparison;
      cells.push_back({verdict_name(c.verdict), format_ratio(c.ratio), format_interval(c), format_noise(c),
                       format_value(row->base.value, row->base.unit), format_value(row->head.value, row->head.unit),
                       format_p(c.p_value), row->base.display});
    }
    std::vector<std::size_t> width(cells.front().size(), 0);
    for (const auto& line : cells)
      for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], display_width(line[i]));
    for (std::size_t l = 0; l < cells.size(); ++l) {
      std::string line;
      for (std::size_t i = 0; i < cells[l].size(); ++i) {
        std::string cell = i + 1 < cells[l].size() ? pad(cells[l][i], width[i] + 2) : cells[l][i];
        if (i == 0 && l > 0) cell = paint(cell, rows[l - 1]->comparison.verdict);
        line += cell;
      }
      out += line + "\n";
      if (l > 0 && rows[l - 1]->comparison.verdict != Verdict::Unchanged && !row_note(rows[l - 1]->comparison).empty())
        out += "    " + row_note(rows[l - 1]->comparison) + "\n";
      if (l > 0)
        for (const auto& k : shown_kernels(*rows[l - 1])) out += "    kernel " + kernel_line(k) + "\n";
    }
  } else if (!r.rows.empty()) {
    out += "no point changed beyond the threshold\n";
  }
  for (const auto& section : sections(r)) {
    if (section.items->empty()) continue;
    out += fmt::format("\n{}:\n", section.title);
    for (const auto& item : *section.items)
      out += "  " + item.name + (item.detail.empty() ? "" : ": " + item.detail) + "\n";
  }
  if (r.derived_tracks)
    out += fmt::format(
        "\n({} tracks follow their time points and are not compared apart: throughputs, kernel busy time, "
        "energy)\n",
        r.derived_tracks);
  if (r.skipped_both)
    out += fmt::format("\n({} skipped or not run on both sides: not listed)\n", count_points(r.skipped_both));
  if (const auto warning = state_warning(r); !warning.empty()) {
    out += "\n";
    for (std::size_t i = 0; i < warning.size(); ++i)
      out += (i == 0 && color ? fmt::format("\x1b[33;1m{}\x1b[0m", warning[i]) : warning[i]) + "\n";
  }
  const int code = report_exit_code(r);
  out += fmt::format("\n{}\n", paint(summary_line(r), code ? Verdict::Slower : Verdict::Unchanged));
  return out;
}

std::string render_markdown(const Report& r, bool only_changed, std::size_t limit) {
  auto marker = [](Verdict v) -> std::string {
    switch (v) {
      case Verdict::Slower: return "🔴 **slower**";
      case Verdict::Faster: return "🟢 faster";
      case Verdict::Unchanged: return "⚪ unchanged";
      case Verdict::Inconclusive: return "🟡 inconclusive";
    }
    return "";
  };
  const int code = report_exit_code(r);
  std::string out = fmt::format("### pitot compare: {}\n\n", code ? "regression found" : "no confirmed regression");
  out += fmt::format("**{}**\n\n", summary_line(r));
  if (const auto warning = state_warning(r); !warning.empty()) {
    // One quoted block: the heading, then a line a difference.
    out += fmt::format("> ⚠️ **{}**\n", markdown_escape(warning[0].substr(std::string("WARNING: ").size())));
    for (std::size_t i = 1; i < warning.size(); ++i) {
      std::string l = warning[i].substr(2);
      if (i + 1 == warning.size()) out += fmt::format(">\n> *{}*\n", markdown_escape(l.substr(1, l.size() - 2)));
      else out += fmt::format("> - {}\n", markdown_escape(l));
    }
    out += "\n";
  }
  out += fmt::format(
      "Base `{}`, head `{}`. A verdict needs the whole {} interval of the ratio head/base "
      "beyond ±{}; each interval is at least as wide as the point's run-to-run noise "
      "(*noise*: from the spread of its process medians, its history in the database, or the "
      "prior for one process a side). A change within it is within run-to-run noise.\n\n",
      markdown_escape(r.base_label), markdown_escape(r.head_label), percent(r.options.confidence),
      percent(r.options.threshold));
  if (!r.environments.empty())
    out += fmt::format("Environments compared, each with its counterpart: {}.\n\n",
                       markdown_escape(join_environments(r)));
  const std::string header =
      "| verdict | benchmark | ratio | interval | noise | base | head | note |\n"
      "|---|---|---:|---|---|---:|---:|---|\n";
  auto line = [&](const Row* row) {
    const auto& c = row->comparison;
    std::string note = row_note(c);
    for (const auto& k : shown_kernels(*row)) note += (note.empty() ? "" : "; ") + std::string("kernel ") + kernel_line(k);
    return fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", marker(c.verdict),
                       markdown_escape(row->base.display), format_ratio(c.ratio), format_interval(c),
                       format_noise(c), format_value(row->base.value, row->base.unit),
                       format_value(row->head.value, row->head.unit), markdown_escape(note));
  };
  // Severity order: newly failing, slower, inconclusive, faster, unchanged. The first two are
  // always shown in full; the rest while they fit.
  std::vector<const Row*> slower, inconclusive, faster, unchanged;
  for (const auto& row : r.rows) {
    if (only_changed && !is_change(row.comparison.verdict)) continue;
    switch (row.comparison.verdict) {
      case Verdict::Slower: slower.push_back(&row); break;
      case Verdict::Inconclusive: inconclusive.push_back(&row); break;
      case Verdict::Faster: faster.push_back(&row); break;
      case Verdict::Unchanged: unchanged.push_back(&row); break;
    }
  }
  int left_out_slower = 0;
  if (!r.failed.empty()) {
    out += "**Failed in head (ok in base)**\n\n";
    for (const auto& item : r.failed)
      out += fmt::format("- `{}`{}\n", markdown_escape(item.name),
                         item.detail.empty() ? "" : ": " + markdown_escape(item.detail.substr(0, 300)));
    out += "\n";
  }
  // What may be left out, and the room it may take: the trailer that counts it needs some.
  constexpr std::size_t kTrailer = 400;
  if (!slower.empty()) {
    // Every slower row, in full when they fit; else without notes; else one short line each.
    std::string full = header, compact = header, terse;
    for (const Row* row : slower) {
      full += line(row);
      const auto& c = row->comparison;
      compact += fmt::format("| {} | `{}` | {} | {} | {} | | | |\n", marker(c.verdict),
                             markdown_escape(row->base.display), format_ratio(c.ratio), format_interval(c),
                             format_noise(c));
      terse += fmt::format("- `{}` {}\n", markdown_escape(row->base.display), format_ratio(c.ratio));
    }
    const std::size_t room = limit > out.size() + kTrailer ? limit - out.size() - kTrailer : 0;
    if (full.size() + 1 <= room) out += full + "\n";
    else if (compact.size() + 1 <= room) out += compact + "\n";
    else if (terse.size() + 40 <= room) out += "**Slower** (ratio head/base)\n\n" + terse + "\n";
    else {
      // More slower points than a comment can hold at all: as many as fit, and the count.
      std::size_t shown = 0;
      std::string part;
      for (const Row* row : slower) {
        std::string l = fmt::format("- `{}` {}\n", markdown_escape(row->base.display), format_ratio(row->comparison.ratio));
        if (part.size() + l.size() + 40 > room) break;
        part += l;
        ++shown;
      }
      out += "**Slower** (ratio head/base)\n\n" + part + "\n";
      left_out_slower = static_cast<int>(slower.size() - shown);
    }
  }
  std::map<std::string, int> left_out;
  if (left_out_slower) left_out["slower (more than one comment can hold)"] = left_out_slower;
  auto fits = [&](const std::string& more) { return out.size() + more.size() + kTrailer <= limit; };
  auto add_rows = [&](const std::vector<const Row*>& rows, const char* what, bool folded) {
    if (rows.empty()) return;
    std::string block = folded ? fmt::format("<details><summary>{} {}</summary>\n\n", rows.size(), what) : "";
    block += header;
    std::size_t shown = 0;
    for (const Row* row : rows) {
      std::string l = line(row);
      if (!fits(block + l + "\n</details>\n\n")) break;
      block += l;
      ++shown;
    }
    if (shown == 0) {
      left_out[what] += static_cast<int>(rows.size());
      return;
    }
    if (shown < rows.size()) left_out[what] += static_cast<int>(rows.size() - shown);
    out += block + (folded ? "\n</details>\n\n" : "\n");
  };
  add_rows(inconclusive, "inconclusive", false);
  add_rows(faster, "faster", false);
  add_rows(unchanged, "unchanged", true);
  for (const auto& section : sections(r)) {
    if (section.items->empty() || section.items == &r.failed) continue;
    std::string block = fmt::format("**{}**\n\n", section.title);
    std::size_t shown = 0;
    for (const auto& item : *section.items) {
      std::string l = fmt::format("- `{}`{}\n", markdown_escape(item.name),
                                  item.detail.empty() ? "" : ": " + markdown_escape(item.detail.substr(0, 300)));
      if (!fits(block + l)) break;
      block += l;
      ++shown;
    }
    if (shown < section.items->size()) left_out[lower_first(section.title)] += static_cast<int>(section.items->size() - shown);
    if (shown > 0) out += block + "\n";
  }
  if (!left_out.empty()) {
    int total = 0;
    std::vector<std::string> parts;
    for (const auto& [what, n] : left_out) {
      total += n;
      parts.push_back(fmt::format("{} {}", n, what));
    }
    std::string joined;
    for (std::size_t i = 0; i < parts.size(); ++i) joined += (i ? ", " : "") + parts[i];
    out += fmt::format(
        "*{} rows left out to stay under GitHub's comment limit ({}){}. The full report: "
        "`pitot compare --json`, or the job log.*\n",
        total, joined, left_out_slower ? "" : "; every slower and newly failing point is above");
  }
  return out;
}

namespace {

json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json card_json(const CardState& card) {
  if (!card.any()) return nullptr;
  return {{"sm_clock_mhz", finite_or_null(card.sm_clock_mhz)},
          {"mem_clock_mhz", finite_or_null(card.mem_clock_mhz)},
          {"temperature_c", finite_or_null(card.temperature_c)},
          {"power_watts", finite_or_null(card.power_watts)},
          {"clock_reasons", card.has_throttle ? json(card.throttle_reasons) : json(nullptr)}};
}

json state_json(const Report& r) {
  json differences = json::array();
  for (const auto& d : r.state.differences) {
    json worst = json::array();
    for (const auto& w : d.worst) {
      json one = {{"name", w.name}};
      if (d.kind != "throttle") {
        one["base"] = finite_or_null(w.base);
        one["head"] = finite_or_null(w.head);
      }
      worst.push_back(one);
    }
    json entry = {{"kind", d.kind}, {"points", d.points}, {"worst", worst}};
    if (d.kind == "throttle") {
      entry["base_only"] = d.base_only;
      entry["head_only"] = d.head_only;
    } else {
      entry["unit"] = d.kind == "sm_clock" ? "MHz" : d.kind == "temperature" ? "degC" : "W";
      entry["base"] = finite_or_null(d.base);
      entry["head"] = finite_or_null(d.head);
    }
    differences.push_back(entry);
  }
  return {{"judged", r.state.judged},
          {"differing", r.state.differing},
          {"thresholds",
           {{"sm_clock_fraction", kStateClockFraction},
            {"sm_clock_mhz", kStateClockStepMhz},
            {"temperature_c", kStateTemperatureC}}},
          {"differences", differences},
          {"warning", state_warning(r)}};
}

}  // namespace

json render_json(const Report& r, bool only_changed) {
  auto number = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json points = json::array();
  for (const Row* row : visible_rows(r, only_changed)) {
    const auto& c = row->comparison;
    json params = json::object();
    for (const auto& [name, repr] : row->base.params) params[name] = repr;
    points.push_back({{"name", row->base.display},
                      {"key", row->base.key},
                      {"benchmark", row->base.benchmark},
                      {"params", params},
                      {"unit", row->base.unit},
                      {"better", row->higher_is_better ? "higher" : "lower"},
                      {"verdict", verdict_name(c.verdict)},
                      {"evidence", evidence_name(c.evidence)},
                      {"ratio", number(c.ratio)},
                      {"ratio_lo", number(c.ratio_lo > 0 ? c.ratio_lo : kNaN)},
                      {"ratio_hi", number(c.ratio_hi)},
                      {"p_value", c.p_value < 0 ? json(nullptr) : json(c.p_value)},
                      {"noise",
                       {{"source", noise_source_name(c.noise)},
                        {"percent", number(c.noise_percent)},
                        {"history_runs", c.history_runs}}},
                      {"dropped", c.dropped},
                      {"base",
                       {{"value", number(row->base.value)},
                        {"samples", row->base.samples.size()},
                        {"processes", c.base_processes}}},
                      {"head",
                       {{"value", number(row->head.value)},
                        {"samples", row->head.samples.size()},
                        {"processes", c.head_processes}}},
                      {"note", row_note(c)},
                      {"kernels", kernels_json(row->kernels)},
                      {"machine_state",
                       {{"base", card_json(row->base.card)},
                        {"head", card_json(row->head.card)},
                        {"differs", row->state_differs}}}});
  }
  auto listed = [](const std::vector<Listed>& items) {
    json list = json::array();
    for (const auto& i : items) list.push_back({{"name", i.name}, {"detail", i.detail}});
    return list;
  };
  json summary = {{"slower", r.count(Verdict::Slower)},
                  {"faster", r.count(Verdict::Faster)},
                  {"unchanged", r.count(Verdict::Unchanged)},
                  {"inconclusive", r.count(Verdict::Inconclusive)},
                  {"failed", r.failed.size()},
                  {"fixed", r.fixed.size()},
                  {"still_failing", r.still_failing.size()},
                  {"new", r.added.size()},
                  {"removed", r.removed.size()},
                  {"not_comparable", r.not_comparable.size()},
                  {"derived_tracks", r.derived_tracks},
                  {"skipped_both", r.skipped_both},
                  {"state_differs", r.state.differing},
                  {"dropped", r.dropped},
                  {"geometric_mean", number(r.geometric_mean())},
                  {"exit_code", report_exit_code(r)}};
  return {{"schema_version", kJsonSchemaVersion},
          {"base", r.base_label},
          {"head", r.head_label},
          {"threshold", r.options.threshold},
          {"noise_prior", r.options.noise_prior},
          {"history_files", r.history_files},
          {"environments", r.environments},
          {"confidence", r.options.confidence},
          {"summary", summary},
          {"machine_state", state_json(r)},
          {"points", points},
          {"failed", listed(r.failed)},
          {"fixed", listed(r.fixed)},
          {"still_failing", listed(r.still_failing)},
          {"new", listed(r.added)},
          {"removed", listed(r.removed)},
          {"not_comparable", listed(r.not_comparable)}};
}

}  // namespace pitot::driver::compare

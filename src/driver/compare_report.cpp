#include "driver/compare_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace pitot::compare {

using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_change(Verdict v) { return v == Verdict::Slower || v == Verdict::Faster; }

// Pick the strongest evidence both sides have.
Comparison compare_points(const PointData& base, const PointData& head, bool higher_is_better,
                          const MethodOptions& options) {
  if (!base.samples.empty() && !head.samples.empty())
    return compare_samples(base.samples, head.samples, higher_is_better, options);
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

std::vector<Section> sections(const Report& r) {
  return {{"Failed in head (ok in base)", &r.failed},
          {"Fixed in head (failed in base)", &r.fixed},
          {"Failing in both", &r.still_failing},
          {"New in head", &r.added},
          {"Removed in head", &r.removed},
          {"Not comparable", &r.not_comparable}};
}

}  // namespace

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

Report build_report(const ResultSet& base, const ResultSet& head, const MethodOptions& options) {
  Report r;
  r.base_label = base.label;
  r.head_label = head.label;
  r.options = options;
  std::map<std::string, const PointData*> head_by_key;
  for (const auto& p : head.points) head_by_key[p.key] = &p;
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
    if (b.derived || h.derived) {
      ++r.derived_tracks;
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
      const char* where = base_ok ? "head" : head_ok ? "base" : "both";
      r.not_comparable.push_back({b.display, fmt::format("skipped in {}: {}", where, base_ok ? h.reason : b.reason)});
    } else if (!b.version.empty() && !h.version.empty() && b.version != h.version) {
      r.not_comparable.push_back({b.display, fmt::format("benchmark version changed ({} -> {})", b.version, h.version)});
    } else {
      Row row;
      row.base = b;
      row.head = h;
      row.higher_is_better = unit_higher_is_better(b.unit);
      row.comparison = compare_points(b, h, row.higher_is_better, options);
      const double ratio = row.comparison.ratio;
      row.effect = (std::isfinite(ratio) && ratio > 0) ? std::log(ratio) * (row.higher_is_better ? -1 : 1) : kNaN;
      r.rows.push_back(std::move(row));
    }
  }
  for (const auto& h : head.points)
    if (!in_base.count(h.key) && !h.derived) r.added.push_back({h.display, h.state == PointState::Ok ? "" : h.reason});
  // Worst first; unknown effects last; ties by name so the order is stable.
  std::stable_sort(r.rows.begin(), r.rows.end(), [](const Row& a, const Row& b) {
    const bool fa = std::isfinite(a.effect), fb = std::isfinite(b.effect);
    if (fa != fb) return fa;
    if (fa && a.effect != b.effect) return a.effect > b.effect;
    return a.base.display < b.base.display;
  });
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
    const char* code = v == Verdict::Slower ? "31;1" : v == Verdict::Faster ? "32" : v == Verdict::Inconclusive ? "33" : nullptr;
    return code ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
  };
  std::string out = fmt::format("base: {}\nhead: {}\n", r.base_label, r.head_label);
  out += fmt::format("threshold ±{}, {} intervals of the ratio head/base per point\n\n", percent(r.options.threshold),
                     percent(r.options.confidence));
  const auto rows = visible_rows(r, only_changed);
  if (!rows.empty()) {
    std::vector<std::vector<std::string>> cells;
    cells.push_back({"verdict", "ratio", "interval", "base", "head", "p", "benchmark"});
    for (const Row* row : rows) {
      const auto& c = row->comparison;
      cells.push_back({verdict_name(c.verdict), format_ratio(c.ratio), format_interval(c),
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
      if (l > 0 && rows[l - 1]->comparison.verdict != Verdict::Unchanged && !rows[l - 1]->comparison.note.empty())
        out += "    " + rows[l - 1]->comparison.note + "\n";
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
    out += fmt::format("\n({} throughput tracks follow their time points and are not compared apart)\n", r.derived_tracks);
  const int code = report_exit_code(r);
  out += fmt::format("\n{}\n", paint(summary_line(r), code ? Verdict::Slower : Verdict::Unchanged));
  return out;
}

std::string render_markdown(const Report& r, bool only_changed) {
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
  out += fmt::format("Base `{}`, head `{}`. A verdict needs the whole {} interval of the ratio head/base "
                     "beyond ±{}.\n\n",
                     markdown_escape(r.base_label), markdown_escape(r.head_label), percent(r.options.confidence),
                     percent(r.options.threshold));
  auto table = [&](const std::vector<const Row*>& rows) {
    std::string t = "| verdict | benchmark | ratio | interval | base | head | p | note |\n"
                    "|---|---|---:|---|---:|---:|---:|---|\n";
    for (const Row* row : rows) {
      const auto& c = row->comparison;
      t += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", marker(c.verdict), markdown_escape(row->base.display),
                       format_ratio(c.ratio), format_interval(c), format_value(row->base.value, row->base.unit),
                       format_value(row->head.value, row->head.unit), format_p(c.p_value),
                       c.verdict == Verdict::Unchanged ? "" : markdown_escape(c.note));
    }
    return t;
  };
  std::vector<const Row*> shown, unchanged;
  for (const auto& row : r.rows) {
    if (only_changed && !is_change(row.comparison.verdict)) continue;
    (row.comparison.verdict == Verdict::Unchanged ? unchanged : shown).push_back(&row);
  }
  if (!shown.empty()) out += table(shown) + "\n";
  if (!unchanged.empty())
    out += fmt::format("<details><summary>{} unchanged</summary>\n\n{}\n</details>\n\n", unchanged.size(), table(unchanged));
  for (const auto& section : sections(r)) {
    if (section.items->empty()) continue;
    out += fmt::format("**{}**\n\n", section.title);
    for (const auto& item : *section.items)
      out += fmt::format("- `{}`{}\n", markdown_escape(item.name), item.detail.empty() ? "" : ": " + markdown_escape(item.detail));
    out += "\n";
  }
  return out;
}

json render_json(const Report& r, bool only_changed) {
  auto number = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json points = json::array();
  for (const Row* row : visible_rows(r, only_changed)) {
    const auto& c = row->comparison;
    points.push_back({{"name", row->base.display},
                      {"unit", row->base.unit},
                      {"better", row->higher_is_better ? "higher" : "lower"},
                      {"verdict", verdict_name(c.verdict)},
                      {"evidence", evidence_name(c.evidence)},
                      {"ratio", number(c.ratio)},
                      {"ratio_lo", number(c.ratio_lo > 0 ? c.ratio_lo : kNaN)},
                      {"ratio_hi", number(c.ratio_hi)},
                      {"p_value", c.p_value < 0 ? json(nullptr) : json(c.p_value)},
                      {"base", {{"value", number(row->base.value)}, {"samples", row->base.samples.size()}}},
                      {"head", {{"value", number(row->head.value)}, {"samples", row->head.samples.size()}}},
                      {"note", c.note}});
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
                  {"geometric_mean", number(r.geometric_mean())},
                  {"exit_code", report_exit_code(r)}};
  return {{"base", r.base_label},
          {"head", r.head_label},
          {"threshold", r.options.threshold},
          {"confidence", r.options.confidence},
          {"summary", summary},
          {"points", points},
          {"failed", listed(r.failed)},
          {"fixed", listed(r.fixed)},
          {"still_failing", listed(r.still_failing)},
          {"new", listed(r.added)},
          {"removed", listed(r.removed)},
          {"not_comparable", listed(r.not_comparable)}};
}

}  // namespace pitot::compare

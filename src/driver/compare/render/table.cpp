#include <algorithm>

#include <fmt/format.h>

#include "driver/compare/render.hpp"
#include "driver/compare/render/text.hpp"

namespace pitot::driver::compare {

using namespace render;

namespace {

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

}  // namespace

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

}  // namespace pitot::driver::compare

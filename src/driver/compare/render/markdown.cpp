#include <map>

#include <fmt/format.h>

#include "driver/compare/render.hpp"
#include "driver/compare/render/text.hpp"

namespace pitot::driver::compare {

using namespace render;

namespace {

std::string markdown_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '`') out += "'";
    else out += c;
  }
  return out;
}

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string marker(Verdict v) {
  switch (v) {
    case Verdict::Slower: return "🔴 **slower**";
    case Verdict::Faster: return "🟢 faster";
    case Verdict::Unchanged: return "⚪ unchanged";
    case Verdict::Inconclusive: return "🟡 inconclusive";
  }
  return "";
}

const std::string kHeader =
    "| verdict | benchmark | ratio | interval | noise | base | head | note |\n"
    "|---|---|---:|---|---|---:|---:|---|\n";

std::string row_line(const Row* row) {
  const auto& c = row->comparison;
  std::string note = row_note(c);
  for (const auto& k : shown_kernels(*row)) note += (note.empty() ? "" : "; ") + std::string("kernel ") + kernel_line(k);
  return fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", marker(c.verdict),
                     markdown_escape(row->base.display), format_ratio(c.ratio), format_interval(c),
                     format_noise(c), format_value(row->base.value, row->base.unit),
                     format_value(row->head.value, row->head.unit), markdown_escape(note));
}

// What may be left out, and the room it may take: the trailer that counts it needs some.
constexpr std::size_t kTrailer = 400;

std::string heading(const Report& r) {
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
  return out;
}

// Every slower row, in full when they fit; else without notes; else one short line each. Returns
// how many were left out (more than a comment can hold at all).
int add_slower(std::string& out, const std::vector<const Row*>& slower, std::size_t limit) {
  if (slower.empty()) return 0;
  std::string full = kHeader, compact = kHeader, terse;
  for (const Row* row : slower) {
    full += row_line(row);
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
    return static_cast<int>(slower.size() - shown);
  }
  return 0;
}

}  // namespace

std::string render_markdown(const Report& r, bool only_changed, std::size_t limit) {
  std::string out = heading(r);
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
  if (!r.failed.empty()) {
    out += "**Failed in head (ok in base)**\n\n";
    for (const auto& item : r.failed)
      out += fmt::format("- `{}`{}\n", markdown_escape(item.name),
                         item.detail.empty() ? "" : ": " + markdown_escape(item.detail.substr(0, 300)));
    out += "\n";
  }
  const int left_out_slower = add_slower(out, slower, limit);
  std::map<std::string, int> left_out;
  if (left_out_slower) left_out["slower (more than one comment can hold)"] = left_out_slower;
  auto fits = [&](const std::string& more) { return out.size() + more.size() + kTrailer <= limit; };
  auto add_rows = [&](const std::vector<const Row*>& rows, const char* what, bool folded) {
    if (rows.empty()) return;
    std::string block = folded ? fmt::format("<details><summary>{} {}</summary>\n\n", rows.size(), what) : "";
    block += kHeader;
    std::size_t shown = 0;
    for (const Row* row : rows) {
      std::string l = row_line(row);
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

}  // namespace pitot::driver::compare

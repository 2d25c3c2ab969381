#include "driver/compare/compare.hpp"

#include <cstdlib>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "asv/config.hpp"
#include "driver/common/files.hpp"
#include "driver/compare/sources.hpp"

namespace pitot::driver::compare {

namespace fs = std::filesystem;

namespace {

// Like `pitot run`: --results-dir, else the config's results_dir, else ./asv-results. Revisions
// such as main or HEAD~1 are resolved in the config's repository.
DatabaseQuery database_query(const CompareOptions& o) {
  DatabaseQuery q{o.results_dir, o.machine, o.env, {}};
  // The same asv.conf.json `pitot run` finds (asv/config.hpp).
  const std::optional<AsvConfig> config = find_asv_config(o.config.string());
  if (config) q.repo = config->repo;
  if (q.results_dir.empty()) q.results_dir = config ? config->results_dir : fs::path("asv-results");
  return q;
}

}  // namespace

double parse_threshold(const std::string& text) {
  std::string s = text;
  const bool is_percent = !s.empty() && s.back() == '%';
  if (is_percent) s.pop_back();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(v >= 0))
    throw InputError(fmt::format("--threshold {}: expected a percentage like 2% or a fraction like 0.02", text));
  if (!is_percent && v >= 1)
    throw InputError(fmt::format("--threshold {}: write {}% for a percentage, or a fraction below 1", text, text));
  return is_percent ? v / 100 : v;
}

void check_confidence(const MethodOptions& method) {
  if (!(method.confidence > 0.5 && method.confidence < 1))
    throw InputError(fmt::format("--confidence {}: expected a level between 0.5 and 1, like 0.999", method.confidence));
}

Report compare_pitot(const PitotSide& base, const PitotSide& head, const MethodOptions& method) {
  return build_report(pitot_result_set(base.benchmarks, base.points, base.label),
                      pitot_result_set(head.benchmarks, head.points, head.label), method);
}

std::string report_text(const Report& report, Format format, const fs::path& output, bool color, bool only_changed) {
  std::string text;
  switch (format) {
    case Format::Table: text = render_table(report, color && output.empty(), only_changed); break;
    case Format::Markdown: text = render_markdown(report, only_changed); break;
    case Format::Json: text = render_json(report, only_changed).dump(2) + "\n"; break;
  }
  if (output.empty()) return text;
  replace_file(output, text);
  // The file is for tools and comments; the log still shows the table.
  text = format == Format::Table ? "" : render_table(report, color, only_changed);
  return text + fmt::format("report written to {}\n", output.string());
}

int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err, bool out_is_terminal) {
  try {
    check_confidence(options.method);
    if (options.method.min_samples < 2) throw InputError("--min-samples must be at least 2");
    if (!(options.method.noise_prior >= 0 && options.method.noise_prior < 1))
      throw InputError("--noise-prior: expected a percentage like 2%, or 0 to turn the prior off");
    const DatabaseQuery query = database_query(options);
    const auto [base, head] = load_sides(options.base, options.head, query, options.history);
    const Report report = build_report(base, head, options.method);
    const char* no_color = std::getenv("NO_COLOR");
    const bool color = options.color == Color::Always ||
                       (options.color == Color::Auto && out_is_terminal && !(no_color && *no_color));
    out << report_text(report, options.format, options.output, color, options.only_changed);
    out.flush();
    return report_exit_code(report);
  } catch (const InputError& e) {
    err << "pitot compare: " << e.what() << "\n";
    return 2;
  } catch (const AsvError& e) {  // asv.conf.json unreadable (asv/config.hpp)
    err << "pitot compare: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace pitot::driver::compare

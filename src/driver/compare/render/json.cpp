#include <cmath>
#include <limits>

#include "driver/compare/render.hpp"
#include "driver/compare/render/text.hpp"

namespace pitot::driver::compare {

using nlohmann::json;
using namespace render;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json kernels_json(const std::vector<KernelChange>& kernels) {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : kernels) out.push_back({{"name", k.name}, {"base_seconds", number(k.base)}, {"head_seconds", number(k.head)}});
  return out;
}

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
                        {"history_runs", c.history_runs},
                        {"pooled_points", c.pooled_points},
                        {"prior_df", c.prior_df},
                        {"per_clock", c.per_clock},
                        {"clock_shift_percent", number(c.clock_shift_percent)},
                        {"clock_elasticity", number(c.clock_elasticity)}}},
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
          {"per_clock", r.options.per_clock},
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

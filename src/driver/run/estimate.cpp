// What a run will cost (run/estimate.hpp).
#include "driver/run/estimate.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "core/engine.hpp"

namespace pitot::driver::run {

Estimate& Estimate::operator+=(const Estimate& o) {
  points += o.points;
  processes += o.processes;
  known_points += o.known_points;
  known_processes += o.known_processes;
  seconds += o.seconds;
  point_bound = std::max(point_bound, o.point_bound);
  return *this;
}

std::string Estimate::source() const {
  const std::string bound = fmt::format("warm-up + --max-time = {:g} s a point, {:g} s a process start",
                                        point_bound, kDefaultProcessSeconds);
  if (known_points == points && known_processes == processes) return "from the last run of the same programs";
  if (known_points == 0 && known_processes == 0)
    return fmt::format("no earlier run of these programs at these settings: a floor from the knobs ({}), not history: "
                       "setup comes on top (the bundled suite on an H200 took 1.8x this)",
                       bound);
  return fmt::format("{} of {} points from the last run of the same programs, the others a floor from the knobs ({})",
                     known_points, points, bound);
}

double knob_seconds(const RunOptions& o, const std::string& flag) {
  if (auto it = o.passthrough.find(flag); it != o.passthrough.end()) {
    try {
      return std::stod(it->second);
    } catch (const std::exception&) {
      // checked when parsed (knob_check): cannot happen; fall back to the default
    }
  }
  const RunConfig defaults;
  return flag == "--warmup" ? defaults.warmup_seconds : defaults.max_seconds;
}

Estimate estimate_round(const CostBook& book, const std::string& knobs, const Work& work, const RunOptions& o) {
  Estimate e;
  // A point samples at most --max-time after its warm-up; its setup is not known before a run and
  // comes on top (at ab's lean limits on an H200: 0.13 s a GEMM point, 0.26 s an attention point).
  e.point_bound = knob_seconds(o, "--warmup") + knob_seconds(o, "--max-time");
  for (const auto& [program, points] : work) {
    if (points.empty()) continue;
    const ProgramCost* cost = book.find(*program, knobs);
    ++e.processes;
    if (cost) ++e.known_processes;
    e.seconds += cost ? cost->process_seconds : kDefaultProcessSeconds;
    for (const PlannedPoint* p : points) {
      ++e.points;
      const auto it = cost ? cost->points.find(p->name) : std::map<std::string, double>::const_iterator{};
      const bool known = cost && it != cost->points.end();
      e.known_points += known ? 1 : 0;
      e.seconds += known ? it->second : e.point_bound;
    }
  }
  return e;
}

void say_run_estimate(const RunOptions& o, const std::vector<ProgramInfo>& programs, const Selection& selection,
                      std::size_t devices) {
  if (o.progress == ProgressMode::None && !o.estimate_only) return;
  const CostBook book(CostBook::default_path());
  if (!book.note().empty()) std::fprintf(stderr, "pitot run: note: %s\n", book.note().c_str());
  Work work;
  for (std::size_t i = 0; i < programs.size(); ++i) work.emplace_back(&programs[i], selection.per_program[i]);
  const Estimate round = estimate_round(book, cost_knobs(o), work, o);
  // Each device runs every point in parallel with the others: the wall is one device's.
  const std::string text = fmt::format(
      "pitot run: estimate: {} point{}, {} process{}{}, about {} ({})\n", round.points, round.points == 1 ? "" : "s",
      round.processes * o.processes * devices, round.processes * o.processes * devices == 1 ? "" : "es",
      devices > 1 ? fmt::format(" ({} devices at once)", devices) : "", duration_text(round.seconds * o.processes),
      round.source());
  std::fputs(text.c_str(), o.estimate_only ? stdout : stderr);
}

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.1f} s", seconds);
  if (seconds < 2 * 3600) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace pitot::driver::run

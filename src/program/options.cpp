#include "program/options.hpp"

#include <charconv>
#include <cmath>
#include <iostream>
#include <type_traits>
#include <variant>

#include <CLI/CLI.hpp>

#include "core/knobs.hpp"
#include "core/settings.hpp"
#include "core/text.hpp"
#include "program/cli_hints.hpp"

namespace pitot::program {
namespace {

int to_int(const std::string& text, const std::string& what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw UsageError(what + ": '" + text + "' is not an integer");
  return value;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    auto pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

AxisValue parse_value(const std::string& text, const Axis& axis, const std::string& bench) {
  auto bad = [&](const char* kind) {
    return UsageError("--axis " + axis.name + " of benchmark " + bench + ": '" + text + "' is not " + kind);
  };
  switch (axis.kind) {
    case AxisKind::Int: {
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) throw bad("an integer");
      return v;
    }
    case AxisKind::Pow2: {
      // Accept 2^k or the power itself, which must be a power of two.
      std::int64_t v = 0;
      if (text.rfind("2^", 0) == 0) {
        int e = to_int(text.substr(2), "--axis " + axis.name);
        if (e < 0 || e > 62) throw bad("a power of two (2^0..2^62)");
        return std::int64_t{1} << e;
      }
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size() || v <= 0 || (v & (v - 1)) != 0)
        throw bad("a power of two (write 1024 or 2^10)");
      return v;
    }
    case AxisKind::Float: {
      try {
        std::size_t used = 0;
        double v = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(v)) throw bad("a finite number");
        return v;
      } catch (const std::logic_error&) {
        throw bad("a number");
      }
    }
    case AxisKind::String:
      if (const std::string problem = axis_value_problem(AxisValue{text}); !problem.empty())
        throw UsageError("--axis " + axis.name + " of benchmark " + bench + ": '" + escape_non_utf8(text) + "' " + problem);
      return text;
  }
  return text;
}

// Where a program keeps a knob of the table (core/knobs.hpp): its RunConfig or its DeviceOptions.
template <class T>
T& knob_value(Options& o, T RunConfig::*field) {
  return o.run.*field;
}
template <class T>
T& knob_value(Options& o, T DeviceOptions::*field) {
  return o.device.*field;
}

}  // namespace

std::vector<int> parse_id_list(const std::string& text) {
  std::vector<int> ids;
  if (text.empty()) throw UsageError("--points: empty list");
  for (const auto& part : split(text, ',')) {
    auto dash = part.find('-');
    if (dash == std::string::npos) {
      ids.push_back(to_int(part, "--points"));
    } else {
      int lo = to_int(part.substr(0, dash), "--points"), hi = to_int(part.substr(dash + 1), "--points");
      if (lo > hi) throw UsageError("--points: range '" + part + "' runs backwards");
      for (int i = lo; i <= hi; ++i) ids.push_back(i);
    }
    if (ids.back() < 0) throw UsageError("--points: ids are not negative");
  }
  return ids;
}

std::pair<int, int> parse_shard(const std::string& text) {
  const auto shard = shard_from_text(text);
  if (!shard) throw UsageError("--shard '" + text + "': " + kShardHelp);
  return {shard->first - 1, shard->second};
}

AxisOverride parse_axis_override(const std::string& text) {
  AxisOverride o;
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--axis '" + text + "': write name=v1,v2 or benchmark:name=v1,v2");
  std::string lhs = text.substr(0, eq);
  auto colon = lhs.find(':');
  if (colon != std::string::npos) {
    o.benchmark = lhs.substr(0, colon);
    lhs = lhs.substr(colon + 1);
  }
  o.axis = lhs;
  o.values = split(text.substr(eq + 1), ',');
  for (const auto& v : o.values)
    if (v.empty()) throw UsageError("--axis '" + text + "': empty value");
  return o;
}

void apply_axis_overrides(std::deque<BenchmarkDef>& defs, const std::vector<AxisOverride>& overrides) {
  for (const auto& o : overrides) {
    bool matched = false;
    for (auto& def : defs) {
      if (!o.benchmark.empty() && def.name != o.benchmark) continue;
      for (auto& axis : def.axes) {
        if (axis.name != o.axis) continue;
        matched = true;
        axis.values.clear();
        for (const auto& v : o.values) axis.values.push_back(parse_value(v, axis, def.name));
      }
    }
    if (!o.benchmark.empty() &&
        std::none_of(defs.begin(), defs.end(), [&](const BenchmarkDef& d) { return d.name == o.benchmark; }))
      throw UsageError("--axis: no benchmark named '" + o.benchmark + "' (see --list)");
    if (!matched)
      throw UsageError("--axis: no benchmark " + (o.benchmark.empty() ? std::string() : o.benchmark + " ") +
                       "has an axis named '" + o.axis + "' (see --list)");
  }
}

std::optional<Options> parse_options(int argc, char** argv, const std::string& program) {
  Options o;
  CLI::App app{program + ": pitot benchmark program. Runs its benchmarks and prints a table."};
  app.set_version_flag("--version", "pitot " PITOT_VERSION);
  std::vector<std::string> axis_texts;
  std::string points_text, shard_text;
  bool no_interleave = false, quiet = false;

  app.add_flag("--list", o.list, "List benchmarks, axes and points, then exit");
  app.add_option("--filter", o.filter, "Run only points whose name matches this regex (ECMAScript, searched)");
  app.add_option("--axis", axis_texts, "Override an axis: name=v1,v2 or benchmark:name=v1,v2 (repeatable)");
  app.add_option("--points", points_text, "Run only these point ids, e.g. 0,3-5 (see --list)");
  app.add_option("--shard", shard_text, "Run the k-th of N deterministic shares of the points, e.g. 2/4");
  auto* json_opt = app.add_option("--json", o.json_path, "Write every result, raw samples included, as JSON to FILE (default or -: stdout); with --list, the list as JSON")
                       ->expected(0, 1);
  app.add_option("--csv", o.csv_path, "Write one CSV row per point (- for stdout)");
  app.add_flag("--quiet", quiet, "Do not print the table");
  app.add_option("--processes", o.processes,
                 "Run the selected points in K separate processes of this program, one after another, and pool "
                 "each point's samples; the per-process medians are kept for pitot compare")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--asv-dir", o.asv_dir, "Write or merge results into this asv results folder");
  app.add_option("--machine", o.machine, "asv machine name (default: from the GPU product, else the CPU model)");
  app.add_option("--commit", o.commit, "Commit hash the results belong to (default: git HEAD of the working directory)");
  app.add_option("--env", o.env, "asv environment name (default: compiler, version, build type)");

  auto& r = o.run;
  auto& d = o.device;
  // The engine's and the device's knobs, declared once with `pitot run`'s (core/knobs.hpp).
  auto add_knobs = [&](bool engine) {
    for (const Knob& k : knobs()) {
      if (k.engine() != engine) continue;
      std::visit(
          [&](auto field) {
            if constexpr (std::is_same_v<decltype(field), bool DeviceOptions::*>)
              app.add_flag(k.flag, knob_value(o, field), k.help);
            else
              app.add_option(k.flag, knob_value(o, field), k.help)->check(cli::knob_check(k.bounds))->capture_default_str();
          },
          k.field);
    }
  };
  add_knobs(true);
  app.add_option("--interleave", r.interleave, "Points sampled round-robin at once")->check(CLI::Range(1, kMaxInterleave))->capture_default_str();
  app.add_flag("--no-interleave", no_interleave, "Run points one after another in declared order");
  app.add_flag("--profile", r.profile, "Run each point once inside its range between profiler start/stop");

  app.add_option("--device", d.device, "GPU to run on")->check(cli::non_negative())->capture_default_str();
  cli::add_timing_option(
      app, [&d](Timing t) { d.timing = t; },
      "GPU timing: cold (caches flushed), hot (back to back) or graph (CUDA graph replay)")
      ->default_str(name_of(d.timing));
  cli::add_clock_option(
      app, [&d](GpuClock c) { d.clock = c; },
      "GPU clock of cold samples: kernel (the device's timestamps of the work, CUPTI) or events "
      "(default: kernel where CUPTI is available, else events; hot and graph use events)");
  add_knobs(false);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);
    return std::nullopt;
  } catch (const CLI::CallForVersion& e) {
    app.exit(e);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what() + cli::flag_suggestion(app, argc, argv) + " (see --help)");
  }
  for (const auto& t : axis_texts) o.axis_overrides.push_back(parse_axis_override(t));
  if (!points_text.empty()) o.point_ids = parse_id_list(points_text);
  if (!shard_text.empty()) std::tie(o.shard_index, o.shard_count) = parse_shard(shard_text);
  if (no_interleave) r.interleave = 1;
  if (const std::string problem = device_settings_problem(d.timing, d.clock); !problem.empty()) throw UsageError(problem);
  // An energy phase heats the card: points sampled beside it would be timed on a hotter card.
  if (d.energy_seconds > 0) r.interleave = 1;
  if (r.profile) {
    d.clock = GpuClock::Events;  // a profiler holds CUPTI; the work runs once, untimed
    d.energy_seconds = 0;        // and nothing runs beside it
  }
  if (json_opt->count() > 0 && o.json_path.empty()) o.json_path = "-";
  o.list_json = o.list && !o.json_path.empty();
  o.table = !quiet;
  if (r.max_seconds < r.min_seconds) throw UsageError("--max-time must not be below --min-time");
  return o;
}

}  // namespace pitot::program

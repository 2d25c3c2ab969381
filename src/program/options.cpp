#include "program/options.hpp"

#include <charconv>
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>

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
  const auto positive = cli::positive();
  const auto non_negative = cli::non_negative();
  app.add_option("--warmup", r.warmup_seconds, "Seconds of untimed warm-up per point")->check(non_negative)->capture_default_str();
  app.add_option("--min-samples", r.min_samples, "Samples before the interval rule may stop a point")->check(CLI::Range(2, 100000000))->capture_default_str();
  app.add_option("--min-time", r.min_seconds, "Seconds of sampling before the interval rule may stop a point")->check(non_negative)->capture_default_str();
  app.add_option("--max-time", r.max_seconds, "A point's time limit for sampling, seconds")->check(positive)->capture_default_str();
  app.add_option("--max-samples", r.max_samples, "Stop a point after this many samples")->check(CLI::Range(1, 100000000))->capture_default_str();
  app.add_option("--ci-target", r.ci_target, "Stop when the 99% interval of the median is narrower than this fraction of it")->check(positive)->capture_default_str();
  app.add_option("--batch-time", r.batch_seconds, "Seconds a point samples per turn of the interleaved schedule")->check(positive)->capture_default_str();
  app.add_option("--min-sample-time", r.min_sample_seconds, "CPU: loop the work until one sample lasts this long")->check(non_negative)->capture_default_str();
  app.add_option("--interleave", r.interleave, "Points sampled round-robin at once")->check(CLI::Range(1, 4096))->capture_default_str();
  app.add_flag("--no-interleave", no_interleave, "Run points one after another in declared order");
  app.add_option("--seed", r.seed, "Seed of the shuffled point order")->capture_default_str();
  app.add_flag("--profile", r.profile, "Run each point once inside its range between profiler start/stop");

  auto& d = o.device;
  app.add_option("--device", d.device, "GPU to run on")->check(non_negative)->capture_default_str();
  cli::add_timing_option(
      app, [&d](Timing t) { d.timing = t; },
      "GPU timing: cold (caches flushed), hot (back to back) or graph (CUDA graph replay)")
      ->default_str(name_of(d.timing));
  cli::add_clock_option(
      app, [&d](GpuClock c) { d.clock = c; },
      "GPU clock of cold samples: kernel (the device's timestamps of the work, CUPTI) or events "
      "(default: kernel where CUPTI is available, else events; hot and graph use events)");
  app.add_option("--graph-launches", d.graph_launches, "Launches captured per graph in graph mode (0: automatic)")->check(non_negative);
  app.add_option("--throttle-ratio", d.throttle_ratio, "Discard samples whose SM clock is below this fraction of nominal")->check(cli::within(0.0, 1.0))->capture_default_str();
  app.add_option("--energy", d.energy_seconds, "GPU: after each point, measure joules per call over at least this many seconds of the work back to back (0: off; points then run one after another, and the card cools back to within 2 C after each phase)")->check(CLI::Range(0.0, 600.0))->capture_default_str();
  app.add_option("--cool-to", d.cool_to_c, "GPU: before each point, wait until the card is at or under this temperature, degrees C (0: no wait)")->check(CLI::Range(0.0, 150.0))->capture_default_str();
  app.add_option("--cool-timeout", d.cool_timeout_seconds, "GPU: the longest wait of --cool-to, seconds")->check(CLI::Range(0.0, 3600.0))->capture_default_str();

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

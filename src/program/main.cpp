// main() of every benchmark program: parse the command line, run the selected points, write outputs.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>
#include <pitot/detail/registry.hpp>

#include "core/backend.hpp"
#include "core/engine.hpp"
#include "core/point_filter.hpp"
#include "core/protocol.hpp"
#include "core/text.hpp"
#include "asv/write.hpp"
#include "asv/env.hpp"
#include "host/machine.hpp"
#include "output/atomic_file.hpp"
#include "output/console.hpp"
#include "program/main.hpp"
#include "program/options.hpp"
#include "program/replicate.hpp"

#ifndef PITOT_PROGRAM_NAME
#define PITOT_PROGRAM_NAME ""
#endif

namespace pitot::program {
namespace {

using nlohmann::json;

std::string program_name(const char* argv0) {
  std::string name = PITOT_PROGRAM_NAME;
  if (name.empty()) name = std::filesystem::path(argv0).filename().string();
  return name;
}

std::vector<BenchmarkInfo> benchmark_infos(const std::string& program, const std::deque<BenchmarkDef>& defs) {
  std::vector<BenchmarkInfo> infos;
  for (const auto& d : defs) {
    BenchmarkInfo b;
    b.program = program;
    b.name = d.name;
    b.axes = d.axes;
    b.version = d.version;
    b.timeout_seconds = d.timeout_seconds;
    // The source when the registration gave it (the Python module: asv's code, which asv shows).
    b.code = d.code.empty() ? "pitot benchmark " + d.name + " (" + std::filesystem::path(d.source_file).filename().string() + ")"
                            : d.code;
    b.type = d.type;
    b.unit = d.unit;
    b.repr_values = d.repr_values;
    b.asv_key = d.asv_key;
    infos.push_back(std::move(b));
  }
  return infos;
}

std::vector<PlannedPoint> select_points(std::vector<PlannedPoint> all, const Options& o) {
  const std::optional<std::regex> filter = compile_point_filter<UsageError>(o.filter);
  if (o.point_ids)
    for (int id : *o.point_ids)
      if (id >= static_cast<int>(all.size()))
        throw UsageError(fmt::format("--points: no point {} (this program has {}; see --list)", id, all.size()));
  std::vector<PlannedPoint> chosen;
  for (auto& p : all) {
    bool matches = true;
    try {
      matches = !filter || std::regex_search(p.name, *filter);
    } catch (const std::regex_error& e) {  // e.g. error_complexity: too much backtracking
      throw UsageError("--filter '" + o.filter + "' cannot be matched against '" + p.name + "': " + e.what());
    }
    if (!matches) continue;
    if (o.point_ids && std::find(o.point_ids->begin(), o.point_ids->end(), p.id) == o.point_ids->end()) continue;
    if (p.id % o.shard_count != o.shard_index) continue;
    chosen.push_back(std::move(p));
  }
  return chosen;
}

// Why nothing was selected, with what the points are called after any --axis override, so a
// filter written for the default axis values can be fixed.
std::string no_point_message(const Options& o, const std::vector<PlannedPoint>& all) {
  std::vector<std::string> axes, selection;
  for (const auto& a : o.axis_overrides)
    axes.push_back("--axis " + (a.benchmark.empty() ? "" : a.benchmark + ":") + a.axis + "=" +
                   fmt::format("{}", fmt::join(a.values, ",")));
  const std::string axis_text = fmt::format("{}", fmt::join(axes, " "));
  if (!o.filter.empty()) selection.push_back("--filter '" + o.filter + "'");
  if (o.point_ids) selection.push_back("--points");
  if (o.shard_count > 1) selection.push_back("--shard");
  std::string message = fmt::format("no point matches {}", fmt::join(selection, " with "));
  if (!axes.empty()) message += " after " + axis_text + " (an override replaces the axis's values, and with them the point names)";
  // Example names from the benchmarks an override touched (those the user has in mind), else all.
  std::vector<const PlannedPoint*> shown;
  for (const auto& p : all)
    for (const auto& a : o.axis_overrides)
      if ((a.benchmark.empty() || a.benchmark == p.def->name) &&
          std::any_of(p.def->axes.begin(), p.def->axes.end(), [&](const Axis& x) { return x.name == a.axis; })) {
        shown.push_back(&p);
        break;
      }
  if (shown.empty())
    for (const auto& p : all) shown.push_back(&p);
  std::vector<std::string> examples;
  for (std::size_t i = 0; i < shown.size() && examples.size() < 3; i += std::max<std::size_t>(1, shown.size() / 3))
    examples.push_back(shown[i]->name);
  if (!examples.empty()) message += fmt::format("; points are named like {}", fmt::join(examples, ", "));
  return message + "; see them with --list" + (axes.empty() ? "" : " " + axis_text);
}

// The benchmarks' own build, for --json and --list --json (the driver names its env from it).
ListedBuild listed_build() {
  const BuildFlags b = program_build().value_or(BuildFlags{});
  return {b.build_type, b.optimized, b.ndebug, build_type_name(b)};
}

// A loud line for a build without optimization: its times mean little (26x slower, measured).
std::string build_warning(const std::string& program) {
  const BuildFlags b = program_build().value_or(BuildFlags{});
  if (b.optimized) return "";
  return fmt::format(
      "WARNING: {} was built without optimization (CMake build type '{}'): its times are not those "
      "of an optimized build. Configure it with -DCMAKE_BUILD_TYPE=Release.",
      program, b.build_type.empty() ? "" : b.build_type);
}

json device_facts(int device) {
  const DeviceBackend* b = device_backend();
  return b && b->device_facts ? b->device_facts(device) : json(nullptr);
}

std::string device_machine_name(int device) {
  const DeviceBackend* b = device_backend();
  return b && b->machine_name ? b->machine_name(device) : "";
}

void print_list(std::ostream& out, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                const std::vector<PlannedPoint>& points, bool as_json, int device) {
  if (as_json) {
    // The device facts let a driver name the machine and count GPUs without running a point.
    ListAnswer answer;
    answer.program = program;
    if (device_backend()) answer.backend = device_backend()->name;
    answer.device = device_facts(device);
    answer.device_count = answer.device.is_object() ? answer.device.value("gpu_count", 1) : 0;
    answer.machine = device_machine_name(device);
    answer.build = listed_build();
    answer.requirements = build_requirements();
    answer.benchmarks = infos;
    for (const auto& p : points) answer.points.push_back({p.id, p.name, p.def->name});
    out << json_text(to_json(answer), 2) << "\n";
    return;
  }
  for (const auto& b : infos) {
    std::size_t selected = std::count_if(points.begin(), points.end(), [&](const PlannedPoint& p) { return p.def->name == b.name; });
    out << fmt::format("{}.{}  ({} point{}{})\n", program, b.name, b.point_count(), b.point_count() == 1 ? "" : "s",
                       selected == b.point_count() ? "" : fmt::format(", {} selected", selected));
    for (const auto& a : b.axes) {
      std::string values;
      for (const auto& v : a.values) values += (values.empty() ? "" : ", ") + display_value(v, a.kind);
      out << fmt::format("    {} ({}): {}\n", a.name, axis_kind_name(a.kind), values);
    }
  }
  out << "points:\n";
  for (const auto& p : points) out << fmt::format("  {:>4}  {}\n", p.id, p.name);
}

// Writes text to a path, or stdout for "-"; the file is replaced only once fully written and
// synced (output/atomic_file.hpp). A missing folder is an error, not created.
void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  try {
    replace_files({{path, text}});
  } catch (const FileError& e) {
    throw UsageError("cannot write " + path + ": " + e.what());
  }
}

json config_json(const RunConfig& r, const DeviceOptions& d) {
  return {{"warmup", r.warmup_seconds}, {"min_samples", r.min_samples}, {"min_time", r.min_seconds}, {"max_time", r.max_seconds}, {"max_samples", r.max_samples}, {"ci_target", r.ci_target}, {"batch_time", r.batch_seconds}, {"interleave", r.interleave}, {"seed", r.seed}, {"profile", r.profile}, {"device", d.device}, {"timing", name_of(d.timing)}, {"clock", name_of(d.clock)}};
}

json config_json(const Options& o) {
  json j = config_json(o.run, o.device);
  j["processes"] = o.processes;
  return j;
}

void write_asv_results(const Options& o, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                       const std::vector<PointResult>& results) {
  AsvRun run;
  run.machine_facts = host_facts();
  json dev = device_facts(o.device.device);
  if (dev.is_object())
    for (const auto& [k, v] : dev.items()) run.machine_facts[k] = v.is_string() ? v.get<std::string>() : json_text(v);
  run.machine = o.machine;
  if (run.machine.empty()) run.machine = device_machine_name(o.device.device);
  if (run.machine.empty()) run.machine = machine_name_from_cpu(run.machine_facts["cpu"]);
  run.machine = checked_name("--machine", run.machine);
  auto commit = git_commit(std::filesystem::current_path(), o.commit.empty() ? "HEAD" : o.commit);
  if (commit) {
    run.commit_hash = commit->hash;
    run.commit_date_ms = commit->date_ms;
  } else if (o.commit.size() == 40) {
    run.commit_hash = o.commit;  // not in this repository: asv needs the date, use now
    run.commit_date_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  } else {
    throw UsageError(o.commit.empty() ? "--asv-dir needs a commit: run inside a git repository or give --commit HASH"
                                      : "--commit " + o.commit + " is not a commit of the repository here; give the full 40-digit hash");
  }
  const std::string env = checked_name("--env", o.env.empty() ? env_name(build_requirements()) + timing_env_suffix(o.device.timing) : o.env);
  run.requirements = build_requirements();
  // Kernel-clock rows go to their own env (split_by_clock), so the two clocks never mix.
  for (auto& [env_name, points] : split_by_clock(env, results, o.env.empty())) {
    run.env_name = checked_name("--env", env_name);
    // Only benchmarks this run measured: a filtered run must not touch the others' rows.
    std::vector<BenchmarkInfo> measured;
    for (const auto& b : infos)
      if (std::any_of(points.begin(), points.end(), [&](const PointResult& r) { return r.benchmark == b.name; }))
        measured.push_back(b);
    write_asv(o.asv_dir, run, measured, points);
    std::cerr << fmt::format("{}: results written to {}/{}/{}-{}.json\n", program, o.asv_dir, run.machine,
                             run.commit_hash.substr(0, 8), run.env_name);
  }
}

int run_program(int argc, char** argv) {
  const std::string program = program_name(argv[0]);
  if (!registration_errors().empty()) {
    for (const auto& e : registration_errors()) std::cerr << program << ": " << e << "\n";
    return kExitUsage;
  }
  // asv publish writes one file per benchmark name: refuse a name it could not write.
  bool too_long = false;
  for (const auto& d : registry())
    if (const std::string problem = asv_name_length_problem(program, d.name, d.asv_key); !problem.empty()) {
      std::cerr << program << ": " << problem << "\n";
      too_long = true;
    }
  if (too_long) return kExitUsage;
  auto parsed = parse_options(argc, argv, program);
  if (!parsed) return kExitOk;
  Options o = std::move(*parsed);
  // A replicate of `--processes K` (replicate.cpp): its results go to one JSON file, nothing else.
  if (const std::string path = replicate_json_path(); !path.empty()) {
    o.processes = 1;
    o.table = false;
    o.csv_path.clear();
    o.asv_dir.clear();
    o.json_path = path;
  }
  apply_axis_overrides(registry(), o.axis_overrides);
  const auto infos = benchmark_infos(program, registry());
  const auto points = select_points(plan_points(registry()), o);

  if (o.list) {
    std::ostringstream text;
    print_list(text, program, infos, points, o.list_json, o.device.device);
    write_output(o.list_json ? o.json_path : "-", text.str());
    return kExitOk;
  }
  if (points.empty()) throw UsageError(no_point_message(o, plan_points(registry())));

  // Driver protocol: one JSON line per finished point on a private file descriptor.
  FILE* channel = nullptr;
  if (const char* fd_text = std::getenv(kResultFdVariable)) {
    channel = fdopen(std::atoi(fd_text), "w");
    if (!channel) throw UsageError(fmt::format("{}={} is not an open file descriptor", kResultFdVariable, fd_text));
  }
  const DeviceBackend* backend = device_backend();
  // Point threads take turns and the engine thread waits while one runs, so the channel is
  // never written from two threads at once; the mutex keeps that true if the schedule changes.
  std::mutex channel_mutex;
  auto send = [&](const std::string& line) {
    if (!channel) return;
    std::lock_guard lock(channel_mutex);
    std::fputs((line + "\n").c_str(), channel);
    std::fflush(channel);
  };
  PointHooks hooks;
  if (backend && backend->bind_thread)
    hooks.on_thread_start = [backend, device = o.device.device](const PlannedPoint&) { backend->bind_thread(device); };
  // Tells a driver which points are running, so a crash is charged to them alone.
  hooks.on_point_begin = [&](const PlannedPoint& p) { send(json_text(to_json(StartMessage{p.id}))); };
  // Under --untrusted the driver times each point's sampling phase on its own clock.
  if (o.device.untrusted)
    hooks.on_sampling_begin = [&](const PlannedPoint& p) { send(json_text(to_json(SamplingMessage{p.id}))); };

  std::vector<PointResult> results;
  bool any_failed = false;
  const bool progress = o.table && isatty(STDERR_FILENO);
  auto write_outputs = [&] {
    std::sort(results.begin(), results.end(), [](const PointResult& a, const PointResult& b) { return a.id < b.id; });
    if (o.table) {
      if (const std::string warning = build_warning(program); !warning.empty()) std::cout << warning << "\n";
      std::cout << program << ":\n";
      print_table(std::cout, results, o.run.ci_target);
    }
    if (!o.csv_path.empty()) {
      std::ostringstream csv;
      write_csv(csv, results);
      write_output(o.csv_path, csv.str());
    }
    if (!o.json_path.empty()) {
      json doc = {{"pitot_version", PITOT_VERSION}, {"program", program}, {"build", to_json(listed_build())}, {"host", host_facts()}, {"device", device_facts(o.device.device)}, {"config", config_json(o)}, {"benchmarks", json::array()}, {"points", json::array()}};
      for (const auto& b : infos) doc["benchmarks"].push_back(to_json(b));
      for (const auto& r : results) doc["points"].push_back(to_json(r));
      write_output(o.json_path, json_text(doc, 1) + "\n");
    }
    if (!o.asv_dir.empty()) write_asv_results(o, program, infos, results);
  };

  // Without a usable GPU the GPU points are skipped with the reason, said once: not one error per
  // point. CPU benchmarks of the same program still run.
  std::vector<PlannedPoint> to_run;
  std::vector<const PlannedPoint*> gpu_points;
  for (const auto& p : points)
    if (p.def->build.device) gpu_points.push_back(&p);
  const std::string unusable = backend && backend->unusable && !gpu_points.empty() ? backend->unusable() : "";
  if (!unusable.empty()) {
    const std::string reason = fmt::format("no {} GPU usable here ({})", backend->display_name, unusable);
    std::cerr << fmt::format("{}: {}: its {} GPU point{} {} skipped\n", program, reason, gpu_points.size(),
                             gpu_points.size() == 1 ? "" : "s", gpu_points.size() == 1 ? "is" : "are");
    for (const auto* p : gpu_points) {
      results.push_back(skipped_result(program, *p, reason));
      send(json_text(to_json(PointMessage{results.back()})));
    }
    for (const auto& p : points)
      if (!p.def->build.device) to_run.push_back(p);
  } else {
    to_run = points;
  }

  if (o.processes > 1) {
    if (channel)
      throw UsageError("--processes is for a program run alone; under pitot run give --processes to pitot run");
    for (auto& r : run_replicates(program, argv, o.processes, to_run, o.table)) {
      any_failed |= r.status == PointStatus::Failed;
      results.push_back(std::move(r));
    }
    write_outputs();
    return any_failed ? kExitPointsFailed : kExitOk;
  }
  run_points(
      program, to_run, o.run, [&](const PointResult& r) {
        results.push_back(r);
        any_failed |= r.status == PointStatus::Failed;
        send(json_text(to_json(PointMessage{r})));
        if (progress)
          std::cerr << fmt::format("\r[{}/{}] {:<60.60}", results.size(), points.size(), r.name) << std::flush;
        if (backend && backend->device_lost && backend->device_lost()) {
          // The device is unusable for the rest of this process: report and leave.
          if (progress) std::cerr << "\n";
          std::cerr << program << ": " << r.name << ": " << r.reason << "\n"
                    << program << ": the device is lost after a sticky error; restart after point " << r.id << "\n";
          write_outputs();
          std::fflush(nullptr);
          std::_Exit(kExitDeviceLost);
        }
      },
      hooks, o.device);
  if (progress) std::cerr << "\r" << std::string(80, ' ') << "\r";
  if (channel) {
    send(json_text(to_json(DoneMessage{})));
    std::fclose(channel);
  }
  write_outputs();
  return any_failed ? kExitPointsFailed : kExitOk;
}

}  // namespace
}  // namespace pitot::program

namespace pitot {

int program_main(int argc, char** argv) {
  try {
    return pitot::program::run_program(argc, argv);
  } catch (const pitot::UsageError& e) {
    std::cerr << pitot::program::program_name(argv[0]) << ": " << e.what() << "\n";
    return pitot::kExitUsage;
  } catch (const pitot::AsvError& e) {
    std::cerr << pitot::program::program_name(argv[0]) << ": " << e.what() << "\n";
    return pitot::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << pitot::program::program_name(argv[0]) << ": " << e.what() << "\n";
    return pitot::kExitUsage;
  }
}

}  // namespace pitot

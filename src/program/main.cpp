// main() of every benchmark program: parse the command line, select the points, run them (speaking
// the driver protocol when a driver runs the program), write the outputs (program/outputs.cpp).
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

#include "asv/error.hpp"
#include "core/backend.hpp"
#include "core/engine.hpp"
#include "core/point_filter.hpp"
#include "core/protocol.hpp"
#include "core/text.hpp"
#include "program/main.hpp"
#include "program/options.hpp"
#include "program/outputs.hpp"
#include "program/ranked.hpp"
#include "program/replicate.hpp"

#ifndef PITOT_PROGRAM_NAME
#define PITOT_PROGRAM_NAME ""
#endif

namespace pitot::program {
namespace {

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
    b.multi_rank = d.multi_rank;
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

// Refuses a program whose registrations failed, or with a benchmark name asv publish could not
// write (it writes one file per benchmark name): says why on stderr, and returns true.
bool registration_refused(const std::string& program) {
  if (!registration_errors().empty()) {
    for (const auto& e : registration_errors()) std::cerr << program << ": " << e << "\n";
    return true;
  }
  bool too_long = false;
  for (const auto& d : registry())
    if (const std::string problem = asv_name_length_problem(program, d.name, d.asv_key); !problem.empty()) {
      std::cerr << program << ": " << problem << "\n";
      too_long = true;
    }
  return too_long;
}

// A replicate of `--processes K` (replicate.cpp): its results go to one JSON file, nothing else.
void become_replicate(Options& o, const std::string& json_path) {
  o.processes = 1;
  o.table = false;
  o.csv_path.clear();
  o.asv_dir.clear();
  o.json_path = json_path;
}

// The driver protocol's channel: one JSON line per message on the private file descriptor the
// driver names in kResultFdVariable; none when the program runs alone. Point threads take turns
// and the engine thread waits while one runs, so it is never written from two threads at once;
// the mutex keeps that true if the schedule changes.
class DriverChannel {
 public:
  DriverChannel() {
    if (const char* fd_text = std::getenv(kResultFdVariable)) {
      file_ = fdopen(std::atoi(fd_text), "w");
      if (!file_) throw UsageError(fmt::format("{}={} is not an open file descriptor", kResultFdVariable, fd_text));
    }
  }
  bool open() const { return file_ != nullptr; }
  void send(const std::string& line) {
    if (!file_) return;
    std::lock_guard lock(mutex_);
    std::fputs((line + "\n").c_str(), file_);
    std::fflush(file_);
  }
  // The last message of a run that ended, then the channel closed.
  void finish() {
    if (!file_) return;
    send(json_text(to_json(DoneMessage{})));
    std::fclose(file_);
    file_ = nullptr;
  }

 private:
  FILE* file_ = nullptr;
  std::mutex mutex_;
};

PointHooks point_hooks(const DeviceBackend* backend, const Options& o, DriverChannel& channel) {
  PointHooks hooks;
  if (backend && backend->bind_thread)
    hooks.on_thread_start = [backend, device = o.device.device](const PlannedPoint&) { backend->bind_thread(device); };
  // Tells a driver which points are running, so a crash is charged to them alone.
  hooks.on_point_begin = [&channel](const PlannedPoint& p) { channel.send(json_text(to_json(StartMessage{p.id}))); };
  // Under --untrusted the driver times each turn of a point's sampling on its own clock.
  if (o.device.untrusted) {
    hooks.on_sampling_begin = [&channel](const PlannedPoint& p) { channel.send(json_text(to_json(SamplingMessage{p.id}))); };
    hooks.on_sampling_end = [&channel](const PlannedPoint& p, double harness_seconds) {
      channel.send(json_text(to_json(SampledMessage{p.id, harness_seconds})));
    };
  }
  return hooks;
}

// The points to run. Without a usable GPU the GPU points are skipped with the reason, said once:
// not one error per point; their results are added to `results` and sent. CPU benchmarks of the
// same program still run.
std::vector<PlannedPoint> runnable_points(const std::string& program, const std::vector<PlannedPoint>& points,
                                          const DeviceBackend* backend, DriverChannel& channel,
                                          std::vector<PointResult>& results) {
  std::vector<const PlannedPoint*> gpu_points;
  for (const auto& p : points)
    if (p.def->build.device) gpu_points.push_back(&p);
  const std::string unusable = backend && backend->unusable && !gpu_points.empty() ? backend->unusable() : "";
  if (unusable.empty()) return points;
  const std::string reason = fmt::format("no {} GPU usable here ({})", backend->display_name, unusable);
  std::cerr << fmt::format("{}: {}: its {} GPU point{} {} skipped\n", program, reason, gpu_points.size(),
                           gpu_points.size() == 1 ? "" : "s", gpu_points.size() == 1 ? "is" : "are");
  for (const auto* p : gpu_points) {
    results.push_back(skipped_result(program, *p, reason));
    channel.send(json_text(to_json(PointMessage{results.back()})));
  }
  std::vector<PlannedPoint> to_run;
  for (const auto& p : points)
    if (!p.def->build.device) to_run.push_back(p);
  return to_run;
}

int run_program(int argc, char** argv) {
  const std::string program = program_name(argv[0]);
  if (registration_refused(program)) return kExitUsage;
  auto parsed = parse_options(argc, argv, program);
  if (!parsed) return kExitOk;
  Options o = std::move(*parsed);
  if (const std::string path = replicate_json_path(); !path.empty()) become_replicate(o, path);
  apply_axis_overrides(registry(), o.axis_overrides);
  const auto infos = benchmark_infos(program, registry());
  const auto points = select_points(plan_points(registry()), o);

  if (o.list) {
    if (listing_is_silent()) return kExitOk;  // under a launcher, rank 0 lists for all
    std::ostringstream text;
    print_list(text, program, infos, points, o.list_json, o.device.device);
    write_output(o.list_json ? o.json_path : "-", text.str());
    return kExitOk;
  }
  if (points.empty()) throw UsageError(no_point_message(o, plan_points(registry())));

  const World world = enter_world(o, points);  // a multi-rank world joins its group here
  DriverChannel channel;
  const DeviceBackend* backend = device_backend();
  const PointHooks hooks = point_hooks(backend, o, channel);
  std::vector<PointResult> results;
  bool any_failed = false;
  const bool progress = o.table && isatty(STDERR_FILENO);
  const std::vector<PlannedPoint> to_run = runnable_points(program, points, backend, channel, results);

  if (o.processes > 1) {
    if (channel.open())
      throw UsageError("--processes is for a program run alone; under pitot run give --processes to pitot run");
    for (auto& r : run_replicates(program, argv, o.processes, to_run, o.table)) {
      any_failed |= r.status == PointStatus::Failed;
      results.push_back(std::move(r));
    }
    write_outputs(o, program, infos, results);
    return any_failed ? kExitPointsFailed : kExitOk;
  }
  for (const auto& round : world_rounds(world, to_run)) run_points(
      program, round, o.run, [&](const PointResult& r) {
        results.push_back(r);
        any_failed |= r.status == PointStatus::Failed;
        channel.send(json_text(to_json(PointMessage{r})));
        if (progress)
          std::cerr << fmt::format("\r[{}/{}] {:<60.60}", results.size(), points.size(), r.name) << std::flush;
        if (backend && backend->device_lost && backend->device_lost()) {
          // The device is unusable for the rest of this process: report and leave.
          if (progress) std::cerr << "\n";
          std::cerr << program << ": " << r.name << ": " << r.reason << "\n"
                    << program << ": the device is lost after a sticky error; restart after point " << r.id << "\n";
          write_outputs(o, program, infos, results);
          std::fflush(nullptr);
          std::_Exit(kExitDeviceLost);
        }
        if (const std::string broken = world_broken(world); !broken.empty()) {
          // No later multi-rank point can run here: report and leave, like a lost device.
          std::cerr << fmt::format("{}: rank {}: the ranks' group failed: {}\n{}: restart after point {}\n", program,
                                   world.info.rank, broken, program, r.id);
          write_outputs(o, program, infos, results);
          std::fflush(nullptr);
          std::_Exit(kExitDeviceLost);
        }
      },
      hooks, o.device);
  if (progress) std::cerr << "\r" << std::string(80, ' ') << "\r";
  channel.finish();
  write_outputs(o, program, infos, results);
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

// What a benchmark program writes (program/outputs.hpp): the --list answer and a run's table,
// CSV, JSON and asv results.
#include "program/outputs.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/env.hpp"
#include "asv/run_record.hpp"
#include "asv/write.hpp"
#include "core/backend.hpp"
#include "core/protocol.hpp"
#include "core/text.hpp"
#include "host/machine.hpp"
#include "output/atomic_file.hpp"
#include "output/console.hpp"

namespace pitot::program {
namespace {

using nlohmann::json;

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

json config_json(const RunConfig& r, const DeviceOptions& d) {
  return {{"warmup", r.warmup_seconds}, {"min_samples", r.min_samples}, {"min_time", r.min_seconds}, {"max_time", r.max_seconds}, {"max_samples", r.max_samples}, {"ci_target", r.ci_target}, {"batch_time", r.batch_seconds}, {"interleave", r.interleave}, {"seed", r.seed}, {"profile", r.profile}, {"device", d.device}, {"timing", name_of(d.timing)}, {"clock", name_of(d.clock)}};
}

json config_json(const Options& o) {
  json j = config_json(o.run, o.device);
  j["processes"] = o.processes;
  return j;
}

// The run record (asv/run_record.hpp): the same function builds pitot run's, from the same facts.
AsvRun asv_run(const Options& o, const std::string& program) {
  RunRecordInputs in;
  std::string note;
  in.machine = {o.machine, read_asv_machine_file(note), asv_host_name(), host_facts(), device_facts(o.device.device),
                device_machine_name(o.device.device)};
  // The asv.conf.json pitot run would find here: its repo holds the commit, its environments give
  // a Python program's params.
  const std::optional<AsvConfig> config = find_asv_config("");
  std::string commit_note;
  in.commit = asv_commit(o.commit, config ? config->repo : std::filesystem::current_path(), commit_note);
  in.env = o.env.empty() ? env_name(build_requirements()) + timing_env_suffix(o.device.timing) : o.env;
  in.requirements = build_requirements();
  in.environments = config ? &config->environments : nullptr;
  std::set<std::string> notes = {note, commit_note};
  AsvRun run = asv_run_record(in, notes);
  for (const std::string& line : notes)
    if (!line.empty()) std::cerr << program << ": note: " << line << "\n";
  return run;
}

void write_asv_results(const Options& o, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                       const std::vector<PointResult>& results) {
  AsvRun run = asv_run(o, program);
  const std::string env = run.env_name;
  // Kernel-clock rows go to their own env (split_by_clock), so the two clocks never mix.
  for (auto& [env_name, points] : split_by_clock(env, results, o.env.empty())) {
    run.env_name = env_name;  // write_asv checks the name
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

}  // namespace

void print_list(std::ostream& out, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                const std::vector<PlannedPoint>& points, bool as_json, int device) {
  if (as_json) {
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

void write_outputs(const Options& o, const std::string& program, const std::vector<BenchmarkInfo>& infos,
                   std::vector<PointResult>& results) {
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
}

}  // namespace pitot::program

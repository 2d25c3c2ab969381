#include "driver/common/manifest.hpp"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bounded_json.hpp"
#include "core/engine.hpp"
#include "driver/common/child.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver {

namespace {

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::vector<ProgramRef> read_manifest(const fs::path& manifest) {
  std::string text;
  bool readable = false;
  try {
    readable = read_file_bounded(manifest, text);
  } catch (const std::length_error& e) {
    throw InputError(std::string(e.what()) + ": re-run cmake to rewrite it");
  }
  if (!readable) {
    throw InputError("no benchmark programs given and no " + manifest.string() +
                     ": run pitot in a build folder (one configured with pitot_add_benchmark), pass "
                     "--build-dir DIR, or name the programs or a folder holding them");
  }
  json j;
  try {
    j = parse_json_bounded(text);
  } catch (const json::exception& e) {
    throw InputError(manifest.string() + " is not valid JSON (" + e.what() + "): re-run cmake to rewrite it");
  }
  if (!j.is_object() || j.value("version", 0) != 1 || !j.contains("programs") || !j["programs"].is_array()) {
    throw InputError(manifest.string() + " is not a pitot manifest of version 1: re-run cmake with this pitot");
  }
  std::vector<ProgramRef> out;
  for (const auto& p : j["programs"]) {
    ProgramRef ref{p.value("name", ""), fs::path(p.value("path", "")), {}};
    if (ref.name.empty() || ref.path.empty()) throw InputError(manifest.string() + ": a program entry lacks its name or path");
    if (ref.path.is_relative()) ref.path = manifest.parent_path() / ref.path;
    if (!is_executable_file(ref.path)) {
      throw InputError("program " + ref.name + " listed in " + manifest.string() + " is not built (" +
                       ref.path.string() + "): build the project first (cmake --build)");
    }
    out.push_back(std::move(ref));
  }
  return out;
}

const BenchmarkInfo* find_benchmark(const std::vector<BenchmarkInfo>& list, const std::string& name, std::size_t* at) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) {
      *at = i;
      return &list[i];
    }
  return nullptr;
}

// A Python benchmark file that is not executable runs under $PITOT_PYTHON, else python3, each
// found on PATH unless given with a '/' (children are executed without a PATH search).
std::vector<std::string> python_interpreter(const std::string& file) {
  const char* given = std::getenv("PITOT_PYTHON");
  const std::string name = given && *given ? given : "python3";
  if (name.find('/') != std::string::npos) return {name};
  if (const char* path = std::getenv("PATH"))
    for (std::string_view rest = path; !rest.empty();) {
      const auto colon = rest.find(':');
      const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / name;
      if (!candidate.parent_path().empty() && is_executable_file(candidate)) return {candidate.string()};
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  throw InputError("'" + file + "' is a Python file, but no " + name +
                   " is on PATH: set PITOT_PYTHON to the interpreter that has pitot installed");
}

}  // namespace

std::vector<std::string> program_command(const ProgramRef& ref) {
  std::vector<std::string> argv = ref.interpreter;
  argv.push_back(ref.path.string());
  return argv;
}

std::vector<ProgramRef> find_programs(const std::vector<std::string>& inputs, const fs::path& build_dir) {
  if (inputs.empty()) return read_manifest(build_dir / "pitot-manifest.json");
  std::vector<ProgramRef> out;
  std::set<std::string> seen;
  auto add = [&](const fs::path& p) {
    std::string key = fs::weakly_canonical(p).string();
    if (seen.insert(key).second) out.push_back({p.filename().string(), p, {}});
  };
  for (const auto& in : inputs) {
    fs::path p(in);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      // A folder: its manifest if it has one, else every executable directly inside it.
      if (fs::exists(p / "pitot-manifest.json")) {
        for (auto& r : read_manifest(p / "pitot-manifest.json")) add(r.path);
        continue;
      }
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (is_executable_file(e.path())) found.push_back(e.path());
      if (found.empty()) throw InputError("folder " + in + " holds no executable program and no pitot-manifest.json");
      std::sort(found.begin(), found.end());
      for (auto& f : found) add(f);
    } else if (is_executable_file(p)) {
      if (!p.has_parent_path()) p = fs::path(".") / p;  // run ./prog, never a PATH lookup
      add(p);
    } else if (p.extension() == ".py" && fs::is_regular_file(p, ec)) {
      const auto before = out.size();
      add(p);
      if (out.size() > before) out.back().interpreter = python_interpreter(in);
    } else {
      throw InputError("'" + in + "' is neither an executable program, a Python file (.py) nor a folder");
    }
  }
  return out;
}

ProgramInfo parse_list(const ProgramRef& ref, const json& j) {
  ProgramInfo info;
  info.ref = ref;
  info.list = list_answer_from_json(j);
  info.program = info.list.program;
  info.benchmarks = info.list.benchmarks;

  // Ids number the points of all benchmarks in order, cartesian within one (last axis fastest).
  std::vector<int> first_id;
  int next = 0;
  for (const auto& b : info.benchmarks) {
    first_id.push_back(next);
    next += static_cast<int>(b.point_count());
  }
  auto make_point = [&](std::size_t bi, int id) {
    const BenchmarkInfo& b = info.benchmarks[bi];
    PlannedPoint p;
    p.id = id;
    p.benchmark = bi;
    p.timeout_seconds = b.timeout_seconds;
    std::size_t rest = static_cast<std::size_t>(id - first_id[bi]);
    p.index.assign(b.axes.size(), 0);
    for (std::size_t a = b.axes.size(); a-- > 0;) {
      p.index[a] = rest % b.axes[a].values.size();
      rest /= b.axes[a].values.size();
    }
    for (std::size_t a = 0; a < b.axes.size(); ++a) p.values.push_back(b.axes[a].values[p.index[a]]);
    return p;
  };
  for (const auto& listed : info.list.points) {
    std::size_t bi = 0;
    if (!find_benchmark(info.benchmarks, listed.benchmark, &bi))
      throw json::other_error::create(501, "point of unknown benchmark " + listed.benchmark, &j);
    PlannedPoint p = make_point(bi, listed.id);
    p.name = listed.name;
    info.points.push_back(std::move(p));
  }
  std::sort(info.points.begin(), info.points.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return info;
}

ProgramInfo list_program(const ProgramRef& ref, const std::vector<std::string>& extra_args) {
  ChildSpec spec;
  spec.argv = program_command(ref);
  spec.argv.insert(spec.argv.end(), {"--list", "--json", "-"});
  spec.argv.insert(spec.argv.end(), extra_args.begin(), extra_args.end());
  spec.result_channel = false;
  spec.keep_all_stdout = true;
  Child child(spec);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (child.running()) {
    child.wait(std::chrono::milliseconds(100));
    if (std::chrono::steady_clock::now() > deadline) {
      child.kill_group();
      while (child.running()) child.wait(std::chrono::milliseconds(100));
      throw InputError(ref.name + " --list --json did not answer within 60 s: is " + ref.path.string() +
                       " a pitot benchmark program?");
    }
  }
  const ChildEnd& end = child.end();
  if (!end.exited || end.code != 0) {
    throw InputError(ref.name + " --list --json " + end.describe() + ": " + tail_lines(child.stderr_text()));
  }
  try {
    return parse_list(ref, parse_json_bounded(valid_utf8(child.stdout_text())));
  } catch (const json::exception& e) {
    throw InputError(ref.name + " --list --json did not answer a pitot list (" + e.what() +
                     "): is " + ref.path.string() + " a pitot benchmark program?");
  }
}

PointResult skeleton(const ProgramInfo& program, const PlannedPoint& point) {
  PointResult r;
  r.program = program.program;
  r.benchmark = program.benchmarks.at(point.benchmark).name;
  r.id = point.id;
  r.name = point.name;
  r.index = point.index;
  r.values = point.values;
  return r;
}

}  // namespace pitot::driver

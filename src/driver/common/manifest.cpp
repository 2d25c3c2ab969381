#include "driver/common/manifest.hpp"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "asv/config.hpp"
#include "asv/error.hpp"
#include "core/bounded_json.hpp"
#include "core/rethrow.hpp"
#include "core/engine.hpp"
#include "driver/common/child.hpp"
#include "process/process.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver {

namespace {

// The manifest's programs, built or not.
std::vector<ProgramRef> manifest_entries(const fs::path& manifest) {
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
    out.push_back(std::move(ref));
  }
  return out;
}

void check_built(const ProgramRef& ref, const fs::path& manifest) {
  if (!is_executable_file(ref.path)) {
    throw InputError("program " + ref.name + " listed in " + manifest.string() + " is not built (" +
                     ref.path.string() + "): build the project first (cmake --build)");
  }
}

std::vector<ProgramRef> read_manifest(const fs::path& manifest) {
  std::vector<ProgramRef> out = manifest_entries(manifest);
  for (const auto& ref : out) check_built(ref, manifest);
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

// The interpreter of Python benchmark files: $PITOT_PYTHON, else the python3 beside this pitot
// (a virtualenv's bin, where `pip install ./python` puts pitot), else python3 on PATH; a name
// without '/' is looked up on PATH (children are executed without a PATH search).
std::string python_interpreter(const std::string& file) {
  const char* given = std::getenv("PITOT_PYTHON");
  const std::string name = given && *given ? given : "python3";
  if (name.find('/') != std::string::npos) return name;
  std::error_code ec;
  if (!given || !*given) {
    const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "python3";
    if (!ec && is_executable_file(beside)) return beside.string();
  }
  if (const fs::path found = find_on_path(name); !found.empty()) return found.string();
  throw InputError("'" + file + "' is a Python file, but no " + name +
                   " is on PATH: set PITOT_PYTHON to the interpreter that has pitot installed");
}

// A Python file is imported, never run as a script (its `if __name__ == "__main__"` block may
// call anything): `python -m pitot [--root DIR] FILE`. DIR is the asv benchmark folder FILE
// belongs to, which names its module as asv does (python/pitot/__main__.py).
std::vector<std::string> python_command(const std::string& file, const fs::path& root) {
  std::vector<std::string> argv = {python_interpreter(file), "-m", "pitot"};
  if (!root.empty()) argv.insert(argv.end(), {"--root", root.string()});
  return argv;
}

// The modules of an asv benchmark folder, found as asv finds them (pkgutil.iter_modules, then
// each package's own modules): *.py files, and folders holding __init__.py with their
// __init__.py and modules, in name order. The folder's own __init__.py is left out: its
// benchmarks would be named without a module, which pitot cannot (docs/writing-benchmarks.md).
void suite_modules(const fs::path& dir, bool top, std::vector<fs::path>& out) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  if (!top && fs::exists(dir / "__init__.py", ec)) out.push_back(dir / "__init__.py");
  for (const auto& e : entries) {
    const std::string stem = e.stem().string();
    if (stem.empty() || stem.find('.') != std::string::npos) continue;  // not a module name
    if (fs::is_directory(e, ec)) {
      if (fs::exists(e / "__init__.py", ec)) suite_modules(e, false, out);
    } else if (e.extension() == ".py" && stem != "__init__" && fs::is_regular_file(e, ec)) {
      out.push_back(e);
    }
  }
}

// asv.conf.json's benchmark_dir (default "benchmarks"), relative to the file's folder.
fs::path asv_benchmark_dir(const fs::path& conf) {
  const json j = rethrow_as<AsvError, InputError>([&] { return read_asv_config_json(conf); });
  const auto dir = j.find("benchmark_dir");
  if (dir != j.end() && !dir->is_string())
    throw InputError(conf.string() + ": \"benchmark_dir\" is " + dir->type_name() + ", not a string (a folder)");
  const fs::path benchmarks = conf.parent_path() / (dir == j.end() ? std::string("benchmarks") : dir->get<std::string>());
  std::error_code ec;
  if (!fs::is_directory(benchmarks, ec))
    throw InputError(conf.string() + ": its benchmark_dir " + benchmarks.string() + " is not a folder");
  return benchmarks;
}

// Whether `path` is a pitot benchmark program: an ELF file that holds the marker every
// program's main() carries (core/protocol.hpp). A build folder also holds shared libraries (often
// executable) and other tools, which must not be run. Read in 1 MiB pieces: a large library
// costs a read of its file, never its size in memory.
bool is_pitot_program_file(const fs::path& path) {
  const std::string marker = std::string(PITOT_PROGRAM_MARKER_HEAD) + PITOT_PROGRAM_MARKER_TAIL;
  std::ifstream in(path, std::ios::binary);
  std::string window(4, '\0');
  if (!in.read(window.data(), 4) || window != "\x7f" "ELF") return false;
  std::vector<char> piece(std::size_t{1} << 20);
  while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0) {
    window.append(piece.data(), static_cast<std::size_t>(in.gcount()));
    if (memmem(window.data(), window.size(), marker.data(), marker.size())) return true;
    window.erase(0, window.size() - std::min(window.size(), marker.size() - 1));  // a marker across two pieces
  }
  return false;
}

}  // namespace

std::vector<std::string> program_command(const ProgramRef& ref) {
  std::vector<std::string> argv = ref.interpreter;
  argv.push_back(ref.path.string());
  return argv;
}

bool is_asv_config_input(const std::string& input) {
  std::error_code ec;
  return fs::path(input).extension() == ".json" && fs::is_regular_file(input, ec);
}

std::string expected_program_name(const ProgramRef& ref) {
  if (ref.interpreter.empty()) return ref.name;
  fs::path module = fs::path(ref.name).replace_extension();  // nested/bench_text.py: nested.bench_text
  if (module.filename() == "__init__") module = module.parent_path();
  std::string name;
  for (const auto& part : module) name += (name.empty() ? "" : ".") + part.string();
  return name;
}

std::vector<ProgramRef> find_programs(const std::vector<std::string>& inputs, const fs::path& build_dir) {
  if (inputs.empty()) return read_manifest(build_dir / "pitot-manifest.json");
  std::vector<ProgramRef> out;
  std::vector<std::string> skipped;  // executables of folders that are not pitot programs
  std::set<std::string> seen;
  auto add = [&](const fs::path& p, std::string name = "") {
    std::string key = fs::weakly_canonical(p).string();
    if (seen.insert(key).second) out.push_back({name.empty() ? p.filename().string() : name, p, {}});
    return out.size();
  };
  // The modules of an asv benchmark folder, each its own program.
  auto add_suite = [&](const fs::path& dir, const std::string& in) {
    std::vector<fs::path> modules;
    suite_modules(dir, true, modules);
    for (const auto& m : modules) {
      const auto before = out.size();
      if (add(m, fs::relative(m, dir).string()) > before) out.back().interpreter = python_command(in, dir);
    }
    return modules.size();
  };
  for (const auto& in : inputs) {
    fs::path p(in);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      // A folder: its manifest if it has one, else every executable directly inside it and the
      // Python modules of it as an asv benchmark folder.
      if (fs::exists(p / "pitot-manifest.json")) {
        for (auto& r : read_manifest(p / "pitot-manifest.json")) add(r.path);
        continue;
      }
      std::vector<fs::path> found;
      const auto skipped_before = skipped.size();
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.path().extension() == ".py" || !is_executable_file(e.path())) continue;
        if (is_pitot_program_file(e.path())) found.push_back(e.path());
        else skipped.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      for (auto& f : found) add(f);
      if (add_suite(p, in) == 0 && found.empty())
        throw InputError("folder " + in + " holds no pitot program, no Python module and no pitot-manifest.json" +
                         (skipped.size() > skipped_before ? " (its executables are not pitot programs)" : ""));
    } else if (is_asv_config_input(in)) {
      // An asv.conf.json: the modules of its benchmark_dir.
      const fs::path dir = asv_benchmark_dir(p);
      if (add_suite(dir, in) == 0) throw InputError(in + ": its benchmark_dir " + dir.string() + " holds no Python module");
    } else if (p.extension() == ".py" && fs::is_regular_file(p, ec)) {
      const auto before = out.size();
      if (add(p) > before) out.back().interpreter = python_command(in, {});
    } else if (is_executable_file(p)) {
      if (!p.has_parent_path()) p = fs::path(".") / p;  // run ./prog, never a PATH lookup
      add(p);
    } else {
      throw InputError("'" + in + "' is neither an executable program, a Python file (.py), an asv.conf.json nor a folder");
    }
  }
  if (!skipped.empty()) {
    std::sort(skipped.begin(), skipped.end());
    std::string names;
    for (const auto& s : skipped) names += (names.empty() ? "" : ", ") + s;
    std::fprintf(stderr, "pitot: note: skipped %zu file%s that %s not pitot program%s: %s\n", skipped.size(),
                 skipped.size() == 1 ? "" : "s", skipped.size() == 1 ? "is" : "are", skipped.size() == 1 ? "" : "s",
                 names.c_str());
  }
  return out;
}

ProgramRef find_program(const std::string& given, const fs::path& build_dir) {
  std::error_code ec;
  if (given.find('/') == std::string::npos && !fs::is_regular_file(given, ec)) {
    const fs::path manifest = build_dir / "pitot-manifest.json";
    if (!fs::exists(manifest, ec))
      throw InputError("program '" + given + "' is not a file here and there is no " + manifest.string() +
                       " to look it up in: give a path, or --build-dir of a pitot build");
    std::string known;
    for (auto& ref : manifest_entries(manifest)) {
      if (ref.name == given) {
        check_built(ref, manifest);
        ref.path = fs::absolute(ref.path);
        return ref;
      }
      known += (known.empty() ? "" : ", ") + ref.name;
    }
    throw InputError("no program named '" + given + "' in " + manifest.string() +
                     (known.empty() ? std::string() : " (it lists: " + known + ")"));
  }
  std::vector<ProgramRef> found = find_programs({given}, build_dir);
  if (found.size() != 1) {
    std::string names;
    for (const auto& ref : found) names += (names.empty() ? "" : ", ") + ref.name;
    throw InputError("'" + given + "' holds " + std::to_string(found.size()) + " programs (" + names + "): name one");
  }
  found.front().path = fs::absolute(found.front().path);
  return found.front();
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

ListedDevice listed_device(const std::vector<ProgramInfo>& programs, int device) {
  for (const auto& p : programs) {
    if (p.list.device.is_null()) continue;
    if (json facts = listed_device_facts(p.list, device); !facts.is_null()) return {std::move(facts), p.list.machine};
    const ListAnswer asked = list_program(p.ref, {"--device", std::to_string(device)}).list;
    return {asked.device, asked.machine};
  }
  return {nullptr, ""};
}

json device_facts(const std::vector<ProgramInfo>& programs, int device) { return listed_device(programs, device).facts; }

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

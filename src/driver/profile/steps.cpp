// See steps.hpp.
#include "driver/profile/steps.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/bounded_json.hpp"
#include "driver/common/errors.hpp"
#include "driver/common/files.hpp"
#include "driver/common/interrupt.hpp"
#include "driver/profile/noise.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::profile {

namespace {

constexpr std::uint64_t kTailBytes = 64 * 1024;       // stream tails that always go into the zip
constexpr std::uint64_t kStreamReadBytes = 4u << 20;  // of each stream, read for the summary

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\"'\\$*?[]()<>|&;`") == std::string::npos;
    out += plain ? a : "'" + a + "'";
  }
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

bool Session::essential_missing() const {
  return std::none_of(artifacts.begin(), artifacts.end(), [](const Artifact& a) { return a.rank == kEssential; });
}

// --- 1. resolve the program ---------------------------------------------------------------------

ProgramRef resolve_program(const Options& o) { return find_program(o.program, o.build_dir); }

fs::path zip_path(const Options& o, const Profiler& tool, const ProgramRef& program) {
  fs::path zip = o.output.empty() ? fs::path(program.path.filename().string() + "-" + tool.name() + ".zip") : fs::path(o.output);
  zip = fs::absolute(zip);
  std::error_code ec;
  if (!fs::is_directory(zip.parent_path(), ec)) throw InputError("the folder of -o " + zip.string() + " does not exist");
  if (zip.extension() != ".zip") throw InputError("-o " + o.output + ": the package is a zip; name it *.zip");
  return zip;
}

// --- 2. select the points -----------------------------------------------------------------------

ProgramInfo select_points(const Options& o, const ProgramRef& program) {
  ProgramInfo list = list_program(program, selection_args(o));
  if (list.points.empty())
    throw InputError("no point of " + program.path.filename().string() + " matches the selection (see --list)");
  return list;
}

// --- 3. prepare the folders ---------------------------------------------------------------------

namespace {

fs::path make_work_dir(const Options& o, const fs::path& zip) {
  std::error_code ec;
  if (!o.keep_dir.empty()) {
    fs::path dir = o.keep_dir;
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
      throw InputError("--keep-dir " + o.keep_dir + " exists and is not empty: name a new or empty folder");
    fs::create_directories(dir, ec);
    if (ec) throw InputError("cannot create --keep-dir " + o.keep_dir + ": " + ec.message());
    return fs::absolute(dir);
  }
  std::string templ = (zip.parent_path() / ("." + zip.filename().string() + ".pitot-XXXXXX")).string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw InputError("cannot create a working folder next to " + zip.string() + ": " + std::strerror(errno));
  return fs::path(buf.data());
}

}  // namespace

Layout prepare_folders(const Options& o, const Profiler& tool, const fs::path& zip) {
  const Layout layout{make_work_dir(o, zip)};
  fs::create_directories(layout.profile_dir());
  for (const auto& dir : tool.folders(layout)) fs::create_directories(dir);
  if (o.code_objects) fs::create_directories(layout.code_dir());
  return layout;
}

void remove_work(const Session& s) {
  std::error_code ec;
  if (!s.keep_work) fs::remove_all(s.layout.work, ec);
}

// --- 4. run the tool ----------------------------------------------------------------------------

void run_tool(Session& s) {
  s.version = s.tool.version(s.tool_exe);
  s.command = s.tool.command(s.o, s.tool_exe, program_command(s.o, s.program, s.layout), s.layout);
  std::cerr << fmt::format("pitot profile: {} point(s) of {} under {} ({})\n", s.list.points.size(),
                           s.program.path.filename().string(), s.tool.name(), s.version);
  ProcessSpec spec;
  spec.argv = s.command.argv;
  spec.env = s.command.env;
  spec.cwd = s.command.cwd;
  spec.stdout_path = s.layout.stdout_file();
  spec.stderr_path = s.layout.stderr_file();
  spec.timeout_seconds = s.o.timeout_seconds;
  spec.interrupt = &interrupted();
  {
    const CatchInterrupts catching;  // Ctrl-C ends the profiler; the package is still written
    s.end = run_process(spec);
  }
}

// --- 5. follow-ups ------------------------------------------------------------------------------

void run_followups(Session& s) {
  std::error_code ec;
  for (const auto& f : s.tool.followups(s.tool_exe, s.layout)) {
    if (!fs::exists(f.input, ec)) continue;
    ProcessSpec spec;
    spec.argv = f.argv;
    spec.stdout_path = f.output;
    spec.stderr_path = f.output.string() + ".stderr";
    spec.timeout_seconds = 600;
    const auto end = run_process(spec);
    if (!end.ok()) s.notes.push_back(fmt::format("{} failed: {}", join_command(f.argv), end.describe()));
  }
}

// --- 6. collect the artifacts -------------------------------------------------------------------

namespace {

void take(Session& s, Collected c) {
  s.artifacts.insert(s.artifacts.end(), c.artifacts.begin(), c.artifacts.end());
  for (auto& n : c.notes) s.notes.push_back(std::move(n));
  s.collected.summary += c.summary;
  s.collected.manifest.update(c.manifest);
}

// One stream: whole in the core of the zip when small, else its tail in the core and the whole
// as an optional artifact.
void add_stream(std::vector<Artifact>& list, const fs::path& file, const std::string& name, const std::string& what) {
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (ec) return;
  if (size <= kTailBytes) {
    list.push_back({name + ".txt", file, "stream", what + " (raw, profiler lines included)", kCore});
    return;
  }
  fs::path tail = file.parent_path() / (name + ".tail.txt");
  write_file(tail, read_tail(file, kTailBytes));
  list.push_back({name + ".tail.txt", tail, "stream", fmt::format("last {} of {}", format_bytes(kTailBytes), what), kCore});
  list.push_back({name + ".txt", file, "stream", what + " (raw, whole)", kRawStreams});
}

// The program's --json results, bounded (core/bounded_json.hpp), or null: none when the run
// failed before writing them, and a note when what it wrote cannot be read.
json read_results(const fs::path& file, json& notes) {
  std::string text;
  try {
    if (!read_file_bounded(file, text)) return nullptr;
    return parse_json_bounded(valid_utf8(text));
  } catch (const std::exception& e) {  // json::exception, or std::length_error past the bound
    notes.push_back(fmt::format("the program's results ({}) cannot be read: {}", file.filename().string(), e.what()));
    return nullptr;
  }
}

}  // namespace

void collect_artifacts(Session& s) {
  take(s, s.tool.collect(s.o, s.layout));
  if (s.o.code_objects) take(s, s.tool.code_objects(s.program.path, s.tool_exe, s.layout));
  s.results = read_results(s.layout.results_json(), s.notes);
  add_if_exists(s.artifacts, s.layout.results_json(), "results.json", "results",
                "the program's own results for the profiled points (pitot --json)", kCore);
  add_stream(s.artifacts, s.layout.stdout_file(), "stdout", "standard output of the profiler and program");
  add_stream(s.artifacts, s.layout.stderr_file(), "stderr", "standard error of the profiler and program");
  for (auto& a : s.artifacts) measure(a);
}

// --- 7. summarize -------------------------------------------------------------------------------

namespace {

// What the program reported, else what was selected.
json points_of(const json& results, const std::vector<PlannedPoint>& selected) {
  json points = json::array();
  if (results.is_object() && results.contains("points")) {
    for (const auto& p : results["points"]) {
      json q = {{"id", p.value("id", -1)}, {"name", p.value("name", "")}, {"status", p.value("status", "")}};
      if (p.contains("reason") && !p["reason"].is_null()) q["reason"] = p["reason"];
      if (p.contains("samples") && p["samples"].is_array() && !p["samples"].empty()) q["seconds"] = p["samples"][0];
      points.push_back(q);
    }
    return points;
  }
  for (const auto& p : selected) points.push_back({{"id", p.id}, {"name", p.name}, {"status", "not reported"}});
  return points;
}

Streams read_streams(const Layout& layout) {
  Streams s;
  std::size_t a = 0, b = 0;
  s.out_filtered = filter_noise(read_tail(layout.stdout_file(), kStreamReadBytes), &a);
  s.err_filtered = filter_noise(read_tail(layout.stderr_file(), kStreamReadBytes), &b);
  s.removed = a + b;
  return s;
}

}  // namespace

void summarize(Session& s) {
  s.points = points_of(s.results, s.list.points);
  s.streams = read_streams(s.layout);
  if (s.essential_missing()) s.notes.push_back(fmt::format("{} left no report or trace", s.tool.name()));
  if (s.end.stdout_cut + s.end.stderr_cut > 0)
    s.notes.push_back(fmt::format("the profiler wrote {} beyond the stream cap; the rest was not kept",
                                  format_bytes(s.end.stdout_cut + s.end.stderr_cut)));
}

namespace {

json system_facts(const json& results) {
  json s;
  for (const auto& [k, v] : host_facts()) s[k] = v;
  utsname u{};
  if (uname(&u) == 0) s["kernel"] = std::string(u.sysname) + " " + u.release;
  if (results.is_object() && results.contains("device")) s["device"] = results["device"];
  return s;
}

std::string program_name(const Session& s) { return s.list.program.empty() ? s.program.path.filename().string() : s.list.program; }

std::string describe_points(const json& points) {
  std::ostringstream out;
  for (const auto& p : points) {
    out << fmt::format("  {:>4}  {}", p.value("id", -1), p.value("name", "?"));
    std::string status = p.value("status", "");
    std::string reason = p.contains("reason") && p["reason"].is_string() ? p["reason"].get<std::string>() : "";
    if (!status.empty() && status != "ok") out << "  [" << status << (reason.empty() ? "" : ": " + reason) << "]";
    out << "\n";
  }
  return out.str();
}

json exit_json(const ProcessEnd& end) {
  return {{"code", end.exited ? json(end.code) : json(nullptr)},
          {"signal", end.exited ? json(nullptr) : json(end.signal)},
          {"timed_out", end.timed_out},
          {"interrupted", end.interrupted},
          {"description", end.describe()}};
}

json options_json(const Options& o) {
  return {{"filter", o.filter}, {"axis", o.axes}, {"ncu_set", o.ncu_set}, {"clock_control", o.clock_control}, {"code_objects", o.code_objects}, {"max_size_bytes", o.max_bytes}, {"timeout_seconds", o.timeout_seconds}, {"tool_args", o.tool_args}, {"program_args", o.program_args}};
}

}  // namespace

json manifest_json(const Session& s, const PackagePlan& plan, const fs::path* kept_dir) {
  json m;
  m["pitot_profile_version"] = 1;
  m["created"] = utc_now();
  m["program"] = {{"name", program_name(s)}, {"path", s.program.path.string()}};
  m["tool"] = {{"name", s.tool.name()}, {"path", s.tool_exe.string()}, {"version", s.version}};
  m["command"] = s.command.argv;
  json env = json::object();
  for (const auto& [k, v] : s.command.env) env[k] = v;
  m["environment"] = env;
  if (!s.command.cwd.empty()) m["working_directory"] = s.command.cwd.string();
  m["options"] = options_json(s.o);
  m["points"] = s.points;
  m["exit"] = exit_json(s.end);
  m["wall_seconds"] = {{"profiled_run", s.end.wall_seconds},
                       {"total", std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count()}};
  m["system"] = system_facts(s.results);
  m["noise_lines_filtered"] = s.streams.removed;
  m["artifacts"] = artifacts_json(plan.kept);
  m["dropped"] = dropped_json(plan.dropped);
  m["drop_order"] = {"code objects", "tool side data (ncu raw CSV, nsys SQLite)", "whole stdout/stderr (tails stay)",
                     "secondary summaries (ncu details, nsys stats, rocprofv3 CSV)",
                     "the report/trace itself: never; the full folder is kept on disk instead"};
  m["kept_folder"] = kept_dir ? json(kept_dir->string()) : json(nullptr);
  m["notes"] = s.notes;
  m.update(s.collected.manifest);
  return m;
}

std::string summary_text(const Session& s, const PackagePlan& plan, const fs::path* kept_dir) {
  std::ostringstream out;
  out << fmt::format("pitot profile of {} under {} ({})\n", program_name(s), s.tool.name(), s.version);
  out << "command: " << join_command(s.command.argv) << "\n";
  out << fmt::format("result: {} in {:.1f} s{}\n", s.end.describe(), s.end.wall_seconds, s.failed() ? "  << FAILED" : "");
  out << fmt::format("points ({}):\n{}", s.points.size(), describe_points(s.points));
  if (!s.collected.summary.empty()) out << "\n"
                                        << s.collected.summary;
  out << "\npackage: " << plan.kept.size() << " file(s)";
  if (!plan.dropped.empty()) {
    out << "; left out to fit " << format_bytes(s.o.max_bytes) << ":\n";
    for (const auto& d : plan.dropped) out << fmt::format("  {} ({})\n", d.artifact.name, format_bytes(d.artifact.bytes));
  } else {
    out << "\n";
  }
  if (kept_dir) out << "the full folder, report included, is kept at " << kept_dir->string() << "\n";
  for (const auto& n : s.notes) out << "note: " << n.get<std::string>() << "\n";
  const std::string err_tail = last_lines(s.streams.err_filtered, s.failed() ? 40 : 10);
  if (!err_tail.empty()) out << "\nstderr (profiler lines removed), last lines:\n"
                             << err_tail;
  if (s.failed()) {
    const std::string out_tail = last_lines(s.streams.out_filtered, 20);
    if (!out_tail.empty()) out << "\nstdout (profiler lines removed), last lines:\n"
                               << out_tail;
  }
  return out.str();
}

// --- 8. pack ------------------------------------------------------------------------------------

namespace {

// Where the full folder goes when the zip cannot hold the essentials: next to the zip.
fs::path keep_folder_for(const fs::path& zip) {
  fs::path base = zip.parent_path() / (zip.stem().string() + "-profile");
  fs::path p = base;
  std::error_code ec;
  for (int i = 2; fs::exists(p, ec); ++i) p = base.string() + "-" + std::to_string(i);
  return p;
}

// Room for the manifest and the summary, which are written after the plan.
std::uint64_t texts_reserve(const Session& s) {
  const PackagePlan everything{s.artifacts, {}, 0, true};
  return manifest_json(s, everything, nullptr).dump(2).size() + summary_text(s, everything, nullptr).size() +
         2 * entry_overhead("manifest.json") + 4096;
}

// The manifest and summary for `plan`, then the zip of them and the plan's files.
std::uint64_t write_package(const Session& s, const PackagePlan& plan, const fs::path* kept_dir, std::string& summary) {
  const fs::path manifest_file = s.layout.work / "manifest.json", summary_file = s.layout.work / "summary.txt";
  summary = summary_text(s, plan, kept_dir);
  write_file(manifest_file, manifest_json(s, plan, kept_dir).dump(2) + "\n");
  write_file(summary_file, summary);
  auto files = plan.kept;
  files.insert(files.begin(), Artifact{"summary.txt", summary_file, "summary", "this summary", kCore});
  files.insert(files.begin(), Artifact{"manifest.json", manifest_file, "manifest", "what ran and what is here", kCore});
  return write_zip(s.zip, files);
}

}  // namespace

Packed pack(Session& s) {
  Packed packed;
  std::uint64_t reserve = texts_reserve(s);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const PackagePlan plan = plan_package(s.artifacts, s.o.max_bytes, reserve);
    if (!plan.essential_fits && !packed.kept_dir) {
      // The essentials do not fit: the zip carries the core, the whole folder stays on disk.
      s.keep_work = true;
      packed.kept_dir = s.o.keep_dir.empty() ? keep_folder_for(s.zip) : s.layout.work;
    }
    packed.zip_bytes = write_package(s, plan, packed.kept_dir ? &*packed.kept_dir : nullptr, packed.summary);
    if (packed.zip_bytes <= s.o.max_bytes || !plan.essential_fits) break;
    reserve += packed.zip_bytes - s.o.max_bytes + 4096;  // the estimate was short: plan again with less room
  }
  if (packed.kept_dir && *packed.kept_dir != s.layout.work) {
    std::error_code ec;
    fs::rename(s.layout.work, *packed.kept_dir, ec);
    if (ec) packed.kept_dir = s.layout.work;  // could not move it; it stays where it is
  }
  return packed;
}

// --- 9. finish ----------------------------------------------------------------------------------

int finish(Session& s, const Packed& packed) {
  std::cout << packed.summary;
  std::cerr << fmt::format("pitot profile: wrote {} ({} of {} allowed)\n", s.zip.string(),
                           format_bytes(packed.zip_bytes), format_bytes(s.o.max_bytes));
  if (packed.kept_dir)
    std::cerr << fmt::format("pitot profile: the report does not fit in {}; the full folder is kept at {}\n",
                             format_bytes(s.o.max_bytes), packed.kept_dir->string());
  else if (!s.o.keep_dir.empty())
    std::cerr << "pitot profile: the working folder is kept at " << s.layout.work.string() << "\n";
  remove_work(s);
  if (s.failed()) {
    std::cerr << fmt::format("pitot profile: {} {}; see summary.txt and stderr.txt in the zip\n", s.tool.what_runs(),
                             s.end.describe());
    return kFailed;
  }
  return s.essential_missing() ? kFailed : kOk;
}

}  // namespace pitot::driver::profile

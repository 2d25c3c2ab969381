// pitot profile: runs a benchmark program's selected points once each under a profiler and hands
// back one zip under a size budget (docs/profile.md).
#include <atomic>
#include <chrono>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/common/command.hpp"
#include "driver/profile/noise.hpp"
#include "driver/profile/package.hpp"
#include "driver/profile/process.hpp"
#include "driver/profile/summary.hpp"
#include "driver/profile/tools.hpp"
#include "driver/profile/trace.hpp"
#include "output/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace pitot::driver::profile {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_profile_interrupt(int) { g_interrupted = true; }

constexpr std::uint64_t kTailBytes = 64 * 1024;  // stream tails that always go into the zip

std::string read_file(const fs::path& p, std::uint64_t max_bytes = ~0ull) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::string s;
  std::error_code ec;
  auto size = fs::file_size(p, ec);
  if (ec) return {};
  if (size > max_bytes) {
    in.seekg(static_cast<std::streamoff>(size - max_bytes));
    size = max_bytes;
  }
  s.resize(size);
  in.read(s.data(), static_cast<std::streamsize>(size));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

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

fs::path self_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

// PROGRAM as given: a path to an executable, or a name from <build-dir>/pitot-manifest.json.
fs::path resolve_program(const Options& o) {
  std::error_code ec;
  fs::path given = o.program;
  if (o.program.find('/') != std::string::npos || fs::is_regular_file(given, ec)) {
    if (!fs::is_regular_file(given, ec) || access(given.c_str(), X_OK) != 0)
      throw InputError("program " + o.program + " is not an executable file");
    return fs::absolute(given);
  }
  fs::path manifest = fs::path(o.build_dir) / "pitot-manifest.json";
  std::ifstream in(manifest);
  if (!in)
    throw InputError("program '" + o.program + "' is not a file here and there is no " + manifest.string() +
                     " to look it up in: give a path, or --build-dir of a pitot build");
  json j = json::parse(in, nullptr, false);
  std::vector<std::string> names;
  if (j.is_object() && j.contains("programs") && j["programs"].is_array()) {
    for (const auto& p : j["programs"]) {
      std::string name = p.value("name", "");
      names.push_back(name);
      if (name != o.program) continue;
      fs::path path = p.value("path", "");
      if (path.is_relative()) path = manifest.parent_path() / path;
      if (!fs::is_regular_file(path, ec))
        throw InputError("program " + name + " is listed in " + manifest.string() + " but not built (" +
                         path.string() + "): build it first");
      return fs::absolute(path);
    }
  }
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw InputError("no program named '" + o.program + "' in " + manifest.string() +
                   (known.empty() ? std::string() : " (it lists: " + known + ")"));
}

// A fresh working folder: --keep-dir, or a hidden one next to the zip.
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

// Where the full folder goes when the zip cannot hold the essentials: next to the zip.
fs::path keep_folder_for(const fs::path& zip) {
  fs::path base = zip.parent_path() / (zip.stem().string() + "-profile");
  fs::path p = base;
  std::error_code ec;
  for (int i = 2; fs::exists(p, ec); ++i) p = base.string() + "-" + std::to_string(i);
  return p;
}

json system_facts(const json& results) {
  json s;
  for (const auto& [k, v] : host_facts()) s[k] = v;
  utsname u{};
  if (uname(&u) == 0) s["kernel"] = std::string(u.sysname) + " " + u.release;
  if (results.is_object() && results.contains("device")) s["device"] = results["device"];
  return s;
}

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

struct Streams {
  std::string out_filtered, err_filtered;
  std::size_t removed = 0;
};

Streams read_streams(const Layout& layout) {
  Streams s;
  std::size_t a = 0, b = 0;
  s.out_filtered = filter_noise(read_file(layout.stdout_file(), 4u << 20), &a);
  s.err_filtered = filter_noise(read_file(layout.stderr_file(), 4u << 20), &b);
  s.removed = a + b;
  return s;
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
  write_file(tail, read_file(file, kTailBytes));
  list.push_back({name + ".tail.txt", tail, "stream", fmt::format("last {} of {}", format_bytes(kTailBytes), what), kCore});
  list.push_back({name + ".txt", file, "stream", what + " (raw, whole)", kRawStreams});
}

void add_if_exists(std::vector<Artifact>& list, const fs::path& file, const std::string& name, const std::string& kind,
                   const std::string& description, int rank, bool store = false) {
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) list.push_back({name, file, kind, description, rank, store});
}

fs::path find_cuobjdump(const fs::path& tool_exe) {
  fs::path p = find_on_path("cuobjdump");
  if (!p.empty()) return p;
  std::error_code ec;
  for (fs::path c : {fs::path("/usr/local/cuda/bin/cuobjdump"), tool_exe.parent_path() / "cuobjdump"})
    if (fs::is_regular_file(c, ec)) return c;
  return {};
}

int run(const Options& o) {
  const auto t0 = Clock::now();
  const fs::path program = resolve_program(o);
  const fs::path tool_exe = find_tool(o.tool, o.tool_path, self_executable());
  const std::string tname = tool_name(o.tool);
  std::error_code ec;

  fs::path zip = o.output.empty() ? fs::path(program.filename().string() + "-" + tname + ".zip") : fs::path(o.output);
  zip = fs::absolute(zip);
  if (!fs::is_directory(zip.parent_path(), ec))
    throw InputError("the folder of -o " + zip.string() + " does not exist");
  if (zip.extension() != ".zip") throw InputError("-o " + o.output + ": the package is a zip; name it *.zip");

  // The points, before anything runs under the profiler: a bad filter is a usage error.
  auto listed = run_captured(list_command(o, program), 120);
  if (!listed.end.ok())
    throw InputError(fmt::format("{} --list {}:\n{}", program.filename().string(), listed.end.describe(),
                                 last_lines(listed.err, 20)));
  json list = json::parse(listed.out, nullptr, false);
  if (list.is_discarded() || !list.contains("points"))
    throw InputError(program.string() + " did not answer --list --json with a pitot point list: is it a pitot benchmark program?");
  const json selected = list["points"];
  if (selected.empty()) throw InputError("no point of " + program.filename().string() + " matches the selection (see --list)");

  const Layout layout{make_work_dir(o, zip)};
  bool keep_work = !o.keep_dir.empty();
  fs::create_directories(layout.profile_dir());
  if (o.tool == Tool::Cupti) fs::create_directories(layout.profile_dir() / "cupti");
  if (o.code_objects) fs::create_directories(layout.code_dir());
  auto cleanup = [&] {
    if (!keep_work) fs::remove_all(layout.work, ec);
  };

  try {
    std::string version = "pitot-cupti";
    if (auto cmd = version_command(o.tool, tool_exe); !cmd.empty()) {
      auto v = run_captured(cmd, 60);
      version = version_from_output(v.out.empty() ? v.err : v.out);
      if (!v.end.ok() && version.empty()) version = "unknown (" + v.end.describe() + ")";
    }

    const auto program_argv = program_command(o, program, layout);
    const ToolCommand cmd = tool_command(o, tool_exe, program_argv, layout);
    std::cerr << fmt::format("pitot profile: {} point(s) of {} under {} ({})\n", selected.size(),
                             program.filename().string(), tname, version);

    ProcessSpec spec;
    spec.argv = cmd.argv;
    spec.env = cmd.env;
    spec.cwd = cmd.cwd;
    spec.stdout_path = layout.stdout_file();
    spec.stderr_path = layout.stderr_file();
    spec.timeout_seconds = o.timeout_seconds;
    spec.interrupt = &g_interrupted;
    auto old_int = std::signal(SIGINT, on_profile_interrupt);
    auto old_term = std::signal(SIGTERM, on_profile_interrupt);
    const ProcessEnd end = run_process(spec);
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);

    std::vector<Artifact> artifacts;
    json notes = json::array();
    std::string tool_summary;
    // Follow-ups turn the report into text; each is optional and may fail on its own.
    for (const auto& f : followup_commands(o.tool, tool_exe, layout)) {
      const fs::path report = o.tool == Tool::Ncu ? layout.profile_dir() / "report.ncu-rep"
                                                  : layout.profile_dir() / "report.nsys-rep";
      if (!fs::exists(report, ec)) break;
      ProcessSpec fs_spec;
      fs_spec.argv = f.argv;
      fs_spec.stdout_path = f.output;
      fs_spec.stderr_path = f.output.string() + ".stderr";
      fs_spec.timeout_seconds = 600;
      auto fe = run_process(fs_spec);
      if (!fe.ok()) notes.push_back(fmt::format("{} failed: {}", join_command(f.argv), fe.describe()));
    }

    TraceStats trace;
    switch (o.tool) {
      case Tool::Ncu: {
        add_if_exists(artifacts, layout.profile_dir() / "report.ncu-rep", "profile/report.ncu-rep", "report",
                      "Nsight Compute report: open with ncu-ui or `ncu --import`", kEssential);
        add_if_exists(artifacts, layout.profile_dir() / "ncu-details.txt", "profile/ncu-details.txt", "summary",
                      "ncu details page: section tables per kernel", kSummaryData);
        add_if_exists(artifacts, layout.profile_dir() / "ncu-raw.csv", "profile/ncu-raw.csv", "summary",
                      "ncu raw page: every metric per kernel (CSV)", kToolSideData);
        tool_summary = ncu_kernel_table(read_file(layout.profile_dir() / "ncu-raw.csv", 64u << 20));
        if (tool_summary.empty() && fs::exists(layout.profile_dir() / "report.ncu-rep", ec))
          tool_summary = "(ncu profiled no kernel inside a pitot range)\n";
        break;
      }
      case Tool::Nsys: {
        add_if_exists(artifacts, layout.profile_dir() / "report.nsys-rep", "profile/report.nsys-rep", "report",
                      "Nsight Systems report: open with nsys-ui", kEssential);
        for (const auto& csv : files_with_suffix(layout.profile_dir(), ".csv")) {
          add_if_exists(artifacts, csv, "profile/" + csv.filename().string(), "summary", "nsys stats report (CSV)",
                        kSummaryData);
          if (csv.filename().string().find("cuda_gpu_kern_sum") != std::string::npos) tool_summary += csv_head(csv);
        }
        add_if_exists(artifacts, layout.profile_dir() / "report.sqlite", "profile/report.sqlite", "export",
                      "nsys SQLite export (made by nsys stats; can be remade from the report)", kToolSideData);
        break;
      }
      case Tool::Cupti: {
        auto parts = files_with_suffix(layout.profile_dir() / "cupti", ".json.gz");
        if (!parts.empty()) {
          const fs::path merged = layout.profile_dir() / "trace.json.gz";
          trace = merge_cupti_traces(parts, merged);
          add_if_exists(artifacts, merged, "profile/trace.json.gz", "trace",
                        fmt::format("CUPTI trace of {} process(es), Chrome trace JSON (gzip): open in "
                                    "https://ui.perfetto.dev or chrome://tracing",
                                    trace.processes),
                        kEssential, true);
          tool_summary = cupti_point_table(trace);
          if (trace.broken_lines > 0)
            notes.push_back(fmt::format("{} incomplete trace line(s) skipped (a process ended before its trace was "
                                        "closed)", trace.broken_lines));
          if (trace.dropped_records > 0)
            notes.push_back(fmt::format("CUPTI reported {} activity record(s) lost", trace.dropped_records));
        } else {
          notes.push_back("the CUPTI tracer wrote no trace: did the program use CUDA? (stderr shows pitot-cupti errors)");
        }
        break;
      }
      case Tool::Rocprofv3: {
        auto traces = files_with_suffix(layout.profile_dir() / "rocprof", ".pftrace");
        if (!traces.empty()) {
          const fs::path merged = layout.profile_dir() / "trace.pftrace";
          merge_perfetto(traces, merged);
          add_if_exists(artifacts, merged, "profile/trace.pftrace", "trace",
                        fmt::format("Perfetto trace of {} process(es), concatenated: open in https://ui.perfetto.dev",
                                    traces.size()),
                        kEssential);
        }
        for (const auto& csv : files_with_suffix(layout.profile_dir() / "rocprof", ".csv")) {
          auto rel = fs::relative(csv, layout.profile_dir() / "rocprof", ec).string();
          add_if_exists(artifacts, csv, "profile/rocprof/" + rel, "summary", "rocprofv3 CSV", kSummaryData);
          if (csv.filename().string().find("kernel_stats") != std::string::npos) tool_summary += csv_head(csv);
        }
        break;
      }
    }

    if (o.code_objects) {
      if (o.tool == Tool::Rocprofv3) {
        for (const auto& f : fs::recursive_directory_iterator(layout.code_dir(), ec))
          if (f.is_regular_file(ec))
            add_if_exists(artifacts, f.path(), "code-objects/" + fs::relative(f.path(), layout.code_dir(), ec).string(),
                          "code-object", "HIP code object (GPU_DUMP_CODE_OBJECT=1)", kCodeObjects);
      } else if (fs::path dump = find_cuobjdump(tool_exe); dump.empty()) {
        notes.push_back("--code-objects: cuobjdump not found on PATH or in /usr/local/cuda/bin; no SASS/PTX listing");
      } else {
        for (const char* what : {"sass", "ptx"}) {
          ProcessSpec d;
          d.argv = {dump.string(), std::string("-") + what, program.string()};
          d.stdout_path = layout.code_dir() / (std::string(what) + ".txt");
          d.stderr_path = layout.code_dir() / (std::string(what) + ".stderr");
          d.timeout_seconds = 300;
          auto de = run_process(d);
          if (!de.ok()) notes.push_back(fmt::format("cuobjdump -{} {}: {}", what, program.filename().string(), de.describe()));
          add_if_exists(artifacts, d.stdout_path, std::string("code-objects/") + what + ".txt", "code-object",
                        fmt::format("cuobjdump -{} of the program", what), kCodeObjects);
        }
      }
    }

    json results = json::parse(read_file(layout.results_json()), nullptr, false);
    if (results.is_discarded()) results = nullptr;
    add_if_exists(artifacts, layout.results_json(), "results.json", "results",
                  "the program's own results for the profiled points (pitot --json)", kCore);
    add_stream(artifacts, layout.stdout_file(), "stdout", "standard output of the profiler and program");
    add_stream(artifacts, layout.stderr_file(), "stderr", "standard error of the profiler and program");
    for (auto& a : artifacts) measure(a);

    // Points: what the program reported, else what was selected.
    json points = json::array();
    if (results.is_object() && results.contains("points")) {
      for (const auto& p : results["points"]) {
        json q = {{"id", p.value("id", -1)}, {"name", p.value("name", "")}, {"status", p.value("status", "")}};
        if (p.contains("reason") && !p["reason"].is_null()) q["reason"] = p["reason"];
        if (p.contains("samples") && p["samples"].is_array() && !p["samples"].empty()) q["seconds"] = p["samples"][0];
        points.push_back(q);
      }
    } else {
      for (const auto& p : selected)
        points.push_back({{"id", p.value("id", -1)}, {"name", p.value("name", "")}, {"status", "not reported"}});
    }
    const Streams streams = read_streams(layout);
    const bool failed = !end.ok();
    const bool essential_missing =
        std::none_of(artifacts.begin(), artifacts.end(), [](const Artifact& a) { return a.rank == kEssential; });
    if (essential_missing) notes.push_back(fmt::format("{} left no report or trace", tname));
    if (end.stdout_cut + end.stderr_cut > 0)
      notes.push_back(fmt::format("the profiler wrote {} beyond the stream cap; the rest was not kept",
                                  format_bytes(end.stdout_cut + end.stderr_cut)));

    auto compose = [&](const PackagePlan& plan, const fs::path* kept_dir) {
      json m;
      m["pitot_profile_version"] = 1;
      m["created"] = utc_now();
      m["program"] = {{"name", list.value("program", program.filename().string())}, {"path", program.string()}};
      m["tool"] = {{"name", tname}, {"path", tool_exe.string()}, {"version", version}};
      m["command"] = cmd.argv;
      json env = json::object();
      for (const auto& [k, v] : cmd.env) env[k] = v;
      m["environment"] = env;
      if (!cmd.cwd.empty()) m["working_directory"] = cmd.cwd.string();
      m["options"] = {{"filter", o.filter},         {"axis", o.axes},           {"ncu_set", o.ncu_set},
                      {"clock_control", o.clock_control}, {"code_objects", o.code_objects},
                      {"max_size_bytes", o.max_bytes}, {"timeout_seconds", o.timeout_seconds},
                      {"tool_args", o.tool_args},   {"program_args", o.program_args}};
      m["points"] = points;
      m["exit"] = {{"code", end.exited ? json(end.code) : json(nullptr)},
                   {"signal", end.exited ? json(nullptr) : json(end.signal)},
                   {"timed_out", end.timed_out},
                   {"interrupted", end.interrupted},
                   {"description", end.describe()}};
      m["wall_seconds"] = {{"profiled_run", end.wall_seconds},
                           {"total", std::chrono::duration<double>(Clock::now() - t0).count()}};
      m["system"] = system_facts(results);
      m["noise_lines_filtered"] = streams.removed;
      m["artifacts"] = artifacts_json(plan.kept);
      m["dropped"] = dropped_json(plan.dropped);
      m["drop_order"] = {"code objects", "tool side data (ncu raw CSV, nsys SQLite)", "whole stdout/stderr (tails stay)",
                         "secondary summaries (ncu details, nsys stats, rocprofv3 CSV)",
                         "the report/trace itself: never; the full folder is kept on disk instead"};
      m["kept_folder"] = kept_dir ? json(kept_dir->string()) : json(nullptr);
      m["notes"] = notes;
      if (o.tool == Tool::Cupti)
        m["trace"] = {{"processes", trace.processes}, {"events", trace.events},   {"kernels", trace.kernels},
                      {"memcpys", trace.memcpys},     {"memsets", trace.memsets}, {"api_calls", trace.api_calls},
                      {"nvtx_ranges", trace.ranges}};

      std::ostringstream s;
      s << fmt::format("pitot profile of {} under {} ({})\n", m["program"]["name"].get<std::string>(), tname, version);
      s << "command: " << join_command(cmd.argv) << "\n";
      s << fmt::format("result: {} in {:.1f} s{}\n", end.describe(), end.wall_seconds, failed ? "  << FAILED" : "");
      s << fmt::format("points ({}):\n{}", points.size(), describe_points(points));
      if (!tool_summary.empty()) s << "\n" << tool_summary;
      s << "\npackage: " << plan.kept.size() << " file(s)";
      if (!plan.dropped.empty()) {
        s << "; left out to fit " << format_bytes(o.max_bytes) << ":\n";
        for (const auto& d : plan.dropped) s << fmt::format("  {} ({})\n", d.artifact.name, format_bytes(d.artifact.bytes));
      } else {
        s << "\n";
      }
      if (kept_dir) s << "the full folder, report included, is kept at " << kept_dir->string() << "\n";
      for (const auto& n : notes) s << "note: " << n.get<std::string>() << "\n";
      const std::string err_tail = last_lines(streams.err_filtered, failed ? 40 : 10);
      if (!err_tail.empty()) s << "\nstderr (profiler lines removed), last lines:\n" << err_tail;
      if (failed) {
        const std::string out_tail = last_lines(streams.out_filtered, 20);
        if (!out_tail.empty()) s << "\nstdout (profiler lines removed), last lines:\n" << out_tail;
      }
      return std::make_pair(m, s.str());
    };

    // Plan with room for the manifest and summary, write, and re-plan if the real zip is larger.
    const fs::path manifest_file = layout.work / "manifest.json", summary_file = layout.work / "summary.txt";
    std::uint64_t reserve = 0;
    {
      auto [m, s] = compose(PackagePlan{artifacts, {}, 0, true}, nullptr);
      reserve = m.dump(2).size() + s.size() + 2 * entry_overhead("manifest.json") + 4096;
    }
    PackagePlan plan;
    std::uint64_t zip_bytes = 0;
    std::optional<fs::path> kept_dir;
    for (int attempt = 0; attempt < 8; ++attempt) {
      plan = plan_package(artifacts, o.max_bytes, reserve);
      if (!plan.essential_fits && !kept_dir) {
        // The essentials do not fit: the zip carries the core, the whole folder stays on disk.
        keep_work = true;
        kept_dir = o.keep_dir.empty() ? keep_folder_for(zip) : layout.work;
      }
      auto [m, s] = compose(plan, kept_dir ? &*kept_dir : nullptr);
      write_file(manifest_file, m.dump(2) + "\n");
      write_file(summary_file, s);
      auto files = plan.kept;
      files.insert(files.begin(), Artifact{"summary.txt", summary_file, "summary", "this summary", kCore});
      files.insert(files.begin(), Artifact{"manifest.json", manifest_file, "manifest", "what ran and what is here", kCore});
      zip_bytes = write_zip(zip, files);
      if (zip_bytes <= o.max_bytes || !plan.essential_fits) break;
      reserve += zip_bytes - o.max_bytes + 4096;  // the estimate was short: plan again with less room
    }
    if (kept_dir && *kept_dir != layout.work) {
      fs::rename(layout.work, *kept_dir, ec);
      if (ec) kept_dir = layout.work;  // could not move it; it stays where it is
    }
    const fs::path final_summary = kept_dir ? *kept_dir / "summary.txt" : summary_file;

    // What the user reads: the summary, and the zip's place.
    std::cout << read_file(final_summary);
    std::cerr << fmt::format("pitot profile: wrote {} ({} of {} allowed)\n", zip.string(), format_bytes(zip_bytes),
                             format_bytes(o.max_bytes));
    if (kept_dir)
      std::cerr << fmt::format("pitot profile: the report does not fit in {}; the full folder is kept at {}\n",
                               format_bytes(o.max_bytes), kept_dir->string());
    else if (!o.keep_dir.empty())
      std::cerr << "pitot profile: the working folder is kept at " << layout.work.string() << "\n";
    cleanup();
    if (failed) {
      // Under cupti the process is the program itself.
      std::cerr << fmt::format("pitot profile: {} {}; see summary.txt and stderr.txt in the zip\n",
                               o.tool == Tool::Cupti ? "the program" : tname, end.describe());
      return kFailed;
    }
    if (essential_missing) return kFailed;
    return kOk;
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace

int run_profile_command(const Options& o) {
  try {
    return run(o);
  } catch (const InputError& e) {
    std::cerr << "pitot profile: " << e.what() << "\n";
    return kUsage;
  } catch (const ToolError& e) {
    std::cerr << "pitot profile: " << e.what() << "\n";
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "pitot profile: " << e.what() << "\n";
    return kFailed;
  }
}

namespace {

void setup_profile(CLI::App& root) {
  auto o = std::make_shared<profile::Options>();
  auto tool = std::make_shared<std::string>();
  auto max_size = std::make_shared<std::string>("8MB");
  CLI::App* cmd = root.add_subcommand(
      "profile", "Run a program's selected points once each under a profiler; pack traces and a report into one zip");
  cmd->add_option("program", o->program, "Benchmark program: a path, or a name from <build-dir>/pitot-manifest.json")
      ->required();
  cmd->add_option("program_args", o->program_args, "Arguments for the program, after --");
  cmd->add_option("--tool", *tool, "Profiler: ncu, nsys, cupti (pitot's own CUPTI tracer) or rocprofv3")
      ->required()
      ->check(CLI::IsMember({"ncu", "nsys", "cupti", "rocprofv3"}));
  cmd->add_option("--filter", o->filter, "Profile only points whose name matches this regex");
  cmd->add_option("--axis", o->axes, "Override an axis: name=v1,v2 or benchmark:name=v1,v2 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", o->output, "The zip to write (default: <program>-<tool>.zip)");
  cmd->add_option("--max-size", *max_size, "Size budget of the zip, e.g. 8MB, 25MB, 2MiB")->capture_default_str();
  cmd->add_option("--tool-path", o->tool_path, "The profiler's executable (or the tracer library for cupti), or its folder");
  cmd->add_option("--ncu-set", o->ncu_set, "ncu section set (basic, detailed, full, roofline, ...)")->capture_default_str();
  cmd->add_option("--clock-control", o->clock_control, "ncu clock control: base locks clocks, none leaves them")
      ->check(CLI::IsMember({"base", "none"}))
      ->capture_default_str();
  cmd->add_flag("--code-objects", o->code_objects, "Add SASS and PTX (cuobjdump) or the HIP code objects");
  cmd->add_flag("--hsa-trace", o->hsa_trace, "rocprofv3: add the HSA trace (large)");
  cmd->add_option("--tool-arg", o->tool_args, "An extra option for the profiler, e.g. --tool-arg=--cache-control=none (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--keep-dir", o->keep_dir, "Work in this new folder and keep it (all files, nothing dropped)");
  cmd->add_option("--timeout", o->timeout_seconds, "Seconds before the profiled run is stopped (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--build-dir", o->build_dir, "Build folder whose pitot-manifest.json names the programs")
      ->capture_default_str();
  cmd->callback([o, tool, max_size] {
    o->tool = *profile::parse_tool(*tool);
    try {
      o->max_bytes = profile::parse_size(*max_size);
    } catch (const std::invalid_argument& e) {
      std::cerr << "pitot profile: --max-size " << e.what() << "\n";
      exit_code() = kUsage;
      return;
    }
    exit_code() = profile::run_profile_command(*o);
  });
}

}  // namespace

void add_profile_command(CLI::App& root) { setup_profile(root); }

}  // namespace pitot::driver::profile

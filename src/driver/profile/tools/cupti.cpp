// pitot's own CUPTI tracer (src/cupti_tracer): no profiler process; the CUDA driver loads the library into
// the program. Each process writes a trace; they are merged into one Chrome trace, and the summary
// is per point, read from it.
#include <cstdlib>

#include <fmt/format.h>

#include "driver/profile/profiler.hpp"
#include "driver/profile/summary.hpp"
#include "driver/profile/trace.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::profile {

namespace {

constexpr const char* kLibrary = "libpitot_cupti.so";

class Cupti final : public Profiler {
 public:
  std::string name() const override { return "cupti"; }
  std::string what_runs() const override { return "the program"; }

  // The tracer library: --tool-path, an explicit variable, then next to pitot in the build tree or install.
  fs::path find(const std::string& tool_path, const fs::path& self) const override {
    if (!tool_path.empty()) return from_tool_path("cupti", kLibrary, tool_path, false);
    std::vector<fs::path> candidates;
    // PITOT_CUPTI_TRACER: pitot's tracer. Not PITOT_CUPTI_LIB, which names NVIDIA's libcupti for
    // the kernel clock; PITOT_CUPTI_LIBRARY, this variable's first name, is still read.
    for (const char* name : {"PITOT_CUPTI_TRACER", "PITOT_CUPTI_LIBRARY"})
      if (const char* env = std::getenv(name); env && *env) candidates.emplace_back(env);
    const fs::path dir = self.parent_path();
    candidates.push_back(dir / kLibrary);
    candidates.push_back(dir.parent_path() / "lib" / "pitot" / kLibrary);  // bin/pitot -> lib/pitot/
    candidates.push_back(dir.parent_path() / "lib" / kLibrary);
    candidates.push_back(dir.parent_path() / "cupti_tracer" / kLibrary);  // build tree: src/driver/pitot -> src/cupti_tracer/
    std::error_code ec;
    for (const auto& c : candidates)
      if (fs::is_regular_file(c, ec)) return fs::absolute(c);
    std::string looked;
    for (const auto& c : candidates) looked += "\n  " + c.string();
    throw ToolError(std::string("cupti: pitot's CUPTI tracer (") + kLibrary +
                    ") was not found; it is built with the CUDA backend. "
                    "Give its path with --tool-path or PITOT_CUPTI_TRACER. Looked in:" +
                    looked);
  }

  std::string version(const fs::path&) const override { return "pitot-cupti"; }

  std::vector<fs::path> folders(const Layout& layout) const override { return {trace_dir(layout)}; }

  // The tracer rides in the program itself: the CUDA driver loads it at cuInit.
  ToolCommand command(const Options&, const fs::path& exe, const std::vector<std::string>& program_argv,
                      const Layout& layout) const override {
    ToolCommand c;
    c.argv = program_argv;
    c.env = {{"CUDA_INJECTION64_PATH", exe.string()},
             {"PITOT_CUPTI_DIR", trace_dir(layout).string()},
             {"PITOT_CUPTI_CAPTURE", "profiler-api"}};
    return c;
  }

  Collected collect(const Options&, const Layout& layout) const override {
    Collected c;
    const auto parts = files_with_suffix(trace_dir(layout), ".json.gz");
    if (parts.empty()) {
      c.notes.push_back("the CUPTI tracer wrote no trace: did the program use CUDA? (stderr shows pitot-cupti errors)");
      return c;
    }
    const fs::path merged = layout.profile_dir() / "trace.json.gz";
    const TraceStats trace = merge_cupti_traces(parts, merged);
    add_if_exists(c.artifacts, merged, "profile/trace.json.gz", "trace",
                  fmt::format("CUPTI trace of {} process(es), Chrome trace JSON (gzip): open in "
                              "https://ui.perfetto.dev or chrome://tracing",
                              trace.processes),
                  kEssential, true);
    c.summary = cupti_point_table(trace);
    if (trace.broken_lines > 0)
      c.notes.push_back(fmt::format("{} incomplete trace line(s) skipped (a process ended before its trace was closed)",
                                    trace.broken_lines));
    if (trace.dropped_records > 0)
      c.notes.push_back(fmt::format("CUPTI reported {} activity record(s) lost", trace.dropped_records));
    c.manifest["trace"] = {{"processes", trace.processes}, {"events", trace.events}, {"kernels", trace.kernels}, {"memcpys", trace.memcpys}, {"memsets", trace.memsets}, {"api_calls", trace.api_calls}, {"nvtx_ranges", trace.ranges}};
    return c;
  }

 private:
  static fs::path trace_dir(const Layout& layout) { return layout.profile_dir() / "cupti"; }
};

}  // namespace

const Profiler& cupti_profiler() {
  static const Cupti cupti;
  return cupti;
}

}  // namespace pitot::driver::profile

// rocprofv3 (ROCm): kernel, HIP, marker and copy traces as Perfetto (concatenated into one) and
// CSV; the summary is the head of the kernel statistics. With --code-objects the HIP runtime dumps
// the code objects into the folder it runs in.
#include <fmt/format.h>

#include "driver/profile/profiler.hpp"
#include "driver/profile/summary.hpp"
#include "driver/profile/trace.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::profile {

namespace {

class Rocprofv3 final : public Profiler {
 public:
  std::string name() const override { return "rocprofv3"; }

  fs::path find(const std::string& tool_path, const fs::path&) const override {
    return find_executable("rocprofv3", "ROCm; often in /opt/rocm/bin", tool_path);
  }

  ToolCommand command(const Options& o, const fs::path& exe, const std::vector<std::string>& program_argv,
                      const Layout& layout) const override {
    ToolCommand c;
    c.argv = {exe.string(), "--kernel-trace", "--hip-trace", "--marker-trace", "--memory-copy-trace",
              "--scratch-memory-trace"};
    if (o.hsa_trace) c.argv.push_back("--hsa-trace");
    c.argv.insert(c.argv.end(), {"--output-format", "pftrace", "csv",  // ROCm 7 would default to SQLite
                                 "--output-directory", rocprof_dir(layout).string(),
                                 "--output-file", "%pid%"});  // one set of files per process
    c.argv.insert(c.argv.end(), o.tool_args.begin(), o.tool_args.end());
    c.argv.push_back("--");
    c.argv.insert(c.argv.end(), program_argv.begin(), program_argv.end());
    if (o.code_objects) {
      c.env.emplace_back("GPU_DUMP_CODE_OBJECT", "1");
      c.cwd = layout.code_dir();  // HIP writes code objects into its working directory
    }
    return c;
  }

  Collected collect(const Options&, const Layout& layout) const override {
    Collected c;
    const fs::path dir = rocprof_dir(layout);
    if (auto traces = files_with_suffix(dir, ".pftrace"); !traces.empty()) {
      const fs::path merged = layout.profile_dir() / "trace.pftrace";
      merge_perfetto(traces, merged);
      add_if_exists(c.artifacts, merged, "profile/trace.pftrace", "trace",
                    fmt::format("Perfetto trace of {} process(es), concatenated: open in https://ui.perfetto.dev",
                                traces.size()),
                    kEssential);
    }
    std::error_code ec;
    for (const auto& csv : files_with_suffix(dir, ".csv")) {
      add_if_exists(c.artifacts, csv, "profile/rocprof/" + fs::relative(csv, dir, ec).string(), "summary",
                    "rocprofv3 CSV", kSummaryData);
      if (csv.filename().string().find("kernel_stats") != std::string::npos) c.summary += csv_head(csv);
    }
    return c;
  }

  // What the HIP runtime dumped (GPU_DUMP_CODE_OBJECT=1, see command).
  Collected code_objects(const fs::path&, const fs::path&, const Layout& layout) const override {
    Collected c;
    std::error_code ec;
    for (const auto& f : fs::recursive_directory_iterator(layout.code_dir(), ec))
      if (f.is_regular_file(ec))
        add_if_exists(c.artifacts, f.path(), "code-objects/" + fs::relative(f.path(), layout.code_dir(), ec).string(),
                      "code-object", "HIP code object (GPU_DUMP_CODE_OBJECT=1)", kCodeObjects);
    return c;
  }

 private:
  static fs::path rocprof_dir(const Layout& layout) { return layout.profile_dir() / "rocprof"; }
};

}  // namespace

const Profiler& rocprofv3_profiler() {
  static const Rocprofv3 rocprofv3;
  return rocprofv3;
}

}  // namespace pitot::driver::profile

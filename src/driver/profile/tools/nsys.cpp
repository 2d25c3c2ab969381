// Nsight Systems (nsys): one report from the first point's cudaProfilerStart to the end, then
// `nsys stats` as CSV; the summary is the head of the kernel table.
#include "driver/profile/profiler.hpp"
#include "driver/profile/summary.hpp"
#include "driver/profile/trace.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::profile {

namespace {

class Nsys final : public Profiler {
 public:
  std::string name() const override { return "nsys"; }

  fs::path find(const std::string& tool_path, const fs::path&) const override {
    return find_executable("nsys", "Nsight Systems", tool_path);
  }

  ToolCommand command(const Options& o, const fs::path& exe, const std::vector<std::string>& program_argv,
                      const Layout& layout) const override {
    ToolCommand c;
    c.argv = {exe.string(), "profile",
              "--trace", "cuda,nvtx,osrt",
              "--capture-range", "cudaProfilerApi",
              "--capture-range-end", "none",  // one report from the first point to the end
              "--force-overwrite", "true",
              "--output", (layout.profile_dir() / "report").string()};
    c.argv.insert(c.argv.end(), o.tool_args.begin(), o.tool_args.end());
    c.argv.push_back("--");
    c.argv.insert(c.argv.end(), program_argv.begin(), program_argv.end());
    return c;
  }

  std::vector<Followup> followups(const fs::path& exe, const Layout& layout) const override {
    const fs::path dir = layout.profile_dir(), report = dir / "report.nsys-rep";
    return {{{exe.string(), "stats", "--force-export", "true", "--format", "csv",
              "--report", "cuda_gpu_kern_sum", "--report", "cuda_gpu_mem_time_sum",
              "--report", "cuda_api_sum", "--report", "nvtx_sum",
              "--output", (dir / "stats").string(), report.string()},
             report,
             dir / "nsys-stats.log",
             "nsys stats (CSV per report)"}};
  }

  Collected collect(const Options&, const Layout& layout) const override {
    const fs::path dir = layout.profile_dir();
    Collected c;
    add_if_exists(c.artifacts, dir / "report.nsys-rep", "profile/report.nsys-rep", "report",
                  "Nsight Systems report: open with nsys-ui", kEssential);
    for (const auto& csv : files_with_suffix(dir, ".csv")) {
      add_if_exists(c.artifacts, csv, "profile/" + csv.filename().string(), "summary", "nsys stats report (CSV)",
                    kSummaryData);
      if (csv.filename().string().find("cuda_gpu_kern_sum") != std::string::npos) c.summary += csv_head(csv);
    }
    add_if_exists(c.artifacts, dir / "report.sqlite", "profile/report.sqlite", "export",
                  "nsys SQLite export (made by nsys stats; can be remade from the report)", kToolSideData);
    return c;
  }
};

}  // namespace

const Profiler& nsys_profiler() {
  static const Nsys nsys;
  return nsys;
}

}  // namespace pitot::driver::profile

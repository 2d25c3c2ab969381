// Nsight Compute (ncu): every kernel inside a pitot range, then the details page and the raw
// metrics as text; the summary is one line per kernel from the raw CSV.
#include <fmt/format.h>

#include "driver/common/files.hpp"
#include "driver/profile/profiler.hpp"
#include "driver/profile/summary.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::profile {

namespace {

class Ncu final : public Profiler {
 public:
  std::string name() const override { return "ncu"; }

  fs::path find(const std::string& tool_path, const fs::path&) const override {
    return find_executable("ncu", "Nsight Compute; often in /usr/local/cuda/bin", tool_path);
  }

  ToolCommand command(const Options& o, const fs::path& exe, const std::vector<std::string>& program_argv,
                      const Layout& layout) const override {
    ToolCommand c;
    c.argv = {exe.string(),
              "--target-processes", "all",                  // child processes too
              "--profile-from-start", "off",                // nothing before the first cudaProfilerStart
              "--nvtx", "--nvtx-include", kNcuNvtxInclude,  // only launches inside pitot's point ranges
              "--set", o.ncu_set,
              "--clock-control", o.clock_control,
              "--force-overwrite",
              "--export", (layout.profile_dir() / "report").string()};
    c.argv.insert(c.argv.end(), o.tool_args.begin(), o.tool_args.end());
    c.argv.push_back("--");
    c.argv.insert(c.argv.end(), program_argv.begin(), program_argv.end());
    return c;
  }

  std::vector<Followup> followups(const fs::path& exe, const Layout& layout) const override {
    const fs::path dir = layout.profile_dir(), report = dir / "report.ncu-rep";
    return {{{exe.string(), "--import", report.string(), "--page", "details", "--print-details", "body"},
             report,
             dir / "ncu-details.txt",
             "ncu details page (section tables per kernel)"},
            {{exe.string(), "--import", report.string(), "--page", "raw", "--csv"},
             report,
             dir / "ncu-raw.csv",
             "ncu raw metrics, one row per kernel (CSV)"}};
  }

  Collected collect(const Options&, const Layout& layout) const override {
    const fs::path dir = layout.profile_dir();
    Collected c;
    add_if_exists(c.artifacts, dir / "report.ncu-rep", "profile/report.ncu-rep", "report",
                  "Nsight Compute report: open with ncu-ui or `ncu --import`", kEssential);
    add_if_exists(c.artifacts, dir / "ncu-details.txt", "profile/ncu-details.txt", "summary",
                  "ncu details page: section tables per kernel", kSummaryData);
    add_if_exists(c.artifacts, dir / "ncu-raw.csv", "profile/ncu-raw.csv", "summary",
                  "ncu raw page: every metric per kernel (CSV)", kToolSideData);
    c.summary = ncu_kernel_table(read_tail(dir / "ncu-raw.csv", 64u << 20));
    std::error_code ec;
    if (c.summary.empty() && fs::exists(dir / "report.ncu-rep", ec))
      c.summary = "(ncu profiled no kernel inside a pitot range)\n";
    return c;
  }
};

}  // namespace

const Profiler& ncu_profiler() {
  static const Ncu ncu;
  return ncu;
}

}  // namespace pitot::driver::profile

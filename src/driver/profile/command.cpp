// pitot profile: runs a benchmark program's selected points once each under a profiler and hands
// back one zip under a size budget (docs/profile.md). The command line, and the run as its steps
// (steps.hpp); the profiler is a plug-in (profiler.hpp).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "driver/common/command.hpp"
#include "driver/common/errors.hpp"
#include "driver/profile/options.hpp"
#include "driver/profile/profiler.hpp"
#include "driver/profile/steps.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::profile {

namespace {

fs::path self_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

int run(const Options& o) {
  Session s{o, *o.tool};
  s.program = resolve_program(o);
  s.tool_exe = s.tool.find(o.tool_path, self_executable());
  s.zip = zip_path(o, s.tool, s.program);
  s.list = select_points(o, s.program);
  s.layout = prepare_folders(o, s.tool, s.zip);
  s.keep_work = !o.keep_dir.empty();
  try {
    run_tool(s);
    run_followups(s);
    collect_artifacts(s);
    summarize(s);
    return finish(s, pack(s));
  } catch (...) {
    remove_work(s);
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
      ->check(CLI::IsMember(profiler_names()));
  add_point_options(cmd, o->filter, o->axes, "Profile only");
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
  add_build_dir_option(cmd, o->build_dir);
  cmd->callback([o, tool, max_size] {
    o->tool = profiler_named(*tool);
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

// pitot list: every benchmark of the suite, its axes and point count.
#include <cstdio>

#include <fmt/format.h>

#include "driver/common/command.hpp"
#include "driver/common/manifest.hpp"

using nlohmann::json;

namespace pitot::driver::run {
namespace {

struct ListOptions {
  std::vector<std::string> inputs;
  std::string build_dir = ".";
  std::string filter;
  std::vector<std::string> axes;
  bool json = false;
};

int list_command(const ListOptions& o) {
  auto refs = find_programs(o.inputs, o.build_dir);
  std::vector<std::string> args;
  for (const auto& a : o.axes) args.insert(args.end(), {"--axis", a});
  if (!o.filter.empty()) args.insert(args.end(), {"--filter", o.filter});
  std::vector<ProgramInfo> programs;
  std::vector<ProgramFailure> failed;  // each said on stderr; the exit code is 1
  for (const auto& r : refs) {
    try {
      programs.push_back(list_program(r, args));
    } catch (const InputError& e) {
      failed.push_back({r, e.what()});
      std::fprintf(stderr, "pitot list: FAILED: program %s could not be listed: %s\n", r.path.string().c_str(), e.what());
    }
  }
  if (programs.empty()) throw InputError(failed.size() == 1 ? failed.front().reason : "none of the programs could be listed (above)");
  const int code = failed.empty() ? kOk : kFailed;

  if (o.json) {
    json doc = {{"programs", json::array()}, {"programs_failed", json::array()}};
    for (const auto& f : failed)
      doc["programs_failed"].push_back(
          {{"program", expected_program_name(f.ref)}, {"path", f.ref.path.string()}, {"reason", f.reason}});
    for (const auto& p : programs) {
      json entry = to_json(p.list);
      entry["path"] = p.ref.path.string();
      doc["programs"].push_back(entry);
    }
    std::printf("%s\n", doc.dump(2).c_str());
    return code;
  }
  std::size_t total = 0;
  for (const auto& p : programs) {
    for (std::size_t bi = 0; bi < p.benchmarks.size(); ++bi) {
      const auto& b = p.benchmarks[bi];
      std::size_t selected = 0;
      for (const auto& pt : p.points) selected += pt.benchmark == bi;
      total += selected;
      const char* plural = b.point_count() == 1 ? "" : "s";
      std::string count = selected == b.point_count() ? fmt::format("{} point{}", selected, plural)
                                                      : fmt::format("{} of {} point{}", selected, b.point_count(), plural);
      std::printf("%s  (%s, timeout %g s, version %s)\n", b.full_name().c_str(), count.c_str(), b.timeout_seconds,
                  b.version.c_str());
      for (const auto& a : b.axes) {
        std::string values;
        for (const auto& v : a.values) values += (values.empty() ? "" : ", ") + display_value(v, a.kind);
        if (values.size() > 120) values = values.substr(0, 117) + "...";
        std::printf("    %s (%s, %zu): %s\n", a.name.c_str(), axis_kind_name(a.kind), a.values.size(), values.c_str());
      }
    }
  }
  std::printf("%zu point%s in %zu program%s\n", total, total == 1 ? "" : "s", programs.size(), programs.size() == 1 ? "" : "s");
  if (!failed.empty()) std::printf("%zu program%s could not be listed (see above)\n", failed.size(), failed.size() == 1 ? "" : "s");
  return code;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("list", "Show every benchmark of the suite, its axes and point count");
  auto o = std::make_shared<ListOptions>();
  cmd->add_option("programs", o->inputs, "Programs or folders (default: those of <build-dir>/pitot-manifest.json)");
  add_build_dir_option(cmd, o->build_dir);
  add_point_options(cmd, o->filter, o->axes, "List only");
  cmd->add_flag("--json", o->json, "Print the programs' lists as one JSON document");
  cmd->callback([o] { run_guarded("list", [&] { return list_command(*o); }); });
}

}  // namespace

void add_list_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

// pitot: the driver. Runs benchmark programs, owns the asv database, compares, profiles.
#include <algorithm>
#include <exception>
#include <iostream>

#include <fmt/format.h>

#include "driver/commands.hpp"
#include "driver/common/command.hpp"
#include "program/cli_hints.hpp"

int main(int argc, char** argv) {
  using namespace pitot::driver;
  CLI::App app{"pitot: measure GPU kernels, keep their history in an asv database, gate CI on regressions"};
  app.set_version_flag("--version", "pitot " PITOT_VERSION);
  // In the order `pitot --help` lists them.
  const std::vector<std::pair<std::string, void (*)(CLI::App&)>> commands = {
      {"ab", ab::add_ab_command}, {"compare", compare::add_compare_command}, {"init", run::add_init_command}, {"list", run::add_list_command}, {"machine", run::add_machine_command}, {"merge", run::add_merge_command}, {"profile", profile::add_profile_command}, {"run", run::add_run_command}};
  std::vector<std::string> names;
  for (const auto& [name, add] : commands) {
    add(app);
    names.push_back(name);
  }
  // The first word names the command; say so in words when it does not (CLI11 would only say
  // "A subcommand is required" or list the extra arguments).
  const std::string known = fmt::format("{}", fmt::join(names, ", "));
  const std::string first = argc > 1 ? argv[1] : "";
  if (first.empty() || (first[0] != '-' && std::find(names.begin(), names.end(), first) == names.end())) {
    if (first.empty()) {
      std::cerr << "pitot: give a command: " << known << " (see pitot --help)\n";
    } else {
      const std::string guess = pitot::cli::closest(first, names);
      std::cerr << "pitot: unknown command '" << first << "'; " << (guess.empty() ? "" : "did you mean '" + guess + "'? ")
                << "commands: " << known << " (see pitot --help)\n";
    }
    return kUsage;
  }
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  } catch (const CLI::ParseError& e) {
    // A mistyped flag: name the closest one of the command being parsed.
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
      if (s->get_name() == first) sub = s;
    std::cerr << "pitot " << first << ": " << e.what() << pitot::cli::flag_suggestion(app, argc, argv, sub)
              << " (see pitot " << first << " --help)\n";
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "pitot: " << e.what() << "\n";
    return kUsage;
  }
  return exit_code();
}

// pitot: the driver. Runs benchmark programs, owns the asv database, compares, profiles.
#include <algorithm>
#include <exception>
#include <iostream>

#include <fmt/format.h>

#include "driver/command.hpp"
#include "program/cli_hints.hpp"

namespace pitot::driver {
std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
int& exit_code() {
  static int code = kOk;
  return code;
}
}  // namespace pitot::driver

int main(int argc, char** argv) {
  using namespace pitot::driver;
  CLI::App app{"pitot: measure GPU kernels, keep their history in an asv database, gate CI on regressions"};
  app.set_version_flag("--version", "pitot " PITOT_VERSION);
  auto& list = commands();
  std::sort(list.begin(), list.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  std::vector<std::string> names;
  for (const auto& c : list) {
    c.setup(app);
    names.push_back(c.name);
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

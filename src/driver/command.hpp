// The pitot driver's subcommands register themselves here; main() builds the command line.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pitot::driver {

// Exit codes of every pitot command.
enum ExitCode { kOk = 0, kFailed = 1, kUsage = 2 };

struct Command {
  std::string name;
  // Adds the subcommand to `root`; its callback runs the command and sets exit_code().
  std::function<void(CLI::App& root)> setup;
};

std::vector<Command>& commands();
int& exit_code();

// A static instance in each command's source file registers that command.
struct RegisterCommand {
  RegisterCommand(std::string name, std::function<void(CLI::App&)> setup) {
    commands().push_back({std::move(name), std::move(setup)});
  }
};

}  // namespace pitot::driver

// The pitot driver's subcommands register themselves here; main() builds the command line.
#pragma once

#include <cstdio>
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

// The body of a command's callback: runs `body` (which returns the exit code) and sets
// exit_code(). An `Error` is bad input the user can fix: it is printed as "pitot <command>:
// <message>" and gives kUsage. Other exceptions go on to main(), which prints them.
template <class Error, class Body>
void run_guarded(const char* command, Body&& body) {
  try {
    exit_code() = body();
  } catch (const Error& e) {
    std::fprintf(stderr, "pitot %s: %s\n", command, e.what());
    exit_code() = kUsage;
  }
}

// A static instance in each command's source file registers that command.
struct RegisterCommand {
  RegisterCommand(std::string name, std::function<void(CLI::App&)> setup) {
    commands().push_back({std::move(name), std::move(setup)});
  }
};

}  // namespace pitot::driver

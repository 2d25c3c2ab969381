// What every pitot command shares: the exit code its callback sets and the guard that turns bad
// input into a message and kUsage. The commands themselves are listed in driver/commands.hpp.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "asv/error.hpp"
#include "driver/common/errors.hpp"

namespace pitot::driver {

// The exit code the command that ran sets (CLI11 callbacks return nothing).
int& exit_code();

// The body of a command's callback: runs `body` (which returns the exit code) and sets
// exit_code(). An InputError is bad input the user can fix, and so is an AsvError (an asv file or
// asv.conf.json that cannot be read, asv/error.hpp): it is printed as "pitot <command>:
// <message>" and gives kUsage. Other exceptions go on to main(), which prints them.
template <class Body>
void run_guarded(const char* command, Body&& body) {
  try {
    exit_code() = body();
  } catch (const InputError& e) {
    std::fprintf(stderr, "pitot %s: %s\n", command, e.what());
    exit_code() = kUsage;
  } catch (const AsvError& e) {
    std::fprintf(stderr, "pitot %s: %s\n", command, e.what());
    exit_code() = kUsage;
  }
}

// Options shared by the commands that start programs (list, machine, run, profile), as asv's
// common_args: where the build's manifest is, and which points (a regex, axis overrides).
void add_build_dir_option(CLI::App* cmd, std::string& build_dir);
// `verb` starts the --filter help: "Run only", "Profile only", "Only".
void add_point_options(CLI::App* cmd, std::string& filter, std::vector<std::string>& axes, const std::string& verb);

}  // namespace pitot::driver

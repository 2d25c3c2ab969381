// Every pitot command: each wing adds its subcommands to the command line; main() calls these.
#pragma once

#include <CLI/CLI.hpp>

namespace pitot::driver {
namespace run {
void add_init_command(CLI::App& root);     // run/init.cpp
void add_list_command(CLI::App& root);     // run/list.cpp
void add_machine_command(CLI::App& root);  // run/machine.cpp
void add_merge_command(CLI::App& root);    // run/merge.cpp
void add_run_command(CLI::App& root);      // run/run.cpp
}  // namespace run
namespace compare {
void add_compare_command(CLI::App& root);  // compare/command.cpp
}
namespace ab {
void add_ab_command(CLI::App& root);  // ab/ab.cpp
}
namespace profile {
void add_profile_command(CLI::App& root);  // profile/command.cpp
}
}  // namespace pitot::driver

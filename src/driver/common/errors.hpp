// The driver's one bad-input error and its one set of exit codes, shared by every command.
#pragma once

#include <stdexcept>

#include "core/protocol.hpp"

namespace pitot::driver {

// Exit codes of every pitot command, the programs' own (core/protocol.hpp): 1 when something
// ran and failed (a point, a regression), 2 when the input was wrong and nothing ran.
enum ExitCode { kOk = kExitOk, kFailed = kExitPointsFailed, kUsage = kExitUsage };

// Bad input the user can fix (a missing manifest or file, a malformed results file, a bad flag
// value): printed as "pitot <command>: <message>", exit code kUsage, nothing written.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pitot::driver

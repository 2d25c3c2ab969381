// Ctrl-C and SIGTERM while a command runs children (pitot run, ab, profile): the command stops
// starting them, ends the one that runs, and keeps what finished, instead of dying at once.
#pragma once

#include <atomic>
#include <csignal>

namespace pitot::driver {

// Set by SIGINT or SIGTERM while a CatchInterrupts lives, or by a command that must stop its
// workers (the database refused a write).
std::atomic<bool>& interrupted();

// While it lives, SIGINT and SIGTERM set interrupted() and SIGPIPE is ignored (a closed stdout is
// not fatal); the handlers from before it come back when it ends. It clears interrupted().
class CatchInterrupts {
 public:
  CatchInterrupts();
  ~CatchInterrupts();
  CatchInterrupts(const CatchInterrupts&) = delete;
  CatchInterrupts& operator=(const CatchInterrupts&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_pipe_ {};
};

}  // namespace pitot::driver

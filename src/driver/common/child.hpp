// Running one benchmark program as a child process: no shell, its own process group, a private
// result pipe (PITOT_RESULT_FD), and stdout/stderr captured with only their tails kept. After
// fence_children() (driver/common/sandbox.hpp) it runs under bwrap with a scratch folder of its
// own, removed when it ends; bwrap keeps the result pipe's descriptor open.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "core/protocol.hpp"
#include "driver/common/sandbox.hpp"
#include "process/process.hpp"

namespace pitot::driver {

struct ChildSpec {
  std::vector<std::string> argv;            // argv[0] is the program's path
  bool result_channel = true;               // open the result pipe and set PITOT_RESULT_FD
  std::size_t tail_bytes = 64 * 1024;       // how much of stdout and stderr to keep (the end)
  std::size_t max_line_bytes = 256u << 20;  // a longer result line is a protocol error
  bool keep_all_stdout = false;             // keep stdout whole (for --list --json), up to max_line_bytes
  std::vector<std::string> env;             // "KEY=value" set on top of the driver's (a rank's variables)
};

// How the child ended.
using ChildEnd = ExitStatus;

class Child {
 public:
  // Starts the program. Throws std::runtime_error naming the program if it cannot start.
  explicit Child(const ChildSpec& spec);
  ~Child();  // kills the process group and reaps the child if it still runs
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Waits up to `timeout` for output; returns the complete result lines that arrived.
  // After the child has exited and its pipes are drained, running() is false.
  std::vector<std::string> wait(std::chrono::milliseconds timeout);
  bool running() const { return running_; }
  const ChildEnd& end() const { return end_; }

  // SIGKILL to the child's whole process group (a benchmark may have started helpers).
  void kill_group();
  // True when a result line was longer than max_line_bytes (the line is dropped).
  bool line_overflow() const { return line_overflow_; }

  const std::string& stdout_text() const { return out_; }
  const std::string& stderr_text() const { return err_; }
  pid_t pid() const { return pid_; }

 private:
  void read_fd(int& fd, std::string& into, bool is_result, bool keep_all);
  void finish(int status);

  ChildSpec spec_;
  std::unique_ptr<ScratchFolder> scratch_;  // fenced: its one writable folder
  pid_t pid_ = -1;
  int result_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string result_buf_, out_, err_;
  std::vector<std::string> lines_;
  bool running_ = true;
  bool line_overflow_ = false;
  bool skipping_line_ = false;
  ChildEnd end_;
};

// One line of the result channel, read into its message (src/core/protocol.hpp). Bytes that are
// not UTF-8 become U+FFFD (a reason with a stray byte still counts); depth and length are
// bounded. Throws nlohmann::json::exception on anything else.
ChannelMessage parse_result_message(const std::string& line);

// The last `max_bytes` of `text`, cut at a line start, for error messages.
std::string tail_lines(const std::string& text, std::size_t max_bytes = 2000);

}  // namespace pitot::driver

#include "driver/common/child.hpp"

#include "core/bounded_json.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace pitot::driver {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Keep only the end of a growing capture, so a program printing megabytes costs nothing.
void append_bounded(std::string& into, const char* data, std::size_t n, std::size_t cap) {
  into.append(data, n);
  if (into.size() > 2 * cap) into.erase(0, into.size() - cap);
}

}  // namespace

ChannelMessage parse_result_message(const std::string& line) {
  return channel_message_from_json(parse_json_bounded(valid_utf8(line)));
}

std::string tail_lines(const std::string& text, std::size_t max_bytes) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  if (t.size() <= max_bytes) return t;
  std::size_t from = t.size() - max_bytes;
  std::size_t nl = t.find('\n', from);
  if (nl != std::string::npos && nl + 1 < t.size()) from = nl + 1;
  return "..." + t.substr(from);
}

Child::Child(const ChildSpec& spec) : spec_(spec) {
  if (spec_.argv.empty()) throw std::runtime_error("no program to run");
  SpawnSpec s;
  s.argv = spec_.argv;
  std::vector<std::string> given = {std::string(kResultFdVariable) + "=" + std::to_string(kResultFd)};
  if (const std::string& bwrap = children_fence(); !bwrap.empty()) {
    // bwrap would say a missing program only on stderr, as a program that exits 1.
    if (::access(spec_.argv[0].c_str(), X_OK) != 0)
      throw std::runtime_error("cannot run " + spec_.argv[0] + ": " + std::strerror(errno));
    scratch_ = std::make_unique<ScratchFolder>();
    s.argv = fenced_argv(bwrap, scratch_->path(), spec_.argv);
    const std::vector<std::string> fenced = fenced_environment(scratch_->path());
    given.insert(given.end(), fenced.begin(), fenced.end());
  }
  given.insert(given.end(), spec_.env.begin(), spec_.env.end());
  // The environment as it is, less what is set here (the result fd only with the channel).
  auto key_of = [](const std::string& kv) { return kv.substr(0, kv.find('=') + 1); };
  for (char** e = environ; *e; ++e)
    if (std::none_of(given.begin(), given.end(), [&](const std::string& kv) { return key_of(kv) == key_of(*e); }))
      s.env.emplace_back(*e);
  s.env.insert(s.env.end(), given.begin() + (spec_.result_channel ? 0 : 1), given.end());
  if (spec_.result_channel) s.result_fd = kResultFd;
  s.die_with_parent = true;  // the driver died (even by SIGKILL): take the child with it
  Spawned started = spawn(s);
  if (started.failed != SpawnFailure::none)
    throw std::runtime_error((started.failed == SpawnFailure::pipe ? "cannot create a pipe: " : "cannot start a process: ") +
                             std::string(std::strerror(started.error)));
  pid_ = started.pid;
  result_fd_ = started.result_fd;
  out_fd_ = started.out_fd;
  err_fd_ = started.err_fd;
  if (started.error != 0) {
    wait_for_exit(pid_);
    pid_ = -1;
    close_fd(result_fd_);
    close_fd(out_fd_);
    close_fd(err_fd_);
    throw std::runtime_error("cannot run " + spec_.argv[0] + ": " + std::strerror(started.error));
  }
  for (int fd : {result_fd_, out_fd_, err_fd_})
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

Child::~Child() {
  if (running_ && pid_ > 0) {
    kill_group();
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(result_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
}

void Child::kill_group() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

void Child::read_fd(int& fd, std::string& into, bool is_result, bool keep_all) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // EAGAIN: nothing more now
    if (n == 0) {
      close_fd(fd);
      return;
    }
    if (!is_result) {
      if (keep_all) {
        if (line_overflow_) continue;
        if (into.size() + n > spec_.max_line_bytes) {
          line_overflow_ = true;
          std::string().swap(into);  // give the memory back at once
        } else {
          into.append(buf, n);
        }
      } else {
        append_bounded(into, buf, n, spec_.tail_bytes);
      }
      continue;
    }
    // Result channel: split into lines; a line longer than the bound is dropped and flagged.
    const char* p = buf;
    const char* end = buf + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* stop = nl ? nl : end;
      if (!skipping_line_) {
        // Refused as soon as the bound would be passed: the buffer never grows beyond it (nor
        // does its capacity double past it), and its memory is given back at once.
        if (result_buf_.size() + static_cast<std::size_t>(stop - p) > spec_.max_line_bytes) {
          line_overflow_ = true;
          skipping_line_ = true;
          std::string().swap(result_buf_);
        } else {
          // A long line gets the whole bound reserved at once: no doubling copy (two buffers
          // alive) on the way up; only the pages written are resident.
          if (result_buf_.size() + static_cast<std::size_t>(stop - p) > (std::size_t{1} << 20) &&
              result_buf_.capacity() < spec_.max_line_bytes)
            result_buf_.reserve(spec_.max_line_bytes);
          result_buf_.append(p, stop);
        }
      }
      if (nl) {
        if (!skipping_line_ && !result_buf_.empty()) lines_.push_back(std::move(result_buf_));
        result_buf_.clear();
        skipping_line_ = false;
        p = nl + 1;
      } else {
        p = end;
      }
    }
  }
}

void Child::finish(int status) {
  running_ = false;
  end_ = decode_wait_status(status);
  // bwrap exits with 128 + the signal that killed the program: say the signal, as unfenced.
  if (scratch_ && end_.exited && end_.code > 128 && end_.code < 128 + NSIG) end_ = ExitStatus{false, 0, end_.code - 128};
  // Helpers the benchmark left behind would hold our pipes open: end them too.
  ::kill(-pid_, SIGKILL);
  close_fd(result_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
  scratch_.reset();  // fenced: everything in its namespace ended with bwrap
}

std::vector<std::string> Child::wait(std::chrono::milliseconds timeout) {
  lines_.clear();
  if (!running_) return {};
  pollfd fds[3];
  int nfds = 0;
  for (int fd : {result_fd_, out_fd_, err_fd_})
    if (fd >= 0) fds[nfds++] = {fd, POLLIN, 0};
  if (nfds > 0) {
    int r = poll(fds, nfds, static_cast<int>(timeout.count()));
    if (r > 0) {
      if (result_fd_ >= 0) read_fd(result_fd_, result_buf_, true, false);
      if (out_fd_ >= 0) read_fd(out_fd_, out_, false, spec_.keep_all_stdout);
      if (err_fd_ >= 0) read_fd(err_fd_, err_, false, false);
    }
  }
  // Poll the child's state without blocking, so a child that closed its pipes and hangs, or
  // one that exited while a helper holds a pipe open, is still noticed and timed.
  bool all_closed = result_fd_ < 0 && out_fd_ < 0 && err_fd_ < 0;
  int status = 0;
  pid_t r;
  do r = waitpid(pid_, &status, WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == pid_) {
    // Drain what is still buffered in the pipes before closing them.
    if (result_fd_ >= 0) read_fd(result_fd_, result_buf_, true, false);
    if (out_fd_ >= 0) read_fd(out_fd_, out_, false, spec_.keep_all_stdout);
    if (err_fd_ >= 0) read_fd(err_fd_, err_, false, false);
    finish(status);
  } else if (all_closed) {
    ::poll(nullptr, 0, static_cast<int>(std::min<long>(timeout.count(), 2)));
  }
  return std::move(lines_);
}

}  // namespace pitot::driver

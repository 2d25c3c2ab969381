// The GPU lease of pitot ab's paired rounds (src/core/gpu_lease.hpp), with real processes: two
// processes that pass it between samples never hold it at once and take strict turns while both
// sample; one that dies holding it does not keep the other waiting; bad specs are refused.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/gpu_lease.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("pitot-test-lease-" + std::to_string(::getpid()) + "-" + name);
}

// A child that takes `samples` turns: each writes its opening mark, works 300 us, writes its
// closing mark to the shared log, then passes the GPU on.
pid_t sampler(const std::string& lease, int slot, int samples, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int code = 0;
  try {
    auto l = pitot::GpuLease::open(lease + ":" + std::to_string(slot));
    const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
    const char open_mark = slot == 0 ? '(' : '[', close_mark = slot == 0 ? ')' : ']';
    for (int i = 0; i < samples; ++i) {
      l->acquire();
      if (::write(fd, &open_mark, 1) != 1) code = 3;
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      if (::write(fd, &close_mark, 1) != 1) code = 3;
      l->pass();
    }
    ::close(fd);
  } catch (...) {
    code = 2;
  }
  std::fflush(nullptr);
  ::_exit(code);  // the lease's destructor has run: it gave the GPU up
}

int exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(GpuLease, TwoProcessesTakeStrictTurnsAndNeverOverlap) {
  const fs::path lease = scratch("turns"), log = scratch("turns.log");
  pitot::GpuLease::create(lease.string());
  std::ofstream(log).close();
  const pid_t a = sampler(lease.string(), 0, 60, log.string());
  const pid_t b = sampler(lease.string(), 1, 60, log.string());
  EXPECT_EQ(exit_code(a), 0);
  EXPECT_EQ(exit_code(b), 0);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(text.size(), 240u);
  int switches = 0;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    // Each turn is whole: an opening mark, then its own closing mark, never the other's.
    ASSERT_TRUE((text[i] == '(' && text[i + 1] == ')') || (text[i] == '[' && text[i + 1] == ']')) << text;
    if (i > 0 && text[i] != text[i - 2]) ++switches;
  }
  std::printf("%d of 119 turns went to the other process: %s\n", switches, text.substr(0, 60).c_str());
  // Both sampled throughout: after the later one starts, the turns alternate (a start-up run of one
  // process's turns at the front, and none at the end, where both finish together).
  EXPECT_GE(switches, 100);
  fs::remove(lease);
  fs::remove(log);
}

TEST(GpuLease, AHolderThatDiesDoesNotKeepTheOtherWaiting) {
  const fs::path lease = scratch("dies");
  pitot::GpuLease::create(lease.string());
  const pid_t holder = ::fork();
  if (holder == 0) {
    auto l = pitot::GpuLease::open(lease.string() + ":0");
    l->acquire();
    ::_exit(0);  // dies holding it: no destructor runs
  }
  // Not reaped yet while we wait: a zombie holds nothing either.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto mine = pitot::GpuLease::open(lease.string() + ":1");
  const auto t0 = std::chrono::steady_clock::now();
  mine->acquire();
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited, 1.0);
  EXPECT_EQ(exit_code(holder), 0);
  // Alone, passing costs nothing: nobody waits.
  EXPECT_LT(mine->pass(), 0.01);
  fs::remove(lease);
}

TEST(GpuLease, BadSpecsAndMissingFilesAreRefused) {
  EXPECT_THROW(pitot::GpuLease::open("no-slot"), std::invalid_argument);
  EXPECT_THROW(pitot::GpuLease::open("/tmp/x:2"), std::invalid_argument);
  EXPECT_THROW(pitot::GpuLease::open(":0"), std::invalid_argument);
  EXPECT_THROW(pitot::GpuLease::open(scratch("missing").string() + ":0"), std::runtime_error);
}

}  // namespace

// Test programs for the driver: one source, built once per misbehaviour (DRIVER_TEST_MODE).
// Point i=2 of `work` misbehaves; the others are trivial and must reach the database.
#include <pitot/pitot.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>

#define MODE_OK 0
#define MODE_SEGV 1
#define MODE_ABORT 2
#define MODE_HANG 3
#define MODE_SPAM 4
#define MODE_GARBAGE 5
#define MODE_EARLY_EXIT 6
#define MODE_STARTUP_CRASH 7
#define MODE_TRIVIAL 8
#define MODE_EXIT2 9        // exit(2) inside the body of point 2: a crash, not a usage error
#define MODE_BAD_BYTES 10   // bytes that are not UTF-8 on stderr and on the result channel
#define MODE_SETUP_HANG 11  // a second benchmark with .timeout(3) that hangs in its setup
#define MODE_BIG_LINE 12    // a 300 MiB result line
#define MODE_LIST_CRASH 13  // dies at start when listed (a broken program: pitot run runs the others)
#define MODE_JITTER 14      // each process draws its own cost: two sides never read exactly alike
#define MODE_MARKED 15      // twice the work beside a file "slower"; a first process slow beside "cold"

namespace {

#if DRIVER_TEST_MODE == MODE_STARTUP_CRASH
// Dies while starting whenever the driver runs it (listing still works).
const bool crash_at_start = [] {
  if (std::getenv("PITOT_RESULT_FD")) std::abort();
  return true;
}();
#endif

#if DRIVER_TEST_MODE == MODE_LIST_CRASH
// Dies while starting whenever it is listed (no result channel), as a program missing a library would.
const bool crash_when_listed = [] {
  if (std::getenv("PITOT_RESULT_FD")) return true;
  std::fputs("drv_list_crash: cannot start: libmissing.so.1 not found\n", stderr);
  std::fflush(stderr);
  std::abort();
}();
#endif

void misbehave() {
#if DRIVER_TEST_MODE == MODE_SEGV
  std::raise(SIGSEGV);
#elif DRIVER_TEST_MODE == MODE_ABORT
  std::fputs("about to abort: invariant broken\n", stderr);
  std::abort();
#elif DRIVER_TEST_MODE == MODE_HANG
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
#elif DRIVER_TEST_MODE == MODE_GARBAGE
  if (const char* fd = std::getenv("PITOT_RESULT_FD")) {
    std::string junk = "this is not json {{{\n";
    ssize_t n = write(std::atoi(fd), junk.data(), junk.size());
    (void)n;
  }
#elif DRIVER_TEST_MODE == MODE_EARLY_EXIT
  std::fflush(nullptr);
  std::_Exit(0);
#elif DRIVER_TEST_MODE == MODE_EXIT2
  std::exit(2);
#elif DRIVER_TEST_MODE == MODE_BAD_BYTES
  std::fputs("bad bytes: \xff\xfe\xc3 end\n", stderr);
  std::fflush(stderr);
  if (const char* fd = std::getenv("PITOT_RESULT_FD")) {
    std::string junk = "{\"type\": \"\xff\xfe\"} not json \xc0\n";
    ssize_t n = write(std::atoi(fd), junk.data(), junk.size());
    (void)n;
  }
#elif DRIVER_TEST_MODE == MODE_BIG_LINE
  if (const char* fd = std::getenv("PITOT_RESULT_FD")) {
    std::string chunk(1 << 20, 'x');  // 300 x 1 MiB without a newline, from a small buffer
    for (int k = 0; k < 300; ++k) {
      ssize_t n = write(std::atoi(fd), chunk.data(), chunk.size());
      (void)n;
    }
  }
#endif
}

#if DRIVER_TEST_MODE == MODE_MARKED
// A file beside the program: the same program, copied beside a marker, stands for another build
// ("slower") or a machine whose first process builds a cache ("cold", removed by that process).
std::string beside(const char* name) {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "";
  const std::string exe(path, static_cast<std::size_t>(n));
  return exe.substr(0, exe.rfind('/') + 1) + name;
}
bool marked_slower() { return access(beside("slower").c_str(), F_OK) == 0; }
#endif

void work(pitot::State& state) {
  const auto i = state.get_int("i");
#if DRIVER_TEST_MODE == MODE_SPAM
  // Megabytes on both streams at every point: the driver must neither block nor keep them.
  std::string line(1023, 'x');
  for (int k = 0; k < 2048; ++k) std::printf("%s\n", line.c_str());
  for (int k = 0; k < 1024; ++k) std::fprintf(stderr, "%s\n", line.c_str());
#endif
  if (i == 2) misbehave();
#if DRIVER_TEST_MODE == MODE_JITTER
  // A cost drawn once per process, so that no two processes' medians coincide even where the
  // clock is coarse (a trivial body reads the same 0.6 ns everywhere on some machines).
  static const int spins = 1000 + static_cast<int>(std::random_device{}() % 1000);
  state.exec([] {
    volatile int x = 0;
    for (int k = 0; k < spins; ++k) x = x + 1;
  });
#elif DRIVER_TEST_MODE == MODE_MARKED
  if (i == 0 && unlink(beside("cold").c_str()) == 0) std::this_thread::sleep_for(std::chrono::seconds(3));
  static const int spins = marked_slower() ? 200000 : 100000;
  state.exec([] {
    volatile int x = 0;
    for (int k = 0; k < spins; ++k) x = x + 1;
  });
#else
  state.exec([] {
    volatile int x = 0;
    x = x + 1;
  });
#endif
}

#if DRIVER_TEST_MODE == MODE_TRIVIAL
// 1,000 trivial points: the driver's overhead per point.
std::vector<std::int64_t> thousand() {
  std::vector<std::int64_t> v;
  for (int k = 0; k < 1000; ++k) v.push_back(k);
  return v;
}
PITOT_BENCHMARK(work).axis("i", thousand());
#elif DRIVER_TEST_MODE == MODE_SETUP_HANG
// `work` keeps the default timeout (60 s); `stuck` hangs before state.exec (its setup).
void stuck(pitot::State& state) {
  if (state.get_int("j") == 0)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  state.exec([] {});
}
PITOT_BENCHMARK(work).axis("i", {0, 1, 3, 4});
PITOT_BENCHMARK(stuck).axis("j", {0}).timeout(3);
#else
PITOT_BENCHMARK(work).axis("i", {0, 1, 2, 3, 4}).timeout(1);
#endif

}  // namespace

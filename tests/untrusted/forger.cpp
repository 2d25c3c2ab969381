// A benchmark program that forges its reported times through the result channel (pygpubench's
// "result-pipe forgery"), for the driver's cross-check (cross_check.py): one source, built once
// per FORGER_MODE. Inside its first timed call the forger writes its own "sampling", works for a
// while on the host, then writes "sampled", a point whose samples it made up and "done", and exits
// before pitot's harness can report anything. Under `pitot run --untrusted` the driver's own clock
// must refuse the made-up samples; the honest build times the same work with pitot's sampler. The
// slow-clock build forges nothing itself: its clock_gettime slows pitot's timers down, which
// untrusted mode refuses before any sample (untrusted::clock_detour_reason).
#include <pitot/pitot.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FORGER_HONEST 0   // no forgery: the same work, timed by pitot
#define FORGER_INFLATE 1  // 0.2 s of work reported as 20 samples of 1 s
#define FORGER_DEFLATE 2  // 2 s of work reported as 20 samples of 1 us
#define FORGER_SLOW_CLOCK 3  // a timer detour: the program's clock_gettime runs 100 times slower

#if FORGER_MODE == FORGER_SLOW_CLOCK
// The detour (pygpubench's "timer detours", in C++): this definition stands in front of the C
// library's for every caller in the process, libstdc++'s steady_clock (pitot's timers) included.
// The monotonic clocks run 100 times slower from the first reading on; the real time comes from
// the system call, which nothing here can bend.
extern "C" int clock_gettime(clockid_t id, struct timespec* ts) {
  const long rc = syscall(SYS_clock_gettime, id, ts);
  if (rc != 0 || (id != CLOCK_MONOTONIC && id != CLOCK_MONOTONIC_RAW)) return static_cast<int>(rc);
  static const long long start = ts->tv_sec * 1000000000LL + ts->tv_nsec;
  const long long now = ts->tv_sec * 1000000000LL + ts->tv_nsec;
  const long long slowed = start + (now - start) / 100;
  ts->tv_sec = slowed / 1000000000LL;
  ts->tv_nsec = slowed % 1000000000LL;
  return 0;
}
#endif

namespace {

// The real time in seconds, past any detour.
double real_seconds() {
  struct timespec ts {};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The work of one call: 10 ms on the host.
void work_once() {
  const double until = real_seconds() + 0.01;
  volatile unsigned x = 0;
  while (real_seconds() < until) x = x + 1;
}

#if FORGER_MODE == FORGER_INFLATE || FORGER_MODE == FORGER_DEFLATE
void say(int fd, const std::string& line) {
  const std::string text = line + "\n";
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) std::_Exit(70);
}

[[noreturn]] void forge() {
  const char* fd_text = std::getenv("PITOT_RESULT_FD");
  if (!fd_text) std::_Exit(71);  // run alone: nothing to forge
  const int fd = std::atoi(fd_text);
#if FORGER_MODE == FORGER_INFLATE
  const int calls = 20;
  const char* seconds = "1.0";
#else
  const int calls = 200;
  const char* seconds = "1e-6";
#endif
  say(fd, R"({"type":"sampling","id":0})");
  for (int i = 0; i < calls; ++i) work_once();
  say(fd, R"({"type":"sampled","id":0})");
  std::string samples;
  for (int i = 0; i < 20; ++i) samples += std::string(i ? "," : "") + seconds;
  say(fd, R"({"type":"point","program":"forger","benchmark":"work","id":0,"name":"work","index":[],"values":[],)"
          R"("status":"ok","backend":"cpu","number":1,"samples":[)" +
              samples + R"(],"backend_info":{"untrusted":true}})");
  say(fd, R"({"type":"done"})");
  std::_Exit(0);
}
#endif

void work(pitot::State& state) {
  state.exec([] {
#if FORGER_MODE == FORGER_INFLATE || FORGER_MODE == FORGER_DEFLATE
    forge();
#endif
    work_once();
  });
}

PITOT_BENCHMARK(work);

}  // namespace

// The checker process of a problem's point (problem_checker.hpp): the fork, the child's work and
// its loop, and the harness's side of their socket.
#include "core/problem_checker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/problem.hpp"
#include "core/problem_check.hpp"
#include "process/process.hpp"

namespace pitot::problem {

// The messages, fixed binary records on a SOCK_SEQPACKET pair (one record a message). Both ends
// are the same program, so no byte order or version is needed; a record of another size or magic
// is refused by either end.
namespace {

constexpr std::uint32_t kMagic = 0x70636b31;  // "pck1"

struct Request {
  std::uint32_t magic = kMagic;
  std::int32_t set = 0;
  std::uint32_t poison = 0;
  std::uint32_t fingerprint = 0;
};

enum Kind : std::uint32_t { kReady = 1, kVerdict = 2, kError = 3, kUsageError = 4 };

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::size_t aligned(std::size_t n) { return (n + 63) / 64 * 64; }

}  // namespace

struct CheckerReply {
  std::uint32_t magic = kMagic;
  std::uint32_t kind = kVerdict;
  std::uint32_t ok = 1, all_poisoned = 0;
  std::int32_t output = -1, other_set = -1;
  std::int64_t index = 0;
  double got = 0, want = 0;
  std::uint64_t hash = 0;
  char text[2048] = {};  // kError, kUsageError: the exception's message
};

SharedMemory::SharedMemory(std::size_t bytes) : bytes_(std::max<std::size_t>(bytes, 1)) {
  const int fd = memfd_create("pitot-problem", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error("problem: no shared memory for the checker (" + errno_text("memfd_create") + ")");
  void* p = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(bytes_)) == 0) p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int error = errno;
  close(fd);
  if (p == MAP_FAILED) {
    errno = error;
    throw std::runtime_error(fmt::format("problem: no shared memory of {} bytes for the checker ({})", bytes_,
                                         errno_text("ftruncate/mmap")));
  }
  data_ = static_cast<unsigned char*>(p);
}

SharedMemory::~SharedMemory() {
  if (data_) munmap(data_, bytes_);
}

SharedLayout::SharedLayout(const std::vector<BufferSpec>& inputs, const std::vector<BufferSpec>& outputs, int draws)
    : per_draw_(inputs.size()) {
  for (int d = 0; d < draws; ++d)
    for (const auto& s : inputs) {
      inputs_.push_back(bytes);
      bytes += aligned(s.bytes());
    }
  for (const auto& s : outputs) {
    outputs_.push_back(bytes);
    bytes += aligned(s.bytes());
  }
}

int draw_of(int set, int j, int draws, bool combined) {
  if (!combined) return set;
  return j == 0 ? set / draws : set % draws;
}

std::string checker_failed_reason(const std::string& prefix, const std::string& what) {
  return prefix + "the checker process " + what +
         " (it holds the reference's expected outputs: without it the point's outputs cannot be checked)";
}

// --- The child ----------------------------------------------------------------------------------

namespace {

void send_reply(int fd, const CheckerReply& r);

// Everything above stderr but `keep`: the child holds no descriptor of the harness's (its result
// channel to the driver, a device's) past the fork.
void close_other_fds(int keep) {
  if (keep > 3) (void)close_range(3, static_cast<unsigned>(keep) - 1, 0);
  if (close_range(static_cast<unsigned>(keep) + 1, ~0U, 0) == 0) return;
  const long top = sysconf(_SC_OPEN_MAX);  // close_range unsupported (kernels before 5.9)
  for (long fd = 3; fd < (top > 0 ? std::min(top, 65536L) : 1024L); ++fd)
    if (fd != keep) close(static_cast<int>(fd));
}

using Sets = std::vector<std::vector<HostBlock>>;  // [set][output], or [draw][input]

std::vector<Buffer> views_of(std::vector<HostBlock>& blocks, const std::vector<BufferSpec>& specs) {
  std::vector<Buffer> views;
  for (std::size_t i = 0; i < specs.size(); ++i) views.emplace_back(blocks[i].data(), specs[i]);
  return views;
}

// A problem function's exception, named: "problem NAME: its reference raised TEXT". A Python
// exception's text is its traceback, whose last line is "Type: message": that line names it, and
// the whole goes to stderr (the program's, which the driver keeps the end of).
std::string raised(const CheckerPlan& plan, const char* what, const char* text) {
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  if (const auto cut = line.rfind('\n'); cut != std::string::npos) {
    std::fprintf(stderr, "%s\n", text);
    line = line.substr(cut + 1);
  }
  return fmt::format("problem {}: its {} raised {}", plan.problem->name, what, line);
}

template <class F>
void calling(const CheckerPlan& plan, const char* what, F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    throw UsageError(raised(plan, what, e.what()));
  } catch (const std::exception& e) {
    throw std::runtime_error(raised(plan, what, e.what()));
  }
}

// The draws from the seed, into memory of the child's own (a write to the shared copy cannot
// change what the reference read), each set's expected outputs, then the draws published.
Sets make_expected(const CheckerPlan& plan, unsigned char* shared, const SharedLayout& layout) {
  const std::uint64_t seed = plan.fixed_seed ? *plan.fixed_seed : os_seed();
  Sets draws(static_cast<std::size_t>(plan.draws)), expected(static_cast<std::size_t>(plan.sets));
  for (int d = 0; d < plan.draws; ++d) {
    for (const auto& s : plan.inputs) draws[d].emplace_back(s.bytes());
    calling(plan, "generate", [&] {
      plan.problem->generate(*plan.shape, mix64(seed + static_cast<std::uint64_t>(d) + 1), views_of(draws[d], plan.inputs));
    });
  }
  for (int s = 0; s < plan.sets; ++s) {
    std::vector<Buffer> in;
    for (std::size_t j = 0; j < plan.inputs.size(); ++j)
      in.emplace_back(draws[draw_of(s, static_cast<int>(j), plan.draws, plan.combined)][j].data(), plan.inputs[j]);
    for (const auto& o : plan.outputs) expected[s].emplace_back(o.bytes());
    calling(plan, "reference", [&] { plan.problem->reference(*plan.shape, in, views_of(expected[s], plan.outputs)); });
  }
  for (int d = 0; d < plan.draws; ++d)
    for (std::size_t j = 0; j < plan.inputs.size(); ++j)
      std::memcpy(shared + layout.input(d, static_cast<int>(j)), draws[d][j].data(), plan.inputs[j].bytes());
  return expected;
}

CheckerReply verdict_of(const CheckerPlan& plan, const unsigned char* shared, const SharedLayout& layout,
                          const Sets& expected, const Request& r) {
  CheckerReply v;
  for (std::size_t o = 0; o < plan.outputs.size(); ++o)
    if (r.fingerprint) v.hash += fingerprint(shared + layout.output(static_cast<int>(o)), plan.outputs[o].bytes(), plan.hash_keys[o]);
  const Tolerance& t = plan.problem->tolerance;
  for (std::size_t o = 0; o < plan.outputs.size() && v.ok; ++o) {
    const unsigned char* got = shared + layout.output(static_cast<int>(o));
    const void* want = expected[r.set][o].data();
    // The same bits match under any tolerance: one memcmp for the usual honest output.
    if (std::memcmp(got, want, plan.outputs[o].bytes()) == 0) continue;
    const auto m = first_mismatch(got, want, plan.outputs[o], t);
    if (!m) continue;
    v.ok = 0;
    v.output = static_cast<std::int32_t>(o);
    v.index = m->index;
    v.got = m->got;
    v.want = m->want;
    v.all_poisoned = all_poisoned(got, plan.outputs[o], static_cast<unsigned char>(r.poison));
    for (int s = 0; s < plan.sets && v.other_set < 0; ++s)
      if (s != r.set && !first_mismatch(got, expected[s][o].data(), plan.outputs[o], t)) v.other_set = s;
  }
  return v;
}

// Answers the harness's requests until it closes its end, or one verdict refuses a call.
void serve(const CheckerPlan& plan, const unsigned char* shared, const SharedLayout& layout, const Sets& expected, int fd) {
  for (;;) {
    Request r;
    const ssize_t n = recv(fd, &r, sizeof r, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    if (n != static_cast<ssize_t>(sizeof r) || r.magic != kMagic || r.set < 0 || r.set >= plan.sets || r.poison > 255)
      throw std::runtime_error("the checker got a request it cannot read");
    const CheckerReply v = verdict_of(plan, shared, layout, expected, r);
    send_reply(fd, v);
    if (!v.ok) return;
  }
}

void send_reply(int fd, const CheckerReply& r) {
  while (send(fd, &r, sizeof r, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

void send_error(int fd, Kind kind, const char* what) {
  CheckerReply r;
  r.kind = kind;
  std::snprintf(r.text, sizeof r.text, "%s", what);
  send_reply(fd, r);
}

[[noreturn]] void run_checker(const CheckerPlan& plan, unsigned char* shared, const SharedLayout& layout, int fd,
                              pid_t parent) noexcept {
  // First of all: not dumpable. Then no process of this user (the harness's, where the
  // submission runs, included) may ptrace it, read /proc/PID/mem or use process_vm_readv on it
  // without CAP_SYS_PTRACE, which the fence drops (--cap-drop ALL). It dies with the harness's
  // thread that forked it, and gives up if the harness already went before that took hold.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) _exit(1);
  signal(SIGINT, SIG_IGN);  // the terminal's Ctrl-C is the harness's to handle; it ends the checker
  close_other_fds(fd);
  try {
    const Sets expected = make_expected(plan, shared, layout);
    CheckerReply ready;
    ready.kind = kReady;
    send_reply(fd, ready);
    serve(plan, shared, layout, expected, fd);
  } catch (const UsageError& e) {
    send_error(fd, kUsageError, e.what());
  } catch (const std::exception& e) {
    send_error(fd, kError, e.what());
  } catch (...) {
    send_error(fd, kError, "the checker's work threw an exception of an unknown type");
  }
  _exit(0);  // no atexit handlers, destructors or sanitizer reports of the harness's state
}

}  // namespace

// --- The harness's side ---------------------------------------------------------------------------

Checker::Checker(const CheckerPlan& plan, const SharedMemory& shared, const SharedLayout& layout)
    : prefix_(plan.prefix), check_seconds_(plan.check_seconds) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    throw std::runtime_error(checker_failed_reason(prefix_, "could not start (" + errno_text("socketpair") + ")"));
  const pid_t parent = getpid();
  const Problem::ForkGuard& guard = plan.problem->fork_guard;
  if (guard.before) guard.before();
  pid_ = fork();
  const std::string why = pid_ < 0 ? errno_text("fork") : "";
  if (pid_ == 0 && guard.child) guard.child();
  if (pid_ != 0 && guard.parent) guard.parent();
  if (pid_ < 0) {
    close(pair[0]);
    close(pair[1]);
    throw std::runtime_error(checker_failed_reason(prefix_, "could not start (" + why + ")"));
  }
  if (pid_ == 0) {
    close(pair[0]);
    run_checker(plan, shared.data(), layout, pair[1], parent);
  }
  close(pair[1]);
  socket_ = pair[0];
  CheckerReply r;
  try {
    receive(r, plan.prepare_seconds, "while it generated the inputs and computed the expected outputs");
  } catch (...) {
    end();
    throw;
  }
  if (r.kind == kReady) return;
  end();
  r.text[sizeof r.text - 1] = '\0';
  if (r.kind == kUsageError) throw UsageError(r.text);
  if (r.kind == kError) throw std::runtime_error(r.text);
  throw std::runtime_error(checker_failed_reason(prefix_, "sent a message pitot cannot read"));
}

Checker::~Checker() { end(); }

void Checker::end() {
  if (socket_ >= 0) close(socket_);
  socket_ = -1;
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void Checker::fail(const std::string& what) {
  end();
  throw std::runtime_error(checker_failed_reason(prefix_, what));
}

void Checker::receive(CheckerReply& reply, double seconds, const std::string& doing) {
  if (socket_ < 0) throw std::runtime_error(checker_failed_reason(prefix_, "has ended already " + doing));
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) fail(fmt::format("did not answer within {:g} s {} (it was killed)", seconds, doing));
    pollfd p{socket_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) fail("could not be reached " + doing + " (" + errno_text("poll") + ")");
    if (ready <= 0) continue;
    const ssize_t n = recv(socket_, &reply, sizeof reply, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == static_cast<ssize_t>(sizeof reply) && reply.magic == kMagic) return;
    if (n > 0) fail("sent a message pitot cannot read " + doing);
    // Its end closed: it ended. Reap it (a moment for the exit to finish, then SIGKILL).
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 200 && (done = waitpid(pid_, &status, WNOHANG)) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done == 0) {
      kill(pid_, SIGKILL);
      while ((done = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
      }
    }
    const std::string how = done == pid_ ? decode_wait_status(status).describe() : std::string("reaped elsewhere");
    pid_ = -1;
    fail("ended (" + how + ") " + doing);
  }
}

Verdict Checker::check(int set, unsigned char poison, std::int64_t call, bool fingerprint,
                       const std::function<void()>& meanwhile) {
  const std::string doing = fmt::format("while it checked call {}", call);
  if (socket_ < 0) throw std::runtime_error(checker_failed_reason(prefix_, "has ended already " + doing));
  Request q;
  q.set = set;
  q.poison = poison;
  q.fingerprint = fingerprint ? 1 : 0;
  ssize_t sent;
  while ((sent = send(socket_, &q, sizeof q, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  // A send to a checker that died fails (EPIPE); receive reaps it and says how it ended.
  if (sent != static_cast<ssize_t>(sizeof q) && errno != EPIPE && errno != ECONNRESET)
    fail("could not be reached " + doing + " (" + errno_text("send") + ")");
  if (meanwhile) {
    try {
      meanwhile();
    } catch (...) {
      end();  // its answer would be read as the next call's
      throw;
    }
  }
  CheckerReply r;
  receive(r, check_seconds_, doing);
  if (r.kind != kVerdict) {
    r.text[sizeof r.text - 1] = '\0';
    fail(std::string("failed ") + doing + (r.text[0] ? std::string(": ") + r.text : std::string()));
  }
  Verdict v;
  v.ok = r.ok != 0;
  v.hash = r.hash;
  v.output = r.output;
  v.mismatch = Mismatch{r.index, r.got, r.want};
  v.all_poisoned = r.all_poisoned != 0;
  v.other_set = r.other_set;
  return v;
}

}  // namespace pitot::problem

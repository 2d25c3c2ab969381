// The checker process of a problem's point (src/core/problem_checker.*): out of reach of the
// harness's process (not dumpable: no ptrace, no /proc/PID/mem), its failures named, its child
// reaped, and at most one refusal answered.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <pitot/pitot.hpp>
#include <pitot/problem.hpp>

#include "core/engine.hpp"
#include "point_fixture.hpp"
#include "core/problem.hpp"
#include "core/problem_check.hpp"
#include "core/problem_checker.hpp"

namespace {

using namespace pitot;
using problem::PointData;

// c = a + b over 64 floats, 3 draws, inputs combined.
Problem add_problem() {
  Problem p;
  p.name = "add";
  p.inputs = [](const Shape&) { return std::vector<BufferSpec>{{"a", DType::F32, 64}, {"b", DType::F32, 64}}; };
  p.outputs = [](const Shape&) { return std::vector<BufferSpec>{{"c", DType::F32, 64}}; };
  p.generate = [](const Shape&, std::uint64_t seed, Buffers in) {
    for (const auto& b : in)
      for (std::int64_t i = 0; i < b.count(); ++i)
        b.as<float>()[i] = static_cast<float>(problem::mix64(seed + static_cast<std::uint64_t>(i)) % 1000);
  };
  p.reference = [](const Shape&, Buffers in, Buffers out) {
    for (std::int64_t i = 0; i < 64; ++i) out[0].as<float>()[i] = in[0].as<const float>()[i] + in[1].as<const float>()[i];
  };
  p.inputs_independent = true;
  return p;
}

using test::with_point;

// Set `set`'s answer, written where the checker reads the outputs.
void write_answer(const PointData& d, int set) {
  const auto* a = static_cast<const float*>(d.input(set, 0).data());
  const auto* b = static_cast<const float*>(d.input(set, 1).data());
  auto* c = static_cast<float*>(d.output(0).data());
  for (int i = 0; i < 64; ++i) c[i] = a[i] + b[i];
}

std::size_t open_fds() {
  std::size_t n = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (readdir(dir)) ++n;
    closedir(dir);
  }
  return n;
}

bool reaped(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD; }

// Without CAP_SYS_PTRACE in the effective set for its lifetime (the fence runs programs with no
// capability; a test run as root has it): its permitted set is kept, so it comes back after.
class NoPtraceCapability {
 public:
  NoPtraceCapability() {
    header_.version = _LINUX_CAPABILITY_VERSION_3;
    header_.pid = 0;
    ok_ = syscall(SYS_capget, &header_, saved_) == 0;
    __user_cap_data_struct lowered[2];
    std::memcpy(lowered, saved_, sizeof lowered);
    lowered[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective &= ~CAP_TO_MASK(CAP_SYS_PTRACE);
    ok_ = ok_ && syscall(SYS_capset, &header_, lowered) == 0;
  }
  ~NoPtraceCapability() { (void)syscall(SYS_capset, &header_, saved_); }
  bool ok() const { return ok_; }

 private:
  __user_cap_header_struct header_{};
  __user_cap_data_struct saved_[2]{};
  bool ok_ = false;
};

// Whether this process may PTRACE_ATTACH to `pid` (detached again at once); errno when not.
bool attaches(pid_t pid) {
  if (ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) != 0) return false;
  int status = 0;
  waitpid(pid, &status, __WALL);
  ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  return true;
}

}  // namespace

TEST(ProblemChecker, NotDumpableSoNeitherPtraceNorProcMemReachIt) {
  // The control: a plain child of this process is attachable, so a refusal below is the checker's.
  const pid_t plain = fork();
  if (plain == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(plain, 0);
  NoPtraceCapability lowered;
  ASSERT_TRUE(lowered.ok()) << std::strerror(errno);
  const bool control = attaches(plain);
  const int control_errno = errno;
  kill(plain, SIGKILL);
  waitpid(plain, nullptr, 0);
  if (!control) GTEST_SKIP() << "ptrace is off on this machine (" << std::strerror(control_errno) << ")";
  with_point([](State& s) {
    PointData d(add_problem(), Shape(s), "problem: ", 5);
    const pid_t checker = d.checker_pid();
    errno = 0;
    EXPECT_FALSE(attaches(checker));
    EXPECT_EQ(errno, EPERM) << std::strerror(errno);
    const int fd = open(("/proc/" + std::to_string(checker) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
    const int open_errno = errno;
    if (fd >= 0) close(fd);
    EXPECT_LT(fd, 0);
    EXPECT_EQ(open_errno, EACCES) << std::strerror(open_errno);
    char byte = 0;
    iovec local{&byte, 1}, remote{d.output(0).data(), 1};  // an address mapped in both
    EXPECT_EQ(process_vm_readv(checker, &local, 1, &remote, 1, 0), -1);
    EXPECT_EQ(errno, EPERM) << std::strerror(errno);
    write_answer(d, 2);
    EXPECT_TRUE(d.check(2, 0x11, 1).ok);  // still at work
  });
}

TEST(ProblemChecker, KilledCheckerFailsThePointNamedAndReaped) {
  const std::size_t fds = open_fds();
  with_point([](State& s) {
    PointData d(add_problem(), Shape(s), "untrusted: ", 5);
    const pid_t checker = d.checker_pid();
    write_answer(d, 0);
    EXPECT_TRUE(d.check(0, 0x11, 1).ok);
    kill(checker, SIGKILL);
    try {
      (void)d.check(0, 0x11, 2);
      ADD_FAILURE() << "a check with no checker passed";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("untrusted: the checker process ended (killed by signal 9 (SIGKILL)) "
                                            "while it checked call 2 (it holds the reference's expected outputs",
                                            0),
                0u)
          << e.what();
    }
    EXPECT_TRUE(reaped(checker));  // no zombie left
    EXPECT_THROW((void)d.check(0, 0x11, 3), std::runtime_error);
  });
  EXPECT_EQ(open_fds(), fds);  // the socket closed
}

TEST(ProblemChecker, AnswersOneRefusalThenEnds) {
  with_point([](State& s) {
    PointData d(add_problem(), Shape(s), "problem: ", 9);
    const pid_t checker = d.checker_pid();
    write_answer(d, 1);
    static_cast<float*>(d.output(0).data())[0] += 1;
    const problem::Verdict v = d.check(1, 0x11, 1);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.mismatch.index, 0);
    // Asking again, element by element, would read the expected outputs out of the checker: it
    // has ended.
    static_cast<float*>(d.output(0).data())[0] -= 1;
    try {
      (void)d.check(1, 0x11, 2);
      ADD_FAILURE() << "the checker answered after a refusal";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("the checker process ended (exited with code 0)"), std::string::npos)
          << e.what();
    }
    EXPECT_TRUE(reaped(checker));
  });
}

TEST(ProblemChecker, SilentCheckerTimesOutAndIsKilled) {
  with_point([](State& s) {
    const Problem p = add_problem();
    const Shape shape(s);
    problem::CheckerPlan plan;
    plan.problem = &p;
    plan.shape = &shape;
    plan.inputs = p.inputs(shape);
    plan.outputs = p.outputs(shape);
    plan.draws = 3;
    plan.sets = 9;
    plan.combined = true;
    plan.hash_keys = {1};
    plan.prefix = "untrusted: ";
    plan.check_seconds = 0.3;
    const problem::SharedLayout layout(plan.inputs, plan.outputs, plan.draws);
    const problem::SharedMemory shared(layout.bytes);
    problem::Checker checker(plan, shared, layout);
    const pid_t pid = checker.pid();
    kill(pid, SIGSTOP);  // alive, never answering
    const auto t0 = std::chrono::steady_clock::now();
    try {
      (void)checker.check(0, 0x11, 4, false);
      ADD_FAILURE() << "a stopped checker answered";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("untrusted: the checker process did not answer within 0.3 s while it "
                                            "checked call 4 (it was killed)",
                                            0),
                0u)
          << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
    EXPECT_TRUE(reaped(pid));

    Problem slow = p;  // the same for the preparation
    slow.generate = [](const Shape&, std::uint64_t, Buffers) { std::this_thread::sleep_for(std::chrono::seconds(30)); };
    plan.problem = &slow;
    plan.prepare_seconds = 0.3;
    try {
      problem::Checker never(plan, shared, layout);
      ADD_FAILURE() << "a checker that never got ready was used";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("did not answer within 0.3 s while it generated the inputs"), std::string::npos)
          << e.what();
    }
  });
}

TEST(ProblemChecker, ErrorsOfTheProblemsFunctionsComeBackWithTheirText) {
  with_point([](State& s) {
    Problem raising = add_problem();
    raising.reference = [](const Shape&, Buffers, Buffers) { throw std::runtime_error("the table is lost"); };
    try {
      PointData d(raising, Shape(s), "problem: ", 1);
      ADD_FAILURE() << "a broken reference passed";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "problem add: its reference raised the table is lost");
    }
    // A Python exception's text is its traceback: its last line names it.
    raising.reference = [](const Shape&, Buffers, Buffers) {
      throw std::runtime_error("Traceback (most recent call last):\n  File \"p.py\", line 3, in reference\nKeyError: 'x'\n");
    };
    try {
      PointData d(raising, Shape(s), "problem: ", 1);
      ADD_FAILURE() << "a broken reference passed";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "problem add: its reference raised KeyError: 'x'");
    }
    Problem unknown_axis = add_problem();
    unknown_axis.generate = [](const Shape& shape, std::uint64_t, Buffers) { (void)shape.get_int("nope"); };
    try {
      PointData d(unknown_axis, Shape(s), "problem: ", 1);
      ADD_FAILURE() << "an unknown axis passed";
    } catch (const UsageError& e) {  // still a usage error
      EXPECT_EQ(std::string(e.what()).rfind("problem add: its generate raised benchmark b has no axis 'nope'", 0), 0u)
          << e.what();
    }
  });
}

// The fork guard (Problem::fork_guard: pitot's Python module takes the GIL through it): before and
// parent in the harness around the fork, in that order; child in the checker, before generate.
namespace {
bool g_in_checker = false;
}  // namespace

TEST(ProblemChecker, TheForkGuardRunsAroundTheFork) {
  with_point([](State& s) {
    Problem guarded = add_problem();
    std::string order;
    guarded.fork_guard.before = [&order] { order += "before "; };
    guarded.fork_guard.parent = [&order] { order += "parent "; };
    guarded.fork_guard.child = [] { g_in_checker = true; };
    guarded.generate = [](const Shape&, std::uint64_t, Buffers in) {
      for (const auto& b : in)
        for (std::int64_t i = 0; i < b.count(); ++i) b.as<float>()[i] = g_in_checker ? 1.0f : 0.0f;
    };
    PointData d(guarded, Shape(s), "problem: ", 1);
    EXPECT_EQ(order, "before parent ");
    EXPECT_FALSE(g_in_checker);  // set in the checker only
    EXPECT_EQ(static_cast<const float*>(d.input(0, 0).data())[0], 1.0f);  // generated after the child's guard
    write_answer(d, 0);
    EXPECT_TRUE(d.check(0, 0x11, 1).ok);
  });
}

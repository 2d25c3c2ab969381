// ranks::Group with real processes on 127.0.0.1 (issue 36): 2 and 4 ranks agree on a sample count,
// meet at barriers and reduce one number each; a rank that crashes or hangs fails the others with
// its rank named, fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <iomanip>
#include <set>
#include <sstream>
#include <thread>

#include "ranks/ranks.hpp"
#include "spawn.hpp"

using namespace pitot::ranks;
using namespace pitot::ranks::testing;

namespace {

constexpr double quick = 5;  // a timeout no passing test comes near

void expect_all_ok(const std::vector<RankEnd>& ends) {
  for (std::size_t r = 0; r < ends.size(); ++r)
    EXPECT_TRUE(ends[r].exited && ends[r].code == 0) << "rank " << r << ": " << ends[r].report;
}

void sleep_for(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

class Worlds : public ::testing::TestWithParam<int> {};

// Ranks arrive 80 ms apart; none may leave before the last has arrived.
TEST_P(Worlds, BarrierHoldsEveryRankUntilTheLastArrives) {
  const auto ends = run_ranks(GetParam(), [](int rank) {
    Group group = join(quick);
    sleep_for(0.08 * rank);
    const double arrived = now_seconds();
    group.barrier("the test's");
    const double left = now_seconds();
    return std::to_string(arrived) + " " + std::to_string(left);
  });
  expect_all_ok(ends);
  double last_arrival = 0, first_leaving = 1e300;
  for (const RankEnd& e : ends) {
    std::istringstream in(e.report);
    double arrived = 0, left = 0;
    in >> arrived >> left;
    last_arrival = std::max(last_arrival, arrived);
    first_leaving = std::min(first_leaving, left);
  }
  EXPECT_GE(first_leaving, last_arrival);
}

// Each rank's own rules would take a different number of samples (Triton #9683's deadlock): all
// take rank 0's, both as a count agreed up front and as a "take another" decision per sample, with
// a barrier and a gather in every sample as a timed loop would have.
TEST_P(Worlds, EveryRankTakesRankZerosNumberOfSamples) {
  const auto ends = run_ranks(GetParam(), [](int rank) {
    Group group = join(quick);
    const auto count = group.broadcast(5 + 3 * rank, "sample count");
    for (std::int64_t i = 0; i < count; ++i) {
      group.barrier("before a sample");
      group.gather(1.0 + rank, "a sample");
    }
    int decided = 0;
    while (group.broadcast(decided < 4 + rank, "take another")) {  // rank r alone would stop after 4 + r
      group.barrier("before a sample");
      group.gather(1.0 + rank, "a sample");
      ++decided;
    }
    return std::to_string(count) + " " + std::to_string(decided);
  });
  expect_all_ok(ends);
  for (std::size_t r = 0; r < ends.size(); ++r) EXPECT_EQ(ends[r].report, "5 4") << "rank " << r;
}

// The slowest rank's time is the sample; min, mean and the straggler come with it, to every rank.
TEST_P(Worlds, GatherGivesMaxMinMeanAndTheStraggler) {
  const int world = GetParam();
  const int straggler = world - 2;  // rank 0 in 2, rank 2 in 4: rank 0's own value counts too
  const auto ends = run_ranks(world, [straggler](int rank) {
    Group group = join(quick);
    const Spread s = group.gather(rank == straggler ? 50.0 : 1.0 + rank);
    std::ostringstream out;
    out << s.max << " " << s.min << " " << s.mean << " " << s.slowest;
    return out.str();
  });
  expect_all_ok(ends);
  double sum = 50;
  for (int r = 0; r < world; ++r) sum += r == straggler ? 0 : 1.0 + r;
  std::ostringstream expected;
  expected << 50.0 << " " << 1.0 + (straggler == 0 ? 1 : 0) << " " << sum / world << " " << straggler;
  for (int r = 0; r < world; ++r) EXPECT_EQ(ends[static_cast<std::size_t>(r)].report, expected.str()) << "rank " << r;
}

// Ranks arriving 30 ms apart leave together: on one host (these children share the kernel's
// clock) every rank leaves at the one moment rank 0 named, after the last arrival; without a
// shared clock each leaves as the meeting ends.
TEST_P(Worlds, ReleaseTogetherLeavesAtOneMomentAfterTheLastArrival) {
  const auto ends = run_ranks(GetParam(), [](int rank) {
    Group group = join(quick);
    const bool shared = one_clock(group);
    std::ostringstream out;
    out << std::fixed << std::setprecision(9) << shared;
    for (int i = 0; i < 3; ++i) {
      sleep_for(0.03 * rank);
      const double arrived = now_seconds();
      const std::int64_t left = release_together(group, shared, "the test's release");
      const double after = now_seconds();
      out << " " << arrived << " " << left << " " << after;
    }
    const std::int64_t alone = release_together(group, false, "without a shared clock");
    out << " " << alone;
    return out.str();
  });
  expect_all_ok(ends);
  struct Round {
    double arrived, after;
    std::int64_t left;
  };
  std::vector<std::vector<Round>> rounds(ends.size());
  std::vector<std::int64_t> alone(ends.size());
  for (std::size_t r = 0; r < ends.size(); ++r) {
    std::istringstream in(ends[r].report);
    bool shared = false;
    in >> shared;
    EXPECT_TRUE(shared) << "rank " << r << ": children of one process share the kernel's clock";
    for (int i = 0; i < 3; ++i) {
      Round x{};
      in >> x.arrived >> x.left >> x.after;
      rounds[r].push_back(x);
    }
    in >> alone[r];
  }
  for (int i = 0; i < 3; ++i) {
    double last_arrival = 0;
    for (const auto& rank_rounds : rounds) last_arrival = std::max(last_arrival, rank_rounds[static_cast<std::size_t>(i)].arrived);
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      const Round& x = rounds[r][static_cast<std::size_t>(i)];
      EXPECT_EQ(x.left, rounds[0][static_cast<std::size_t>(i)].left) << "rank " << r << ", round " << i << ": one moment for all";
      EXPECT_GE(static_cast<double>(x.left) * 1e-9, last_arrival) << "rank " << r << ", round " << i;
      EXPECT_GE(x.after, static_cast<double>(x.left) * 1e-9) << "rank " << r << ", round " << i << ": left before the moment";
    }
  }
  // Without a shared clock there is no moment to agree on: each rank's own time as it left.
  EXPECT_NE(std::set<std::int64_t>(alone.begin(), alone.end()).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Ranks, Worlds, ::testing::Values(2, 4));

// The ranks that end with `code` 3 and a message holding every one of `parts`, within `seconds`.
void expect_failed(const std::vector<RankEnd>& ends, const std::set<int>& ranks, std::initializer_list<const char*> parts, double seconds) {
  for (int r : ranks) {
    const RankEnd& e = ends[static_cast<std::size_t>(r)];
    EXPECT_TRUE(e.exited && e.code == 3) << "rank " << r << ": " << e.report;
    for (const char* part : parts) EXPECT_NE(e.report.find(part), std::string::npos) << "rank " << r << " lacks '" << part << "': " << e.report;
    EXPECT_LT(e.seconds, seconds) << "rank " << r << ": " << e.report;
  }
}

// A rank killed mid-run: the others fail at their next wait, long before its 10 s timeout.
TEST(Ranks, CrashedRankFailsTheOthersAtOnce) {
  for (const int crashed : {2, 0}) {
    const auto ends = run_ranks(4, [crashed](int rank) {
      Group group = join(10);
      group.barrier();
      if (rank == crashed) ::raise(SIGKILL);
      group.barrier("before sample 1");
      return std::string("passed the barrier");
    });
    EXPECT_EQ(ends[static_cast<std::size_t>(crashed)].signal, SIGKILL) << ends[static_cast<std::size_t>(crashed)].report;
    std::set<int> others{0, 1, 2, 3};
    others.erase(crashed);
    const std::string named = "rank " + std::to_string(crashed) + " closed its connection";
    expect_failed(ends, others, {named.c_str(), "barrier 'before sample 1'"}, 4);
  }
}

// A rank that stops answering: rank 0 times out after 1 s and tells the others which rank it was;
// when rank 0 is the one, the others time out on it themselves (0.5 s later).
TEST(Ranks, HungRankTimesTheOthersOut) {
  for (const int hung : {3, 0}) {
    const auto ends = run_ranks(
        4,
        [hung](int rank) {
          Group group = join(1);
          if (rank == hung) sleep_for(30);
          group.barrier("before sample 1");
          return std::string("passed the barrier");
        },
        {hung});
    EXPECT_EQ(ends[static_cast<std::size_t>(hung)].signal, SIGKILL) << ends[static_cast<std::size_t>(hung)].report;
    std::set<int> others{0, 1, 2, 3};
    others.erase(hung);
    const std::string named = "waiting for rank " + std::to_string(hung) + " at the barrier 'before sample 1'";
    expect_failed(ends, others, {"timed out after", named.c_str()}, 3.5);
    for (int r : others) EXPECT_GT(ends[static_cast<std::size_t>(r)].seconds, 0.9) << "rank " << r << " did not wait out its timeout";
  }
}

// A rank that never starts: the join times out on rank 0, and rank 0 names it to the one that came.
TEST(Ranks, JoinTimesOutNamingTheRankThatNeverCame) {
  const auto ends = run_ranks(3, [](int rank) {
    if (rank == 2) return std::string("never joined");
    join(0.5);
    return std::string("joined");
  });
  expect_failed(ends, {0, 1}, {"timed out after 0.5 s waiting for rank 2 to connect to 127.0.0.1:"}, 3);
}

// Ranks that call different collectives fail with both named instead of deadlocking or mixing them up.
TEST(Ranks, CollectivesOutOfOrderFailNamingBoth) {
  const auto ends = run_ranks(2, [](int rank) {
    Group group = join(quick);
    if (rank == 1) group.gather(1.0, "a sample");
    group.barrier("before a sample");
    return std::string("passed");
  });
  expect_failed(ends, {0, 1}, {"rank 1 is at the gather (collective 1) while rank 0 is at the barrier 'before a sample' (collective 1)"}, 3);
}

}  // namespace

namespace pitot::ranks::testing {
namespace {

// Rank 0's bytes (an NCCL unique id is 128; 300 spans two frames, zeros included) on every rank.
TEST(Ranks, BroadcastBytesGivesRankZerosBytes) {
  const auto ends = run_ranks(3, [](int rank) {
    Group group = join(quick);
    std::string mine(300, static_cast<char>('a' + rank));
    mine[7] = '\0';
    const std::string got = group.broadcast_bytes(mine, "unique id");
    std::string expected(300, 'a');
    expected[7] = '\0';
    return std::string(got == expected ? "same" : "differs") + " " + std::to_string(got.size());
  });
  for (const RankEnd& e : ends) EXPECT_EQ(e.report, "same 300");
}

// A rank whose benchmark failed aborts the group: the others fail at once with its reason, long
// before their 10 s timeout.
TEST(Ranks, AbortTellsTheOthersWhy) {
  const auto ends = run_ranks(4, [](int rank) {
    Group group = join(10);
    if (rank == 1) {
      group.abort("cudaMalloc ran out of memory");
      return "aborted: " + group.failure();
    }
    group.barrier("before sample 1");
    return std::string("passed the barrier");
  });
  EXPECT_NE(ends[1].report.find("aborted: rank 1 failed: cudaMalloc ran out of memory"), std::string::npos) << ends[1].report;
  for (int r : {0, 2, 3}) {
    const RankEnd& e = ends[static_cast<std::size_t>(r)];
    EXPECT_NE(e.report.find("rank 1 failed: cudaMalloc ran out of memory"), std::string::npos) << "rank " << r << ": " << e.report;
    EXPECT_LT(e.seconds, 4) << "rank " << r;
  }
}

}  // namespace
}  // namespace pitot::ranks::testing

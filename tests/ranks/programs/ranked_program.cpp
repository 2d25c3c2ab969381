// A multi-rank benchmark program for tests/ranks/test_ranked_program.cpp: rank r's sample takes a
// known time, so the test can tell the slowest rank's sample and the straggler; each rank counts
// the calls of its body (PITOT_TEST_COUNTS: a folder, one file per rank and benchmark) so the test
// can tell that every rank ran the work equally often. PITOT_TEST_FAIL_RANK makes that rank
// crash (SIGKILL), hang, or throw at its third sample.
#include <pitot/pitot.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

void count_call(const pitot::State& state) {
  const char* folder = std::getenv("PITOT_TEST_COUNTS");
  if (!folder) return;
  static std::map<std::string, int> calls;  // points run one at a time in these tests
  const int n = ++calls[state.benchmark_name()];
  std::ofstream(std::string(folder) + "/" + state.benchmark_name() + "." + std::to_string(state.rank())) << n;
}

void spin_for(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
  }
}

// Rank world/2 is the slowest (0.3 ms a sample); the others 0.1 ms plus 10 us per rank.
double seconds_of(int rank, int world) { return rank == world / 2 ? 3e-4 : 1e-4 + 1e-5 * rank; }

void by_rank(pitot::State& state) {
  state.exec_manual([&] {
    count_call(state);
    const double s = seconds_of(state.rank(), state.world_size());
    spin_for(s);
    return s;
  });
}
PITOT_BENCHMARK(by_rank).multi_rank();

// The same on the host clock: the recorded sample is the slowest rank's measured time.
void spin_by_rank(pitot::State& state) {
  state.exec([&] { spin_for(seconds_of(state.rank(), state.world_size())); });
}
PITOT_BENCHMARK(spin_by_rank).multi_rank();

// A rank that fails at its third sample; the others must learn it within the timeout.
void failing_rank(pitot::State& state) {
  const char* what = std::getenv("PITOT_TEST_FAIL");
  const char* rank = std::getenv("PITOT_TEST_FAIL_RANK");
  int calls = 0;
  state.exec_manual([&] {
    if (what && rank && std::atoi(rank) == state.rank() && ++calls == 3) {
      if (std::string(what) == "crash") std::raise(SIGKILL);
      if (std::string(what) == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
      throw std::runtime_error("rank " + std::string(rank) + " ran out of memory");
    }
    spin_for(1e-4);
    return 1e-4;
  });
}
PITOT_BENCHMARK(failing_rank).multi_rank().timeout(1);

// Not multi-rank: in a multi-rank world it runs on rank 0 alone.
void alone(pitot::State& state) {
  state.exec_manual([&] {
    count_call(state);
    return 1e-4;
  });
}
PITOT_BENCHMARK(alone);

}  // namespace

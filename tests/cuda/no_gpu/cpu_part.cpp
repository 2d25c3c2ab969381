// The CPU half of a mixed program: it must run whether or not the machine has a GPU.
#include <pitot/pitot.hpp>

#include <numeric>
#include <vector>

namespace {
void cpu_sum(pitot::State& state) {
  std::vector<int> v(static_cast<std::size_t>(state.get_int("n")), 1);
  state.add_items(static_cast<double>(v.size()));
  state.exec([&] {
    volatile int sum = std::accumulate(v.begin(), v.end(), 0);
    (void)sum;
  });
}
}  // namespace
PITOT_BENCHMARK(cpu_sum).axis("n", {100, 1000});

#include <pitot/pitot.hpp>

#include <numeric>
#include <vector>

void sum(pitot::State& state) {
  std::vector<int> v(static_cast<std::size_t>(state.get_int("n")), 1);
  state.add_items(static_cast<double>(v.size()));
  state.exec([&] {
    volatile int total = std::accumulate(v.begin(), v.end(), 0);
    (void)total;
  });
}
PITOT_BENCHMARK(sum).axis("n", {1000});

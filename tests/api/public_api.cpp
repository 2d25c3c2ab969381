// What a benchmark author sees of pitot, checked from outside (tests/api/CMakeLists.txt): as it is,
// this file uses the public API and compiles; with PITOT_TRY set, it uses one of pitot's own names
// (the registry, the samplers' schedule, backend info, the repr helpers, a detail header) through
// the public headers, and must not compile.
#if PITOT_TRY_DETAIL_INCLUDE
#include <pitot/detail/sampler.hpp>
#endif
#include <pitot/pitot.hpp>

namespace {

void body(pitot::State& state) {
  state.add_items(1);
  state.exec([] {});
#if PITOT_TRY_REGISTRY
  (void)pitot::registry();
#elif PITOT_TRY_BENCHMARK_DEF
  pitot::BenchmarkDef def;
  (void)def;
#elif PITOT_TRY_STATE_RUN
  auto seconds = [] { return 1e-3; };
  pitot::detail::ManualSampler<decltype(seconds)> sampler(seconds);
  state.run(sampler);
#elif PITOT_TRY_POINT_RUN
  (void)state.point_run();
#elif PITOT_TRY_SET_BACKEND_INFO
  state.set_backend_info("timing", "\"cold\"");
#elif PITOT_TRY_DETAIL_SET_BACKEND_INFO
  pitot::detail::set_backend_info(state, "timing", "\"cold\"");
#elif PITOT_TRY_PYTHON_REPR
  (void)pitot::python_repr(pitot::AxisValue{1.0});
#endif
}
PITOT_BENCHMARK(body).axis("n", {1, 2}).axis_pow2("m", {4}).version("2").timeout(5);

}  // namespace

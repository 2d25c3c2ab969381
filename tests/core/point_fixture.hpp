// Runs a test's body as the only point of a benchmark, for the tests that need a State (a Shape,
// a problem's PointData): test_problem.cpp and test_problem_checker.cpp.
#pragma once

#include <deque>
#include <functional>

#include <gtest/gtest.h>

#include <pitot/pitot.hpp>

#include "core/engine.hpp"

namespace pitot::test {

// `body`'s point runs to its end (checked) and its result is returned.
inline PointResult with_point(const std::function<void(State&)>& body) {
  std::deque<BenchmarkDef> defs(1);
  defs[0].name = "b";
  defs[0].fn = [&](State& s) {
    body(s);
    s.exec([] {});
  };
  RunConfig c;
  c.warmup_seconds = 0;
  c.min_samples = 1;
  c.max_seconds = 0.01;
  PointResult out;
  run_points("test", plan_points(defs), c, [&](const PointResult& r) { out = r; });
  EXPECT_EQ(out.status, PointStatus::Ok) << out.reason;  // the body ran to its end
  return out;
}

}  // namespace pitot::test

// HIP backend checks on a real AMD GPU, through pitot's engine. Exits 77 (skipped) without one.
// Written alongside the backend but never run on AMD hardware yet (see docs/hip-backend.md).
#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <vector>

#include <hip/hip_runtime_api.h>

#include <pitot/hip.hpp>
#include <pitot/pitot.hpp>

#include "core/backend.hpp"
#include "core/engine.hpp"
#include "gpu_kernels.hpp"
#include "hip/error.hpp"

namespace {

// Runs benchmark functions as single points with a short schedule; returns their results.
std::vector<pitot::PointResult> run(std::vector<std::pair<std::string, pitot::BenchmarkFn>> fns,
                                    const std::string& timing = "cold") {
  std::deque<pitot::BenchmarkDef> defs;
  for (auto& [name, fn] : fns) {
    pitot::BenchmarkDef d;
    d.name = name;
    d.fn = fn;
    defs.push_back(std::move(d));
  }
  pitot::DeviceOptions device;
  device.timing = pitot::timing_from_name(timing).value();
  pitot::RunConfig config;
  config.warmup_seconds = 0.01;
  config.min_samples = 10;
  config.max_seconds = 0.3;
  config.interleave = 1;
  std::vector<pitot::PointResult> results;
  pitot::PointHooks hooks;
  hooks.on_thread_start = [](const pitot::PlannedPoint&) { pitot::device_backend()->bind_thread(0); };
  pitot::run_points(
      "test_hip_gpu", pitot::plan_points(defs), config,
      [&](const pitot::PointResult& r) { results.push_back(r); }, hooks, device);
  return results;
}

struct Floats {
  explicit Floats(std::int64_t n) {
    PITOT_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)));
    PITOT_HIP_CHECK(hipMemset(p, 1, n * sizeof(float)));  // never zeros
  }
  ~Floats() { (void)hipFree(p); }
  float* p = nullptr;
};

void empty(pitot::State& s) {
  s.exec([](pitot::Launch& l) { PITOT_HIP_CHECK(launch_empty(l.stream())); });
}

constexpr std::int64_t kCopyN = std::int64_t{1} << 22;  // 32 MB in + out: fits the Infinity Cache
void copy(pitot::State& s) {
  Floats in(kCopyN), out(kCopyN);
  s.add_bytes(2.0 * 4 * kCopyN);
  s.exec([&](pitot::Launch& l) { PITOT_HIP_CHECK(launch_copy(in.p, out.p, kCopyN, l.stream())); });
}

class Modes : public testing::TestWithParam<const char*> {};

TEST_P(Modes, TimesEmptyAndCopyKernels) {
  auto results = run({{"empty", empty}, {"copy", copy}}, GetParam());
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.name);
    ASSERT_EQ(r.status, pitot::PointStatus::Ok) << r.reason;
    EXPECT_EQ(r.backend, "hip");
    EXPECT_EQ(r.backend_info.value("timing", ""), GetParam());
    EXPECT_GT(r.backend_info.value("event_resolution_seconds", 0.0), 0.0);
    EXPECT_GE(r.number, 1);
    ASSERT_GE(r.samples.size(), 10u);
    ASSERT_TRUE(r.stats.has_value());
    EXPECT_GT(r.stats->median, 0.0);
    EXPECT_LT(r.stats->median, 1e-3);  // an empty kernel or a 32 MB copy: far under a millisecond
  }
}
INSTANTIATE_TEST_SUITE_P(Hip, Modes, testing::Values("cold", "hot", "graph"));

TEST(Cold, FlushMakesACachedCopySlower) {
  const double cold = run({{"copy", copy}}, "cold").at(0).stats->median;
  const double hot = run({{"copy", copy}}, "hot").at(0).stats->median;
  EXPECT_GT(cold, hot) << "the 32 MB copy stays in the Infinity Cache unless the flush evicts it";
}

TEST(Rotations, CycleOverInputSets) {
  int* seen = nullptr;
  PITOT_HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&seen), 4 * sizeof(int)));
  PITOT_HIP_CHECK(hipMemset(seen, 0, 4 * sizeof(int)));
  auto results = run({{"rotate", [&](pitot::State& s) {
                         pitot::hip::set_rotations(s, 4);
                         s.exec([&](pitot::Launch& l) { PITOT_HIP_CHECK(launch_record_rotation(seen, l.rotation(), l.stream())); });
                       }}},
                     "hot");
  ASSERT_EQ(results.at(0).status, pitot::PointStatus::Ok) << results.at(0).reason;
  int host[4] = {};
  PITOT_HIP_CHECK(hipMemcpy(host, seen, sizeof host, hipMemcpyDeviceToHost));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(host[i], 1) << "rotation " << i;
  (void)hipFree(seen);
}

TEST(Errors, ThrowingWorkNeverLeavesTheGpuBlocked) {
  int calls = 0;
  auto results = run({{"throws", [&](pitot::State& s) {
                         s.exec([&](pitot::Launch& l) {
                           if (++calls > 3) throw std::runtime_error("author's error");
                           PITOT_HIP_CHECK(launch_empty(l.stream()));
                         });
                       }},
                      {"after", empty}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, pitot::PointStatus::Failed);
  EXPECT_EQ(results[1].status, pitot::PointStatus::Ok) << results[1].reason;
}

TEST(Facts, DescribeTheDevice) {
  const auto facts = pitot::device_backend()->device_facts(0);
  ASSERT_TRUE(facts.is_object());
  EXPECT_EQ(facts.value("gpu_arch", "").rfind("gfx", 0), 0u);
  EXPECT_GT(facts.value("gpu_cu_count", 0), 0);
  EXPECT_FALSE(facts.value("hip_runtime", "").empty());
  EXPECT_FALSE(pitot::device_backend()->machine_name(0).empty());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string missing = pitot::hip::missing_device_message();
  if (!missing.empty()) {
    std::printf("skipped: %s\n", missing.c_str());
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// CUDA backend checks on a real GPU, through pitot's engine. Exits 77 (skipped) without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <set>
#include <vector>

#include <pitot/cuda.hpp>
#include <pitot/pitot.hpp>

#include "core/backend.hpp"
#include "core/engine.hpp"
#include "gpu_kernels.hpp"

namespace {

// Runs benchmark functions as single points with a short schedule; returns their results.
std::vector<pitot::PointResult> run(std::vector<std::pair<std::string, pitot::BenchmarkFn>> fns,
                                    const std::string& timing = "cold", const std::string& clock = "") {
  std::deque<pitot::BenchmarkDef> defs;
  for (auto& [name, fn] : fns) {
    pitot::BenchmarkDef d;
    d.name = name;
    d.fn = fn;
    defs.push_back(std::move(d));
  }
  pitot::DeviceOptions device;
  device.timing = pitot::timing_from_name(timing).value();
  device.clock = pitot::clock_from_name(clock);  // "": the default
  pitot::RunConfig config;
  config.warmup_seconds = 0.01;
  config.min_samples = 10;
  config.max_seconds = 0.3;
  config.interleave = 1;
  std::vector<pitot::PointResult> results;
  pitot::PointHooks hooks;
  hooks.on_thread_start = [](const pitot::PlannedPoint&) { pitot::device_backend()->bind_thread(0); };
  pitot::run_points(
      "test_cuda_gpu", pitot::plan_points(defs), config,
      [&](const pitot::PointResult& r) { results.push_back(r); }, hooks, device);
  return results;
}

struct Floats {
  explicit Floats(std::int64_t n) {
    PITOT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)));
    PITOT_CUDA_CHECK(cudaMemset(p, 1, n * sizeof(float)));  // never zeros
  }
  ~Floats() { cudaFree(p); }
  float* p = nullptr;
};

void empty(pitot::State& s) {
  s.exec([](pitot::Launch& l) { launch_empty(l.stream()); });
}

constexpr std::int64_t kCopyN = std::int64_t{1} << 22;  // 32 MB in + out: fits the L2 of big GPUs
void copy(pitot::State& s) {
  Floats in(kCopyN), out(kCopyN);
  s.add_bytes(2.0 * 4 * kCopyN);
  s.exec([&](pitot::Launch& l) { launch_copy(in.p, out.p, kCopyN, l.stream()); });
}

class Modes : public testing::TestWithParam<const char*> {};

TEST_P(Modes, TimesEmptyAndCopyKernels) {
  auto results = run({{"empty", empty}, {"copy", copy}}, GetParam());
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.name);
    ASSERT_EQ(r.status, pitot::PointStatus::Ok) << r.reason;
    EXPECT_EQ(r.backend, "cuda");
    EXPECT_EQ(r.backend_info.value("timing", ""), GetParam());
    EXPECT_GE(r.number, 1);
    ASSERT_GE(r.samples.size(), 10u);
    ASSERT_TRUE(r.stats.has_value());
    EXPECT_GT(r.stats->median, 0.0);
    EXPECT_LT(r.stats->median, 1e-3);  // an empty kernel or a 32 MB copy: far under a millisecond
    // The SM clock is measured on every sample and lands near the nominal clock.
    ASSERT_FALSE(r.clock_ratios.empty());
    for (double c : r.clock_ratios) {
      EXPECT_GT(c, 0.1);
      EXPECT_LT(c, 2.0);
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Cuda, Modes, testing::Values("cold", "hot", "graph"));

void memcpy_copy(pitot::State& s) {
  Floats in(kCopyN), out(kCopyN);
  s.exec([&](pitot::Launch& l) {
    PITOT_CUDA_CHECK(cudaMemcpyAsync(out.p, in.p, kCopyN * sizeof(float), cudaMemcpyDeviceToDevice, l.stream()));
  });
}

TEST(Cold, FlushMakesACachedCopySlower) {
  // In hot mode the 32 MB copy is served from L2 (an H200: ~6.7 us); cold mode flushes it
  // before every launch (~11.5 us).
  // Both read by events: the kernel clock would also leave the events' own ~3 us out of cold.
  const double cold = run({{"memcpy", memcpy_copy}}, "cold", "events").at(0).stats.value().median;
  const double hot = run({{"memcpy", memcpy_copy}}, "hot").at(0).stats.value().median;
  EXPECT_GT(cold, 1.3 * hot) << "cold " << cold << " s, hot " << hot << " s";
}

TEST(Rotations, CycleOverInputSets) {
  std::vector<int> seen;
  run({{"rotating", [&](pitot::State& s) {
          pitot::cuda::set_rotations(s, 3);
          s.exec([&](pitot::Launch& l) {
            seen.push_back(l.rotation());
            launch_empty(l.stream());
          });
        }}},
      "hot");
  ASSERT_GT(seen.size(), 6u);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_EQ(seen[i], (seen[i - 1] + 1) % 3);
  EXPECT_EQ(std::set<int>(seen.begin(), seen.end()), (std::set<int>{0, 1, 2}));
}

TEST(Errors, BadLaunchFailsOnlyItsPoint) {
  auto results = run({{"bad_config", [](pitot::State& s) { s.exec([](pitot::Launch& l) { launch_too_many_threads(l.stream()); }); }},
                      {"after", empty}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, pitot::PointStatus::Failed);
  EXPECT_NE(results[0].reason.find("bad_config"), std::string::npos) << results[0].reason;
  // The launch's error (cudaErrorInvalidValue or InvalidConfiguration, by CUDA version) and the call.
  EXPECT_NE(results[0].reason.find("cudaPeekAtLastError"), std::string::npos) << results[0].reason;
  EXPECT_NE(results[0].reason.find("(cudaErrorInvalid"), std::string::npos) << results[0].reason;
  EXPECT_EQ(results[1].status, pitot::PointStatus::Ok) << results[1].reason;
  EXPECT_FALSE(pitot::cuda::device_lost());
}

TEST(Errors, ThrowingWorkNeverLeavesTheGpuBlocked) {
  auto results = run({{"throws_later", [](pitot::State& s) {
                         int calls = 0;
                         s.exec([&](pitot::Launch& l) {
                           // Past warm-up, inside a sample: the blocker must be released.
                           if (++calls > 20) throw std::runtime_error("author's error");
                           launch_empty(l.stream());
                         });
                       }},
                      {"after", empty}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, pitot::PointStatus::Failed);
  EXPECT_NE(results[0].reason.find("author's error"), std::string::npos) << results[0].reason;
  // A blocked GPU would hold the stream for the blocker's 2 s timeout.
  EXPECT_LT(results[0].duration_seconds, 1.5);
  EXPECT_EQ(results[1].status, pitot::PointStatus::Ok) << results[1].reason;
}

TEST(Facts, DescribeTheDevice) {
  const auto* b = pitot::device_backend();
  const auto facts = b->device_facts(0);
  ASSERT_TRUE(facts.is_object());
  for (const char* key : {"gpu", "gpu_arch", "gpu_sm_count", "gpu_sm_clock_mhz", "gpu_memory_gib", "gpu_l2_mib",
                          "gpu_ecc", "cuda_driver_api", "cuda_runtime"})
    EXPECT_TRUE(facts.contains(key)) << key << " missing from " << facts.dump();
  EXPECT_FALSE(b->machine_name(0).empty());
  std::printf("device facts: %s\nmachine name: %s\n", facts.dump().c_str(), b->machine_name(0).c_str());
}

TEST(DeviceLost, StickyErrorFailsThePointAndMarksTheDevice) {
  auto results = run({{"illegal", [](pitot::State& s) { s.exec([](pitot::Launch& l) { launch_illegal_write(l.stream()); }); }}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, pitot::PointStatus::Failed);
  EXPECT_NE(results[0].reason.find("illegal"), std::string::npos) << results[0].reason;
  EXPECT_NE(results[0].reason.find("cudaErrorIllegalAddress"), std::string::npos) << results[0].reason;
  EXPECT_TRUE(pitot::cuda::device_lost());
  EXPECT_TRUE(pitot::device_backend()->device_lost());
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device (cudaGetDeviceCount: %s)\n",
                status == cudaSuccess ? "0 devices" : cudaGetErrorString(status));
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

namespace {
std::string info(const pitot::PointResult& r, const char* key) {
  if (!r.backend_info.contains(key)) return "";
  const auto& v = r.backend_info[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}
}  // namespace

TEST(KernelClock, ReadsOneWaveKernelsAndDeclinesManyWaves) {
  auto empty = [](pitot::State& s) { s.exec([](pitot::Launch& l) { launch_empty(l.stream()); }); };
  auto big_copy = [](pitot::State& s) {
    const std::int64_t n = std::int64_t{1} << 24;  // 65536 blocks: many waves
    Floats in(n), out(n);
    s.exec([&](pitot::Launch& l) { launch_copy(in.p, out.p, n, l.stream()); });
  };
  const auto results = run({{"empty", empty}, {"big_copy", big_copy}});
  ASSERT_EQ(results.size(), 2u);
  if (!info(results[0], "kernel_clock_unavailable").empty())
    GTEST_SKIP() << "no kernel clock here: " << info(results[0], "kernel_clock_unavailable");
  for (const auto& r : results) ASSERT_EQ(r.status, pitot::PointStatus::Ok) << r.name << ": " << r.reason;
  // The empty kernel is one block: read by the kernel clock, well under the events' ~3 us.
  EXPECT_EQ(info(results[0], "clock"), "kernel");
  EXPECT_LT(results[0].stats->median, 1.5e-6);
  EXPECT_TRUE(results[0].backend_info.contains("kernel_clock"));
  // The copy declines it, and says why.
  EXPECT_EQ(info(results[1], "clock"), "events");
  EXPECT_NE(info(results[1], "kernel_clock_declined").find("waves of blocks"), std::string::npos)
      << info(results[1], "kernel_clock_declined");
  // Forced, the copy is read by the kernel clock.
  const auto forced = run({{"big_copy", big_copy}}, "cold", "kernel");
  EXPECT_EQ(info(forced.at(0), "clock"), "kernel");
}

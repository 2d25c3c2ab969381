// HIP backend checks that need no AMD GPU: facts, timing arithmetic, rocTX loading, errors, and
// the backend's behaviour on a machine without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <pitot/benchmark.hpp>
#include <pitot/hip.hpp>

#include "core/backend.hpp"
#include "hip/error.hpp"
#include "hip/facts.hpp"
#include "hip/roctx.hpp"
#include "hip/sampler.hpp"
#include "hip/timing.hpp"

namespace {

using namespace pitot::hip;

TEST(MachineName, FromProduct) {
  EXPECT_EQ(machine_name_from_product("AMD Instinct MI300X", "gfx942:sramecc+:xnack-"), "mi300x");
  EXPECT_EQ(machine_name_from_product("AMD Instinct MI325X", "gfx942:sramecc+:xnack-"), "mi325x");
  EXPECT_EQ(machine_name_from_product("AMD Instinct MI355X", "gfx950"), "mi355x");
  EXPECT_EQ(machine_name_from_product("AMD Instinct MI300A", "gfx942"), "mi300a");
  EXPECT_EQ(machine_name_from_product("AMD Instinct MI250X/MI250", "gfx90a:sramecc+:xnack-"), "mi250x-mi250");
  EXPECT_EQ(machine_name_from_product("AMD Radeon RX 7900 XTX", "gfx1100"), "rx-7900-xtx");
}

TEST(MachineName, UnnamedBoardsFallBackToTheArchitecture) {
  EXPECT_EQ(machine_name_from_product("", "gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(machine_name_from_product("Device 74a1", "gfx942"), "gfx942");
  EXPECT_EQ(machine_name_from_product("AMD", "gfx90a"), "gfx90a");
}

TEST(Facts, Architecture) {
  EXPECT_EQ(gfx_arch("gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(gfx_arch_features("gfx942:sramecc+:xnack-"), "sramecc+:xnack-");
  EXPECT_EQ(gfx_arch("gfx90a"), "gfx90a");
  EXPECT_EQ(gfx_arch_features("gfx90a"), "");
}

TEST(Facts, Versions) {
  EXPECT_EQ(hip_version_text(50221153), "5.2.21153");
  EXPECT_EQ(hip_version_text(60342134), "6.3.42134");
  EXPECT_EQ(hip_version_text(0), "");
  EXPECT_EQ(rocm_version_from_info("6.3.1-48\n"), "6.3.1");
  EXPECT_EQ(rocm_version_from_info("  6.2.0\n"), "6.2.0");
  EXPECT_EQ(rocm_version_from_info(""), "");
  EXPECT_EQ(rocm_version_from_info("<html>"), "");
  EXPECT_EQ(first_line("6.8.5\nmore\n"), "6.8.5");
}

TEST(Flush, SizedForEveryCacheOfTheGpu) {
  constexpr std::size_t MiB = std::size_t{1} << 20;
  // MI300X / MI325X / MI355X: 8 XCDs with 4 MiB of L2 each, and the 256 MiB Infinity Cache.
  EXPECT_EQ(l2_instances("gfx942"), 8);
  EXPECT_EQ(infinity_cache_bytes("gfx942"), 256 * MiB);
  EXPECT_EQ(infinity_cache_bytes("gfx950"), 256 * MiB);
  EXPECT_EQ(flush_bytes(4 * MiB, l2_instances("gfx942"), infinity_cache_bytes("gfx942")), 576 * MiB);
  // MI200 (one GCD): 8 MiB of L2, no Infinity Cache.
  EXPECT_EQ(l2_instances("gfx90a"), 1);
  EXPECT_EQ(infinity_cache_bytes("gfx90a"), 0u);
  EXPECT_EQ(flush_bytes(8 * MiB, 1, 0), 16 * MiB);
  // Never under 8 MiB, even when the runtime reports no L2.
  EXPECT_EQ(flush_bytes(0, 1, 0), 8 * MiB);
}

TEST(Flush, OverrideFromTheEnvironment) {
  EXPECT_EQ(parse_flush_bytes("640M"), std::size_t{640} << 20);
  EXPECT_EQ(parse_flush_bytes("1G"), std::size_t{1} << 30);
  EXPECT_EQ(parse_flush_bytes("4k"), std::size_t{4096});
  EXPECT_EQ(parse_flush_bytes("123456"), std::size_t{123456});
  for (const char* bad : {"", "0", "12X", "-5", "1.5G", "M", "10MB", "99999999999999999999"})
    EXPECT_THROW(parse_flush_bytes(bad), pitot::UsageError) << bad;
}

TEST(NoDevice, MessageSaysWhatIsMissingAndWhatToDo) {
  const std::string missing = no_device_message("hipErrorNoDevice", KfdState::Missing);
  EXPECT_NE(missing.find("no AMD GPU"), std::string::npos);
  EXPECT_NE(missing.find("hipErrorNoDevice"), std::string::npos);
  EXPECT_NE(missing.find("amdgpu kernel driver"), std::string::npos);
  EXPECT_NE(missing.find("CUDA"), std::string::npos);
  EXPECT_NE(no_device_message("x", KfdState::NoAccess).find("'render' and 'video' groups"), std::string::npos);
  EXPECT_NE(no_device_message("x", KfdState::Present).find("HIP_VISIBLE_DEVICES"), std::string::npos);
}

TEST(Timing, WindowIsLongEnoughForTheEventResolution) {
  EXPECT_DOUBLE_EQ(sample_window_seconds(0, 1e-6), kDefaultSampleSeconds);
  EXPECT_DOUBLE_EQ(sample_window_seconds(1e-2, 1e-6), 1e-2);
  // A short request still spans 200 event steps.
  EXPECT_DOUBLE_EQ(sample_window_seconds(1e-5, 1e-6), 200e-6);
  EXPECT_DOUBLE_EQ(sample_window_seconds(1e-5, 1e-8), 1e-5);
}

TEST(Timing, LaunchesPerWindow) {
  EXPECT_EQ(launches_per_window(10e-6, 1e-3, 128), 100);
  EXPECT_EQ(launches_per_window(1e-6, 1e-3, 128), 128);
  EXPECT_EQ(launches_per_window(5e-3, 1e-3, 128), 1);
  EXPECT_EQ(launches_per_window(0, 1e-3, 128), 128);
}

TEST(Timing, ColdLaunchesAverageAwayCoarseEvents) {
  // A 2 us launch read with 1 us steps needs many launches per sample: as many as allowed.
  EXPECT_EQ(cold_launches(2e-6, 100e-6, 1e-3, 1e-6, 32), 32);
  // A 1 ms launch: one per sample, the steps are 0.1% of it.
  EXPECT_EQ(cold_launches(1e-3, 100e-6, 1e-3, 1e-6, 32), 1);
  // A 100 us launch with 1 us steps: (41 * 0.01)^2 < 1, so the window decides: 1 ms / 200 us = 5.
  EXPECT_EQ(cold_launches(100e-6, 100e-6, 1e-3, 1e-6, 32), 5);
  // With fine (10 ns) steps the resolution never asks for more than the window does.
  EXPECT_EQ(cold_launches(2e-6, 100e-6, 1e-3, 1e-8, 32), 10);
}

TEST(Timing, EventTickFromQuantizedWindows) {
  EXPECT_NEAR(event_tick_seconds({3e-6, 4e-6, 3e-6, 5e-6, 4e-6, 7e-6}), 1e-6, 1e-12);
  EXPECT_NEAR(event_tick_seconds({2.51e-6, 2.52e-6, 2.55e-6}), 1e-8, 1e-12);
  EXPECT_EQ(event_tick_seconds({3e-6, 3e-6, 3e-6}), 0.0);
  EXPECT_EQ(event_tick_seconds({}), 0.0);
}

TEST(Timing, ProfilerDetection) {
  auto with = [](std::map<std::string, std::string> env) {
    return profiler_attached([&](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    });
  };
  EXPECT_FALSE(with({}));
  EXPECT_FALSE(with({{"LD_PRELOAD", "libjemalloc.so"}, {"HSA_TOOLS_LIB", ""}}));
  EXPECT_TRUE(with({{"LD_PRELOAD", "/opt/rocm/lib/librocprofiler-sdk-tool.so"}}));
  EXPECT_TRUE(with({{"HSA_TOOLS_LIB", "librocprofiler64.so"}}));
  EXPECT_TRUE(with({{"ROCP_TOOL_LIBRARIES", "libtool.so"}}));
}

TEST(Modes, Parse) {
  EXPECT_EQ(pitot::timing_from_name("cold"), Mode::Cold);
  EXPECT_EQ(pitot::timing_from_name("hot"), Mode::Hot);
  EXPECT_EQ(pitot::timing_from_name("graph"), Mode::Graph);
  EXPECT_EQ(pitot::timing_from_name("warm"), std::nullopt);
  EXPECT_STREQ(pitot::name_of(Mode::Graph), "graph");
}

TEST(Roctx, CandidatesInOrder) {
  auto c = roctx_candidates(nullptr, "/rocm");
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[0], "librocprofiler-sdk-roctx.so.1");
  EXPECT_EQ(c[2], "libroctx64.so.4");
  EXPECT_NE(std::find(c.begin(), c.end(), "/rocm/lib/libroctx64.so"), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), "/opt/rocm/lib/librocprofiler-sdk-roctx.so"), c.end());
  EXPECT_EQ(roctx_candidates("/x/libmine.so", "/rocm"), std::vector<std::string>{"/x/libmine.so"});
}

TEST(Roctx, AbsentLibraryMakesEveryCallANoOp) {
  Roctx roctx({"/nonexistent/libroctx64.so", "libpitot-no-such-roctx.so"});
  EXPECT_FALSE(roctx.loaded());
  EXPECT_EQ(roctx.library(), "");
  EXPECT_NE(roctx.why_not(), "");
  roctx.push("range");
  roctx.pop();
  roctx.profiler_resume();
  roctx.profiler_pause();
}

TEST(Roctx, LoadsTheLibraryAtRunTimeAndCallsIt) {
  const char* path = PITOT_FAKE_ROCTX;
  Roctx roctx({"/nonexistent/libroctx64.so", path});
  ASSERT_TRUE(roctx.loaded()) << roctx.why_not();
  EXPECT_EQ(roctx.library(), path);
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);  // the same copy pitot opened
  ASSERT_NE(handle, nullptr);
  auto counter = [&](const char* name) { return reinterpret_cast<int (*)()>(dlsym(handle, name))(); };
  roctx.push("pitot:bench[n=1]");
  roctx.push("inner");
  roctx.pop();
  roctx.pop();
  roctx.profiler_resume();
  roctx.profiler_pause();
  EXPECT_EQ(counter("fake_roctx_pushes"), 2);
  EXPECT_EQ(counter("fake_roctx_pops"), 2);
  EXPECT_EQ(counter("fake_roctx_resumes"), 1);
  EXPECT_EQ(counter("fake_roctx_pauses"), 1);
  EXPECT_STREQ(reinterpret_cast<const char* (*)()>(dlsym(handle, "fake_roctx_last_name"))(), "inner");
}

TEST(Errors, StickyClassification) {
  EXPECT_TRUE(is_sticky(hipErrorIllegalAddress));
  EXPECT_TRUE(is_sticky(hipErrorLaunchFailure));
  EXPECT_FALSE(is_sticky(hipErrorInvalidValue));
  EXPECT_FALSE(is_sticky(hipErrorOutOfMemory));
}

TEST(Errors, MessageNamesPointAndCall) {
  PointContext context("bench[n=4]");
  try {
    check(hipErrorInvalidValue, "hipMemcpy(a, b)", "bench.cu", 12);
    FAIL() << "check did not throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code, hipErrorInvalidValue);
    EXPECT_NE(what.find("bench[n=4]: "), std::string::npos) << what;
    EXPECT_NE(what.find("hipMemcpy(a, b) at bench.cu:12 failed"), std::string::npos) << what;
    EXPECT_NE(what.find("hipErrorInvalidValue"), std::string::npos) << what;
  }
  EXPECT_FALSE(device_lost());
}

TEST(Errors, ContextIsRestored) {
  {
    PointContext outer("a");
    {
      PointContext inner("b");
      EXPECT_EQ(current_point(), "b");
    }
    EXPECT_EQ(current_point(), "a");
  }
  EXPECT_EQ(current_point(), "");
}

TEST(Backend, RegisteredByIncludingTheHeader) {
  ASSERT_TRUE(pitot::hip::backend_registered);
  const pitot::DeviceBackend* b = pitot::device_backend();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "hip");
  EXPECT_TRUE(b->exec && b->bind_thread && b->device_facts && b->machine_name && b->range_push && b->range_pop &&
              b->profiler_start && b->profiler_stop && b->device_lost);
  EXPECT_TRUE(b->exec_problem) << "the HIP backend takes submissions to a problem (src/gpu/problem.cpp)";
  // Ranges never fail, whether or not a rocTX library is installed.
  b->range_push("pitot:test");
  b->range_pop();
}

// What a machine without an AMD GPU (CI, this repository's build hosts) must see.
TEST(Backend, WithoutAGpu) {
  if (missing_device_message().empty()) GTEST_SKIP() << "an AMD GPU is present; this checks the no-GPU path";
  const pitot::DeviceBackend* b = pitot::device_backend();
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->device_facts(0).is_null());
  EXPECT_EQ(b->machine_name(0), "");
  b->bind_thread(0);  // must not throw: CPU benchmarks in a HIP program still run
  EXPECT_NE(missing_device_message().find("no AMD GPU"), std::string::npos);
  // Any HIP call that fails for lack of a GPU says so first.
  try {
    check(hipErrorInvalidDevice, "hipMalloc(&p, 64)", nullptr, 0);
    FAIL() << "check did not throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("no AMD GPU", 0), 0u) << what;
    EXPECT_NE(what.find("First failed call: hipMalloc(&p, 64) failed"), std::string::npos) << what;
  }
  EXPECT_FALSE(device_lost());
}

// Last: it marks the process's device lost.
TEST(ZDeviceLost, StickyErrorMarksTheDevice) {
  EXPECT_THROW(check(hipErrorIllegalAddress, "kernel", nullptr, 0), Error);
  EXPECT_TRUE(device_lost());
  EXPECT_TRUE(pitot::device_backend()->device_lost());
}

}  // namespace

// CUDA backend checks that need no GPU: names, versions, error messages, registration.
#include <gtest/gtest.h>

#include <pitot/benchmark.hpp>
#include <pitot/cuda.hpp>

#include "core/backend.hpp"
#include "cuda/error.hpp"
#include "cuda/facts.hpp"
#include "cuda/sampler.hpp"

namespace pc = pitot::cuda;

TEST(MachineName, FromProduct) {
  EXPECT_EQ(pc::machine_name_from_product("NVIDIA H200"), "h200");
  EXPECT_EQ(pc::machine_name_from_product("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3");
  EXPECT_EQ(pc::machine_name_from_product("NVIDIA GeForce RTX 4090"), "geforce-rtx-4090");
  EXPECT_EQ(pc::machine_name_from_product("NVIDIA A100-SXM4-40GB"), "a100-sxm4-40gb");
  EXPECT_EQ(pc::machine_name_from_product("Tesla V100-PCIE-16GB"), "tesla-v100-pcie-16gb");
  EXPECT_EQ(pc::machine_name_from_product("  NVIDIA  "), "");
}

TEST(Facts, PeakBandwidth) {
  // H200: 3201 MHz HBM3e on a 6144-bit bus, double data rate.
  EXPECT_NEAR(pc::peak_gbytes_per_second(3201000, 6144), 4916.7, 0.1);
  EXPECT_EQ(pc::peak_gbytes_per_second(0, 6144), 0);
  EXPECT_EQ(pc::peak_gbytes_per_second(3201000, 0), 0);
}

TEST(Facts, PeakTflopsForTheUntrustedFloor) {
  // H200: 132 SMs at 1980 MHz, Hopper's sparse FP8: about 4282 TFLOP/s, above its 67 of FP32 and
  // its 3958 of sparse FP8 at the lower boost clock the datasheet quotes.
  EXPECT_NEAR(pc::peak_tflops(9, 132, 1980000), 4282.2, 0.1);
  EXPECT_NEAR(pc::peak_tflops(8, 108, 1410000), 1247.5, 0.1);  // A100: its 1248 sparse INT8
  EXPECT_EQ(pc::peak_tflops(0, 132, 1980000), 0);
  EXPECT_EQ(pc::peak_tflops(9, 0, 1980000), 0);
}

TEST(Facts, Versions) {
  EXPECT_EQ(pc::cuda_version_text(13000), "13.0");
  EXPECT_EQ(pc::cuda_version_text(12040), "12.4");
  EXPECT_EQ(pc::cuda_version_text(0), "");
  EXPECT_EQ(pc::sm_arch(9, 0), "sm_90");
  EXPECT_EQ(pc::sm_arch(12, 0), "sm_120");
}

TEST(Facts, DriverVersionFromProc) {
  EXPECT_EQ(pc::driver_version_from_proc(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 00:00:00 UTC 2025\n"
                "GCC version:  gcc version 13.3.0\n"),
            "580.159.04");
  EXPECT_EQ(pc::driver_version_from_proc(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n"),
            "570.86.15");
  EXPECT_EQ(pc::driver_version_from_proc(""), "");
  EXPECT_EQ(pc::driver_version_from_proc("something else entirely\n"), "");
}

TEST(Errors, StickyClassification) {
  EXPECT_TRUE(pc::is_sticky(cudaErrorIllegalAddress));
  EXPECT_TRUE(pc::is_sticky(cudaErrorLaunchFailure));
  EXPECT_FALSE(pc::is_sticky(cudaErrorInvalidConfiguration));
  EXPECT_FALSE(pc::is_sticky(cudaErrorMemoryAllocation));
  EXPECT_FALSE(pc::is_sticky(cudaSuccess));
}

TEST(Errors, MessageNamesPointAndCall) {
  pc::PointContext context("copy[n=2^16]");
  try {
    pc::check(cudaErrorInvalidConfiguration, "cudaLaunchKernel(copy)", nullptr, 0);
    FAIL() << "check did not throw";
  } catch (const pc::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("copy[n=2^16]"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaLaunchKernel(copy)"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorInvalidConfiguration"), std::string::npos) << m;
    EXPECT_EQ(e.code, cudaErrorInvalidConfiguration);
  }
  EXPECT_FALSE(pc::device_lost());  // not sticky
  EXPECT_NO_THROW(pc::check(cudaSuccess, "cudaFree", nullptr, 0));
}

TEST(Errors, ContextIsRestored) {
  {
    pc::PointContext outer("a");
    {
      pc::PointContext inner("b");
      EXPECT_EQ(pc::current_point(), "b");
    }
    EXPECT_EQ(pc::current_point(), "a");
  }
  EXPECT_EQ(pc::current_point(), "");
}

TEST(Modes, Parse) {
  EXPECT_EQ(pitot::timing_from_name("cold"), pc::Mode::Cold);
  EXPECT_EQ(pitot::timing_from_name("hot"), pc::Mode::Hot);
  EXPECT_EQ(pitot::timing_from_name("graph"), pc::Mode::Graph);
  EXPECT_EQ(pitot::timing_from_name("warm"), std::nullopt);
  EXPECT_STREQ(pitot::name_of(pc::Mode::Graph), "graph");
}

TEST(Backend, RegisteredByIncludingTheHeader) {
  ASSERT_TRUE(pc::backend_registered);
  const pitot::DeviceBackend* b = pitot::device_backend();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "cuda");
  EXPECT_TRUE(b->exec && b->bind_thread && b->device_facts && b->machine_name && b->range_push && b->range_pop &&
              b->profiler_start && b->profiler_stop && b->device_lost);
  EXPECT_TRUE(b->exec_problem) << "the CUDA backend takes submissions to a problem (src/gpu/problem.cpp)";
  // Ranges cost nothing and must not fail without a profiler attached.
  b->range_push("pitot:test");
  b->range_pop();
}

TEST(Backend, FactsMatchTheMachine) {
  // Meaningful on both kinds of machine: no device -> no facts and no name; a device -> both.
  const pitot::DeviceBackend* b = pitot::device_backend();
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  const auto facts = b->device_facts(0);
  const std::string name = b->machine_name(0);
  if (count == 0) {
    EXPECT_TRUE(facts.is_null());
    EXPECT_EQ(name, "");
  } else {
    ASSERT_TRUE(facts.is_object());
    EXPECT_EQ(facts["gpu_arch"].get<std::string>().rfind("sm_", 0), 0u);
    EXPECT_GT(facts["gpu_sm_count"].get<int>(), 0);
    EXPECT_EQ(name, pc::machine_name_from_product(facts["gpu"].get<std::string>()));
  }
}

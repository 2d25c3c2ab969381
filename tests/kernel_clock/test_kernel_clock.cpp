// The kernel clock's bookkeeping (src/gpu/kernel_clock.hpp) on activity data shaped like a cold
// batch's CUPTI records: per launch an L2 flush (queued outside any external id), the author's
// work (inside one), records out of order and split over flushes.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/kernel_clock.hpp"

namespace kc = pitot::kernel_clock;
using kc::Kind;

namespace {

kc::Record work(Kind kind, const char* name, std::uint32_t correlation, std::uint64_t start, std::uint64_t end) {
  kc::Record r;
  r.kind = kind;
  r.name = name;
  r.correlation = correlation;
  r.start_ns = start;
  r.end_ns = end;
  return r;
}

kc::Record external(std::uint32_t correlation, std::uint64_t id) {
  kc::Record r;
  r.kind = Kind::ExternalCorrelation;
  r.correlation = correlation;
  r.external = id;
  return r;
}

// A cold batch of `count` launches from id `first`: per launch the flush kernel (correlation
// 2k, no external id) and one copy kernel (correlation 2k+1, external id first+k), 1.6 us long
// after a 30 us flush. Returned in the order CUPTI may deliver them: work before mappings.
std::vector<kc::Record> cold_batch(std::uint64_t first, int count, std::uint32_t correlation_base) {
  std::vector<kc::Record> work_records, mappings;
  std::uint64_t t = 1'000'000;
  for (int k = 0; k < count; ++k) {
    const std::uint32_t c = correlation_base + 2 * static_cast<std::uint32_t>(k);
    work_records.push_back(work(Kind::Kernel, "_Z8l2_flushPK4int4mPi", c, t, t + 30'000));
    t += 31'000;
    work_records.push_back(work(Kind::Kernel, "_Z4copyPKfPfl", c + 1, t, t + 1'600));
    t += 2'000;
    mappings.push_back(external(c + 1, first + static_cast<std::uint64_t>(k)));
  }
  work_records.insert(work_records.end(), mappings.begin(), mappings.end());
  return work_records;
}

}  // namespace

TEST(KernelClock, FlushIsLeftOutAndSpanIsTheKernels) {
  kc::Matcher m;
  m.expect(100, 4);
  for (const auto& r : cold_batch(100, 4, 10)) m.add(r);
  EXPECT_EQ(m.incomplete(100, 4, 1), 0);
  auto launches = m.take(100, 4);
  ASSERT_EQ(launches.size(), 4u);
  for (std::size_t k = 0; k < launches.size(); ++k) {
    EXPECT_EQ(launches[k].id, 100 + k);
    EXPECT_DOUBLE_EQ(launches[k].span_ns, 1'600);
    EXPECT_DOUBLE_EQ(launches[k].busy_ns, 1'600);
    ASSERT_EQ(launches[k].parts.size(), 1u);
    EXPECT_EQ(launches[k].parts[0].name, "_Z4copyPKfPfl");
  }
  const kc::Summary s = kc::summarize(launches);
  EXPECT_DOUBLE_EQ(s.span_ns, 1'600);
  EXPECT_EQ(s.launches, 4);
  // The flush kernels never got an external id: dropped after two takes, counted.
  EXPECT_EQ(m.unattributed(), 0);
  m.take(0, 0);
  EXPECT_EQ(m.unattributed(), 4);
  EXPECT_EQ(m.late(), 0);
}

TEST(KernelClock, RecordsOutOfOrder) {
  auto records = cold_batch(7, 3, 50);
  // Mappings first, then the work, the last launch's before the first's.
  std::vector<kc::Record> shuffled(records.rbegin(), records.rend());
  kc::Matcher m;
  m.expect(7, 3);
  for (const auto& r : shuffled) m.add(r);
  auto launches = m.take(7, 3);
  for (const auto& l : launches) EXPECT_DOUBLE_EQ(l.span_ns, 1'600);
}

TEST(KernelClock, SeveralKernelsAndAMemsetInOneLaunch) {
  // A GEMM-like launch: memset of the workspace, two kernels, a gap between them; and a
  // cudaPeekAtLastError inside the push (a mapping with no work).
  kc::Matcher m;
  m.expect(1, 1);
  m.add(external(20, 1));  // cudaMemsetAsync
  m.add(external(21, 1));  // the main kernel
  m.add(external(22, 1));  // the reduction kernel
  m.add(external(23, 1));  // cudaPeekAtLastError: no work
  m.add(work(Kind::Kernel, "reduce", 22, 5'000, 5'400));
  m.add(work(Kind::Memset, "memset", 20, 1'000, 1'200));
  m.add(work(Kind::Kernel, "gemm", 21, 1'500, 4'500));
  EXPECT_EQ(m.incomplete(1, 1, 3), 0);
  EXPECT_EQ(m.incomplete(1, 1, 4), 1);
  auto launches = m.take(1, 1);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_DOUBLE_EQ(launches[0].span_ns, 4'400);  // 1000 .. 5400
  EXPECT_DOUBLE_EQ(launches[0].busy_ns, 3'600);  // 200 + 3000 + 400
  kc::Breakdown b;
  b.add(launches);
  b.add(launches);
  auto entries = b.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "gemm");  // largest total first
  EXPECT_EQ(entries[0].count, 2);
  EXPECT_DOUBLE_EQ(entries[0].total_ns, 6'000);
  EXPECT_EQ(entries[2].kind, Kind::Memset);
  EXPECT_EQ(b.launches(), 2);
}

TEST(KernelClock, LaunchWithoutRecordsIsNaN) {
  kc::Matcher m;
  m.expect(1, 2);
  m.add(external(5, 1));
  m.add(work(Kind::Kernel, "k", 5, 100, 300));
  EXPECT_EQ(m.incomplete(1, 2, 1), 1);
  auto launches = m.take(1, 2);
  EXPECT_DOUBLE_EQ(launches[0].span_ns, 200);
  EXPECT_TRUE(std::isnan(launches[1].span_ns));
  EXPECT_TRUE(std::isnan(launches[1].busy_ns));
  EXPECT_TRUE(std::isnan(kc::summarize(launches).span_ns));  // the sample is spoiled, not biased
}

TEST(KernelClock, RecordsArrivingInALaterFlush) {
  kc::Matcher m;
  m.expect(10, 2);
  // First flush: launch 10 whole; launch 11's mapping but not its kernel.
  m.add(external(1, 10));
  m.add(work(Kind::Kernel, "k", 1, 1'000, 2'000));
  m.add(external(2, 11));
  EXPECT_EQ(m.incomplete(10, 2, 1), 1);
  // Second flush: launch 11's kernel.
  m.add(work(Kind::Kernel, "k", 2, 3'000, 4'500));
  EXPECT_EQ(m.incomplete(10, 2, 1), 0);
  auto launches = m.take(10, 2);
  EXPECT_DOUBLE_EQ(launches[0].span_ns, 1'000);
  EXPECT_DOUBLE_EQ(launches[1].span_ns, 1'500);

  // Work whose mapping comes one flush later still matches (held as unmatched meanwhile).
  m.expect(12, 1);
  m.add(work(Kind::Kernel, "k", 3, 5'000, 5'700));
  m.add(external(3, 12));
  EXPECT_DOUBLE_EQ(m.take(12, 1)[0].span_ns, 700);

  // A record of launch 12 after it was taken: counted as late, never attached elsewhere.
  m.expect(13, 1);
  m.add(work(Kind::Kernel, "k", 3, 6'000, 6'100));
  m.add(external(4, 13));
  m.add(work(Kind::Kernel, "k", 4, 7'000, 7'300));
  EXPECT_EQ(m.late(), 1);
  EXPECT_DOUBLE_EQ(m.take(13, 1)[0].span_ns, 300);
}

TEST(KernelClock, BadTimestampsAreCountedAndDropped) {
  kc::Matcher m;
  m.expect(1, 1);
  m.add(external(9, 1));
  m.add(work(Kind::Kernel, "k", 9, 0, 0));      // incomplete record (forced flush)
  m.add(work(Kind::Kernel, "k", 9, 500, 400));  // end before start
  m.add(work(Kind::Memcpy, "memcpy DtoD", 9, 1'000, 2'536));
  auto launches = m.take(1, 1);
  EXPECT_EQ(m.invalid(), 2);
  EXPECT_DOUBLE_EQ(launches[0].span_ns, 1'536);
}

TEST(KernelClock, MatcherForgetsTakenWork) {
  // Many batches: nothing of the taken ones stays behind (a long point must not grow memory).
  kc::Matcher m;
  std::uint32_t correlation = 1;
  for (std::uint64_t batch = 0; batch < 100; ++batch) {
    const std::uint64_t first = 1 + batch * 32;
    m.expect(first, 32);
    for (const auto& r : cold_batch(first, 32, correlation)) m.add(r);
    correlation += 64;
    auto launches = m.take(first, 32);
    ASSERT_EQ(launches.size(), 32u);
    EXPECT_DOUBLE_EQ(kc::summarize(launches).span_ns, 1'600);
  }
  EXPECT_EQ(m.unattributed(), 99 * 32);  // the last batch's flushes are still held
  EXPECT_EQ(m.late(), 0);
}

TEST(KernelClock, KindNames) {
  EXPECT_STREQ(kc::kind_name(Kind::Kernel), "kernel");
  EXPECT_STREQ(kc::kind_name(Kind::Memcpy), "memcpy");
  EXPECT_STREQ(kc::kind_name(Kind::Memset), "memset");
}

TEST(KernelClock, WavesOfBlocks) {
  // An H200: 132 multiprocessors, 32 blocks, 2048 threads, 64K registers, 228 kB each.
  const kc::DeviceLimits h200{132, 32, 2048, 65536, 233472};
  // bench_copy's copy kernel: 256 threads a block, so 8 blocks a multiprocessor, 1056 at once.
  EXPECT_DOUBLE_EQ(kc::waves(256, 256, 16, 0, h200), 256.0 / 1056);           // n = 2^16: one wave
  EXPECT_DOUBLE_EQ(kc::waves(1u << 20, 256, 16, 0, h200), 1048576.0 / 1056);  // n = 2^28: many
  EXPECT_DOUBLE_EQ(kc::waves(1, 1, 8, 0, h200), 1.0 / (32 * 132));            // an empty kernel
  // Registers and shared memory bound residency too.
  EXPECT_DOUBLE_EQ(kc::waves(132, 256, 255, 0, h200), 1.0);      // 1 block per SM
  EXPECT_DOUBLE_EQ(kc::waves(264, 128, 32, 120000, h200), 2.0);  // 1 block per SM
  EXPECT_EQ(kc::waves(100, 256, 16, 0, kc::DeviceLimits{}), 0);  // unknown device
}

TEST(KernelClock, LaunchKeepsItsWidestKernel) {
  kc::Matcher m;
  m.expect(1, 1);
  auto narrow = work(Kind::Kernel, "narrow", 10, 100, 200);
  narrow.waves = 0.2;
  auto wide = work(Kind::Kernel, "wide", 11, 200, 900);
  wide.waves = 15.5;
  m.add(narrow);
  m.add(wide);
  m.add(work(Kind::Memset, "memset", 12, 50, 90));
  for (std::uint32_t c : {10u, 11u, 12u}) m.add(external(c, 1));
  const auto launches = m.take(1, 1);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_DOUBLE_EQ(launches[0].max_waves, 15.5);
  EXPECT_EQ(launches[0].widest, "wide");
  EXPECT_DOUBLE_EQ(launches[0].span_ns, 850);
}

TEST(KernelClock, EventsSeeingUnmatchedWorkDeclineTheClock) {
  using pitot::kernel_clock::events_see_unmatched_work;
  // Autograd on the H200: the clock matched the forward (0.605 ms), the events saw the whole pass.
  EXPECT_TRUE(events_see_unmatched_work(0.605e-3, 1.82e-3));
  // The event pair's own launch processing around a tiny kernel is no reason to decline.
  EXPECT_FALSE(events_see_unmatched_work(0.67e-6, 3.35e-6));
  EXPECT_FALSE(events_see_unmatched_work(500e-6, 505e-6));
  // Unknown times decide nothing.
  EXPECT_FALSE(events_see_unmatched_work(std::nan(""), 1e-3));
  EXPECT_FALSE(events_see_unmatched_work(1e-3, std::nan("")));
}

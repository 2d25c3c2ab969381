// src/card through a fake NVML: the functions below stand in for libnvidia-ml's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "card/nvml.hpp"
#include "card/watch.hpp"
#include "core/result.hpp"
#include "core/stats.hpp"
#include "fake_time.hpp"

namespace {

using pitot::card::Card;
using pitot::card::NvmlApi;

constexpr int kSuccess = 0, kNotSupported = 3, kUnknown = 999;

// The fake card's state, advanced by the tests.
struct Fake {
  unsigned sm_mhz = 1980, mem_mhz = 2619, temperature = 40, milliwatts = 350000;
  unsigned long long energy = 1'000'000, reasons = 0x4;  // sw_power_cap
  int power_result = kSuccess;
  int temperature_calls = 0, power_calls = 0, energy_calls = 0;
  int energy_step_every = 1;  // the counter moves on every n-th read
  unsigned long long energy_step = 7;
  std::vector<unsigned> temperatures;  // successive readings, then the last one stays
};
Fake fake;
int fake_device_tag = 0;

int clock(NvmlApi::Device, int type, unsigned* mhz) {
  *mhz = type == 1 ? fake.sm_mhz : fake.mem_mhz;
  return kSuccess;
}
int temperature(NvmlApi::Device, int, unsigned* c) {
  const auto i = static_cast<std::size_t>(fake.temperature_calls++);
  if (!fake.temperatures.empty()) fake.temperature = fake.temperatures[std::min(i, fake.temperatures.size() - 1)];
  *c = fake.temperature;
  return kSuccess;
}
int power(NvmlApi::Device, unsigned* mw) {
  ++fake.power_calls;
  *mw = fake.milliwatts;
  return fake.power_result;
}
int energy(NvmlApi::Device, unsigned long long* mj) {
  if (++fake.energy_calls % fake.energy_step_every == 0) fake.energy += fake.energy_step;
  *mj = fake.energy;
  return kSuccess;
}
int reasons(NvmlApi::Device, unsigned long long* mask) {
  *mask = fake.reasons;
  return kSuccess;
}
int by_bus_id(const char* bus_id, NvmlApi::Device* device) {
  if (std::string(bus_id) != "0000:19:00.0") return 2;
  *device = &fake_device_tag;
  return kSuccess;
}
const char* error_string(int r) { return r == kNotSupported ? "Not Supported" : "Unknown Error"; }

NvmlApi full_api() {
  NvmlApi api;
  api.device_by_pci_bus_id = by_bus_id;
  api.clock = clock;
  api.temperature = temperature;
  api.power_usage = power;
  api.total_energy = energy;
  api.clock_reasons = reasons;
  api.error_string = error_string;
  return api;
}

using pitot::card::testing::FakeTime;

class CardTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = Fake{}; }
};

TEST_F(CardTest, OpensByBusIdAndSaysWhyNot) {
  const NvmlApi api = full_api();
  std::string why;
  EXPECT_NE(pitot::card::open_nvml(api, "0000:19:00.0", &why), nullptr);
  EXPECT_EQ(pitot::card::open_nvml(api, "0000:99:00.0", &why), nullptr);
  EXPECT_NE(why.find("0000:99:00.0"), std::string::npos) << why;
}

TEST_F(CardTest, SummaryHoldsSpreadsAndReasonsButNotIdle) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  FakeTime t;
  pitot::card::PointLog log(card, 0.1, t.clock());
  const unsigned clocks[] = {1980, 1755, 1830};
  for (unsigned c : clocks) {
    fake.sm_mhz = c;
    fake.temperature += 5;
    fake.reasons = c == 1755 ? 0x4 | 0x1 : 0x1;  // power cap once, idle always
    log.read_now();
    t.now += 1;
  }
  const auto j = log.summary();
  EXPECT_EQ(j["source"], "nvml");
  EXPECT_EQ(j["readings"], 3);
  EXPECT_EQ(j["sm_clock_mhz"]["min"], 1755.0);
  EXPECT_EQ(j["sm_clock_mhz"]["median"], 1830.0);
  EXPECT_EQ(j["sm_clock_mhz"]["max"], 1980.0);
  EXPECT_EQ(j["temperature_c"]["max"], 55.0);
  EXPECT_EQ(j["power_watts"]["median"], 350.0);
  EXPECT_EQ(j["clock_reasons"], nlohmann::json::array({"sw_power_cap"}));
  EXPECT_FALSE(j.contains("missing"));
}

TEST_F(CardTest, AReadingLeavesTheEnergyCounterOut) {
  // NVML's energy query costs milliseconds; a reading between samples must not pay for it.
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  const auto r = card.read();
  EXPECT_TRUE(r.sm_clock_mhz.has_value());
  EXPECT_TRUE(r.power_watts.has_value());
  EXPECT_EQ(fake.energy_calls, 0);
  EXPECT_TRUE(card.energy_millijoules().has_value());
  EXPECT_EQ(fake.energy_calls, 1);
}

TEST_F(CardTest, ReadsOnlyWhenDue) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  FakeTime t;
  pitot::card::PointLog log(card, 0.1, t.clock());
  log.read_if_due();  // the first is always due
  t.now += 0.05;
  log.read_if_due();
  EXPECT_EQ(log.size(), 1u);
  t.now += 0.06;
  log.read_if_due();
  EXPECT_EQ(log.size(), 2u);
}

TEST_F(CardTest, PointsShareAYoungReadingInsteadOfReadingAgain) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  FakeTime t;
  std::optional<pitot::card::Reading> shared;
  pitot::card::PointLog first(card, 0.1, t.clock(), &shared), second(card, 0.1, t.clock(), &shared);
  first.read_now();
  EXPECT_EQ(fake.power_calls, 1);
  t.now += 0.05;
  fake.sm_mhz = 1500;
  second.read_now();  // the first point's reading is 50 ms old: taken as it is
  EXPECT_EQ(fake.power_calls, 1);
  EXPECT_EQ(second.reads(), 0);
  EXPECT_EQ(second.summary()["sm_clock_mhz"]["max"], 1980.0);
  t.now += 0.06;
  second.read_now();  // 110 ms old: the card is read again
  EXPECT_EQ(fake.power_calls, 2);
  EXPECT_EQ(second.reads(), 1);
  EXPECT_EQ(second.size(), 2u);
  EXPECT_EQ(second.summary()["sm_clock_mhz"]["min"], 1500.0);
  first.read_if_due();  // due for the first point (110 ms), but the second's reading is fresh
  EXPECT_EQ(fake.power_calls, 2);
  EXPECT_EQ(first.size(), 2u);
  EXPECT_EQ(first.summary()["sm_clock_mhz"]["min"], 1500.0);
}

TEST_F(CardTest, MissingFunctionsAreNamedOnceAndNotAskedAgain) {
  NvmlApi api = full_api();
  api.total_energy = nullptr;  // an NVML without the energy counter
  fake.power_result = kNotSupported;
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  for (int i = 0; i < 3; ++i) {
    const auto r = card.read();
    EXPECT_TRUE(r.sm_clock_mhz.has_value());
    EXPECT_FALSE(r.power_watts.has_value());
    EXPECT_FALSE(card.energy_millijoules().has_value());
  }
  EXPECT_EQ(fake.power_calls, 1);
  ASSERT_EQ(card.missing().size(), 2u);
  EXPECT_EQ(card.missing()[0], "power (Not Supported)");
  EXPECT_EQ(card.missing()[1], "energy (this NVML has no such function)");
}

TEST_F(CardTest, AnUnknownErrorIsAskedAgain) {
  const NvmlApi api = full_api();
  fake.power_result = kUnknown;
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  (void)card.read();
  (void)card.read();
  EXPECT_EQ(fake.power_calls, 2);
  EXPECT_TRUE(card.missing().empty());
}

TEST_F(CardTest, EnergyStepIsTheFirstChangedValueAndWorkGoesOnMeanwhile) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  fake.energy_step_every = 5;  // coarse: the counter moves every 5th read
  FakeTime t;
  int busy_calls = 0;
  const auto start = card.energy_millijoules();
  ASSERT_TRUE(start);
  const auto step = pitot::card::wait_for_energy_step(card, *start, [&] { ++busy_calls; t.now += 0.001; }, 1.0, t.clock());
  ASSERT_TRUE(step);
  EXPECT_EQ(step->millijoules, *start + fake.energy_step);
  EXPECT_EQ(busy_calls, 3);  // reads 2, 3, 4 saw no change; the 5th did
  EXPECT_DOUBLE_EQ(step->seconds, t.now);
}

TEST_F(CardTest, AFrozenCounterTimesOut) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  fake.energy_step = 0;
  FakeTime t;
  const auto step = pitot::card::wait_for_energy_step(card, fake.energy, [&] { t.now += 0.1; }, 1.0, t.clock());
  EXPECT_FALSE(step);
}

TEST_F(CardTest, WattsBetweenStepsAndACounterThatWentBack) {
  using pitot::card::EnergyStep;
  const auto w = pitot::card::watts_between(EnergyStep{1'000'000, 10.0}, EnergyStep{1'700'000, 12.0});
  ASSERT_TRUE(w);
  EXPECT_DOUBLE_EQ(*w, 350.0);
  EXPECT_FALSE(pitot::card::watts_between(EnergyStep{1'000'000, 10.0}, EnergyStep{5, 12.0}));  // reset
  EXPECT_FALSE(pitot::card::watts_between(EnergyStep{1, 10.0}, EnergyStep{2, 10.0}));          // no time
}

TEST_F(CardTest, CoolDownWaitsUntilTheTarget) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  fake.temperatures = {80, 79, 77, 74, 70};
  FakeTime t;
  const auto c = pitot::card::cool_down(card, 75, 60, 0.5, t.clock(), [&](double s) { t.now += s; });
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->reached);
  EXPECT_EQ(c->from_c, 80);
  EXPECT_EQ(c->to_c, 74);
  EXPECT_DOUBLE_EQ(c->waited_seconds, 1.5);
}

TEST_F(CardTest, CoolDownGivesUpAtTheTimeout) {
  const NvmlApi api = full_api();
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  fake.temperature = 85;
  FakeTime t;
  const auto c = pitot::card::cool_down(card, 75, 2, 0.5, t.clock(), [&](double s) { t.now += s; });
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->reached);
  EXPECT_DOUBLE_EQ(c->waited_seconds, 2.0);
}

TEST_F(CardTest, NoTemperatureNoGuard) {
  NvmlApi api = full_api();
  api.temperature = nullptr;
  Card card(pitot::card::nvml_source(api, &fake_device_tag));
  EXPECT_FALSE(pitot::card::cool_down(card, 75, 2));
}

TEST(ReasonNames, KnownBitsUnknownBitsAndIdle) {
  EXPECT_EQ(pitot::card::reason_names(0x1), std::vector<std::string>{});
  EXPECT_EQ(pitot::card::reason_names(0x4 | 0x40), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(pitot::card::reason_names(0x10000), std::vector<std::string>{"other"});
}

// Processes pool a point: rates follow the pooled median; the card's readings take the median.
TEST(MergeProcesses, CardTracksTakeTheMedianRatesFollowTheTime) {
  std::vector<pitot::PointResult> runs(3);
  const double medians[] = {1.0, 2.0, 4.0};
  const double clocks[] = {1980, 1700, 1900};
  for (int k = 0; k < 3; ++k) {
    auto& r = runs[k];
    r.samples = {medians[k], medians[k], medians[k]};
    r.stats = pitot::compute_stats(r.samples);
    r.tracks = {{"items_per_second", "items/s", 1.0 / medians[k]}, {"card_sm_clock_mhz", "MHz", clocks[k]},
                {"kernel_busy_seconds", "seconds", medians[k] * 0.9}};
  }
  runs[1].backend_info["card"] = {{"clock_reasons", {"sw_power_cap"}}};
  runs[0].backend_info["card"] = {{"clock_reasons", nlohmann::json::array()}};
  const auto merged = pitot::merge_processes(runs);
  EXPECT_EQ(merged.backend_info["card"]["clock_reasons"], nlohmann::json::array({"sw_power_cap"}));  // any process's
  ASSERT_TRUE(merged.stats);
  EXPECT_DOUBLE_EQ(merged.stats->median, 2.0);
  ASSERT_EQ(merged.tracks.size(), 3u);
  EXPECT_DOUBLE_EQ(merged.tracks[0].value, 0.5);     // 1 / pooled median
  EXPECT_DOUBLE_EQ(merged.tracks[1].value, 1900.0);  // median clock
  EXPECT_DOUBLE_EQ(merged.tracks[2].value, 1.8);     // median busy time, not scaled
}

}  // namespace

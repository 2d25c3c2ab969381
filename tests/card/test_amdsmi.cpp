// src/card/amdsmi through a fake AMD SMI: the functions below stand in for libamd_smi's, with the
// struct layouts of the library versions pitot knows; the loader is tested against a fake
// libamd_smi.so (fake_amdsmi.cpp). No AMD GPU and no ROCm are needed.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "card/amdsmi.hpp"
#include "card/watch.hpp"
#include "fake_time.hpp"

namespace {

using pitot::card::AmdSmiApi;
using pitot::card::Card;
using Status = AmdSmiApi::Status;

constexpr Status kSuccess = 0, kInval = 1, kNotSupported = 2, kBusy = 30, kNotFound = 31;

// The fake card's state, set by the tests.
struct Fake {
  std::uint32_t gfx_mhz = 2100, mem_mhz = 1300;
  std::int64_t hotspot = 61, edge = 45;
  Status hotspot_result = kSuccess, edge_result = kSuccess, power_result = kSuccess, energy_result = kSuccess;
  int layout = 24;  // which library's amdsmi_power_info_t the fake fills
  std::uint32_t current_watts = 550, average_watts = 0xFFFF;
  std::vector<std::uint64_t> energies = {1'000'000};  // successive raw values, then the last one stays
  int energy_step_every = 0;                         // > 0: the last value moves by 1000 steps every n-th read
  float resolution = 15.25f;                         // exact in a float, so the expected values are too
  int energy_calls = 0, power_calls = 0, bdf_calls = 0;
  std::vector<std::uint32_t> sensors_asked;
};
Fake fake;
int fake_processor_tag = 0;

// 0000:19:00.0: bus 0x19 in bits 8 to 15.
Status from_bdf(AmdSmiApi::Bdf bdf, AmdSmiApi::Processor* processor) {
  ++fake.bdf_calls;
  if (bdf.as_uint != 0x1900) return kNotFound;
  *processor = &fake_processor_tag;
  return kSuccess;
}
Status energy_count(AmdSmiApi::Processor p, std::uint64_t* value, float* resolution, std::uint64_t* timestamp) {
  if (p != &fake_processor_tag || !value || !resolution || !timestamp) return kInval;
  const auto i = static_cast<std::size_t>(fake.energy_calls++);
  if (fake.energy_step_every > 0 && fake.energy_calls % fake.energy_step_every == 0) fake.energies.back() += 1000;
  *value = fake.energies[std::min(i, fake.energies.size() - 1)];
  *resolution = fake.resolution;
  *timestamp = 123;
  return fake.energy_result;
}
void put32(AmdSmiApi::PowerInfo* info, std::size_t at, std::uint32_t v) { std::memcpy(info->bytes + at, &v, sizeof v); }
Status power_info(AmdSmiApi::Processor p, AmdSmiApi::PowerInfo* info) {
  if (p != &fake_processor_tag) return kInval;
  ++fake.power_calls;
  if (fake.layout == 24) {  // current, average, gfx_voltage, ... (uint32_t)
    put32(info, 0, fake.current_watts);
    put32(info, 4, fake.average_watts);
    put32(info, 8, 800);
  } else {  // uint64_t socket_power, then current, average (uint32_t), uint64_t gfx_voltage
    const std::uint64_t socket_power = 7;
    std::memcpy(info->bytes, &socket_power, sizeof socket_power);
    put32(info, 8, fake.current_watts);
    put32(info, 12, fake.average_watts);
    put32(info, 16, 800);
  }
  return fake.power_result;
}
Status clock_info(AmdSmiApi::Processor p, std::uint32_t type, AmdSmiApi::ClockInfo* info) {
  if (p != &fake_processor_tag) return kInval;
  if (type == 0)  // AMDSMI_CLK_TYPE_GFX
    info->clk = fake.gfx_mhz;
  else if (type == 4)  // AMDSMI_CLK_TYPE_MEM
    info->clk = fake.mem_mhz;
  else
    return kInval;
  return kSuccess;
}
Status temp_metric(AmdSmiApi::Processor p, std::uint32_t sensor, std::uint32_t metric, std::int64_t* t) {
  if (p != &fake_processor_tag || metric != 0) return kInval;  // AMDSMI_TEMP_CURRENT
  fake.sensors_asked.push_back(sensor);
  if (sensor == 1) {  // hotspot
    *t = fake.hotspot;
    return fake.hotspot_result;
  }
  if (sensor == 0) {  // edge
    *t = fake.edge;
    return fake.edge_result;
  }
  return kInval;
}
Status status_string(Status s, const char** text) {
  *text = s == kNotSupported ? "AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported"
          : s == kNotFound   ? "AMDSMI_STATUS_NOT_FOUND - Device Not found"
                             : "AMDSMI_STATUS_UNKNOWN_ERROR";
  return kSuccess;
}

AmdSmiApi full_api(int version = 24) {
  AmdSmiApi api;
  api.version = version;
  api.processor_from_bdf = from_bdf;
  api.energy_count = energy_count;
  api.power_info = power_info;
  api.clock_info = clock_info;
  api.temp_metric = temp_metric;
  api.status_string = status_string;
  return api;
}

Card fake_card(const AmdSmiApi& api) { return Card(pitot::card::amdsmi_source(api, &fake_processor_tag)); }

using pitot::card::testing::FakeTime;

class AmdSmiTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = Fake{}; }
};

TEST_F(AmdSmiTest, ReadsClocksHotspotPowerAndEnergy) {
  const AmdSmiApi api = full_api();
  Card card = fake_card(api);
  const auto r = card.read();
  EXPECT_EQ(r.sm_clock_mhz, 2100.0);
  EXPECT_EQ(r.mem_clock_mhz, 1300.0);
  EXPECT_EQ(r.temperature_c, 61.0);  // the hotspot, not the edge
  EXPECT_EQ(r.power_watts, 550.0);
  EXPECT_EQ(card.energy_millijoules(), 15'250u);  // 1e6 steps of 15.25 uJ
  EXPECT_FALSE(r.reasons.has_value());
  ASSERT_EQ(card.missing().size(), 1u);
  EXPECT_EQ(card.missing()[0].rfind("clock_reasons (not read", 0), 0u) << card.missing()[0];
}

TEST_F(AmdSmiTest, SummarySaysAmdsmiAndHasNoReasons) {
  const AmdSmiApi api = full_api();
  Card card = fake_card(api);
  FakeTime t;
  pitot::card::PointLog log(card, 0.1, t.clock());
  for (const std::uint32_t mhz : {2100u, 1500u, 1900u}) {
    fake.gfx_mhz = mhz;
    log.read_now();
    t.now += 1;
  }
  const auto j = log.summary();
  EXPECT_EQ(j["source"], "amdsmi");
  EXPECT_EQ(j["readings"], 3);
  EXPECT_EQ(j["sm_clock_mhz"]["min"], 1500.0);
  EXPECT_EQ(j["sm_clock_mhz"]["median"], 1900.0);
  EXPECT_EQ(j["power_watts"]["max"], 550.0);
  EXPECT_FALSE(j.contains("clock_reasons"));
  ASSERT_TRUE(j.contains("missing"));
  EXPECT_EQ(j["missing"].size(), 1u);
}

TEST_F(AmdSmiTest, EnergyIsStepsTimesResolutionInMillijoules) {
  const AmdSmiApi api = full_api();
  fake.energies = {1'000'000, 1'000'000 + 2'000'000};  // 2e6 steps more: 30.5 J
  fake.resolution = 15.25f;
  Card card = fake_card(api);
  const auto a = card.energy_millijoules(), b = card.energy_millijoules();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 15'250u);
  EXPECT_EQ(*b - *a, 30'500u);
}

TEST_F(AmdSmiTest, AThirtyTwoBitCounterThatWrapsKeepsCounting) {
  const AmdSmiApi api = full_api();
  const std::uint64_t top = std::uint64_t{1} << 32;
  fake.energies = {top - 1000, 1000, 3000};  // 2000 steps across the wrap, then 2000 more
  Card card = fake_card(api);
  pitot::card::EnergyStep first{*card.energy_millijoules(), 10.0};
  pitot::card::EnergyStep wrapped{*card.energy_millijoules(), 11.0};
  pitot::card::EnergyStep after{*card.energy_millijoules(), 12.0};
  // floor((2^32 + 1000) * 15.25 / 1000) - floor((2^32 - 1000) * 15.25 / 1000)
  EXPECT_EQ(wrapped.millijoules - first.millijoules, 30u);
  EXPECT_EQ(after.millijoules - wrapped.millijoules, 31u);
  ASSERT_TRUE(pitot::card::watts_between(first, after));
  EXPECT_NEAR(*pitot::card::watts_between(first, after), 0.0305, 0.001);  // 61 mJ over 2 s
}

TEST_F(AmdSmiTest, AFallThatIsNotAWrapIsAReset) {
  const AmdSmiApi api = full_api();
  // A 64-bit counter that falls, then a 32-bit one that falls a little: both resets.
  fake.energies = {5'000'000'000, 1000, 0x90000000, 0x8FFFFF00};
  Card card = fake_card(api);
  const pitot::card::EnergyStep big{*card.energy_millijoules(), 10.0};
  const pitot::card::EnergyStep small{*card.energy_millijoules(), 11.0};
  EXPECT_LT(small.millijoules, big.millijoules);
  EXPECT_FALSE(pitot::card::watts_between(big, small));
  const auto c = card.energy_millijoules(), d = card.energy_millijoules();
  ASSERT_TRUE(c && d);
  EXPECT_LT(*d, *c);
}

TEST_F(AmdSmiTest, AnUnusableResolutionIsRefusedOnce) {
  const AmdSmiApi api = full_api();
  fake.resolution = 0;
  Card card = fake_card(api);
  EXPECT_FALSE(card.energy_millijoules());
  EXPECT_FALSE(card.energy_millijoules());
  EXPECT_EQ(fake.energy_calls, 1);
  ASSERT_EQ(card.missing().size(), 1u);
  EXPECT_EQ(card.missing()[0], "energy (amd-smi gives no usable counter resolution)");
}

TEST_F(AmdSmiTest, ACounterTheDriverMarksUnusableIsRefused) {
  const AmdSmiApi api = full_api();
  fake.energies = {0xFFFFFFFF, 1000};
  Card card = fake_card(api);
  EXPECT_FALSE(card.energy_millijoules());
  EXPECT_FALSE(card.energy_millijoules());
  ASSERT_EQ(card.missing().size(), 1u);
  EXPECT_EQ(card.missing()[0], "energy (amd-smi gives no value for this card)");
}

TEST_F(AmdSmiTest, CoarseCounterStepsAreWaitedFor) {
  const AmdSmiApi api = full_api();
  fake.energy_step_every = 5;  // the counter moves every 5th read
  Card card = fake_card(api);
  FakeTime t;
  int busy_calls = 0;
  const auto start = card.energy_millijoules();
  ASSERT_TRUE(start);
  const auto step =
      pitot::card::wait_for_energy_step(card, *start, [&] { ++busy_calls; t.now += 0.001; }, 1.0, t.clock());
  ASSERT_TRUE(step);
  EXPECT_EQ(step->millijoules, *start + 15u);  // 1000 steps of 15.25 uJ, in whole millijoules
  EXPECT_EQ(busy_calls, 3);                   // reads 2, 3, 4 saw no change; the 5th did
}

TEST_F(AmdSmiTest, ABusyCounterIsAskedAgain) {
  const AmdSmiApi api = full_api();
  fake.energy_result = kBusy;
  Card card = fake_card(api);
  EXPECT_FALSE(card.energy_millijoules());
  fake.energy_result = kSuccess;
  EXPECT_TRUE(card.energy_millijoules());
  EXPECT_TRUE(card.missing().empty());
}

TEST_F(AmdSmiTest, MissingFunctionsAndRefusalsAreNamedOnce) {
  AmdSmiApi api = full_api();
  api.energy_count = nullptr;
  api.clock_info = nullptr;
  fake.power_result = kNotSupported;
  Card card = fake_card(api);
  for (int i = 0; i < 3; ++i) {
    const auto r = card.read();
    EXPECT_FALSE(r.sm_clock_mhz || r.mem_clock_mhz || r.power_watts || card.energy_millijoules());
    EXPECT_TRUE(r.temperature_c);
  }
  EXPECT_EQ(fake.power_calls, 1);
  const std::vector<std::string> expected = {
      "sm_clock (this amd-smi has no such function)", "memory_clock (this amd-smi has no such function)",
      "power (AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported)",
      "clock_reasons (not read: amd-smi's violation status differs between its versions)",
      "energy (this amd-smi has no such function)"};  // asked after the reading, in the loop above
  EXPECT_EQ(card.missing(), expected);
}

TEST_F(AmdSmiTest, NoHotspotFallsBackToTheEdgeAndStaysThere) {
  const AmdSmiApi api = full_api();
  fake.hotspot_result = kNotSupported;
  Card card = fake_card(api);
  EXPECT_EQ(card.temperature_c(), 45.0);
  EXPECT_EQ(card.temperature_c(), 45.0);
  EXPECT_EQ(fake.sensors_asked, (std::vector<std::uint32_t>{1, 0, 0}));
  EXPECT_TRUE(card.missing().empty());
}

TEST_F(AmdSmiTest, NoTemperatureSensorNoGuard) {
  const AmdSmiApi api = full_api();
  fake.hotspot_result = fake.edge_result = kNotSupported;
  Card card = fake_card(api);
  EXPECT_FALSE(pitot::card::cool_down(card, 75, 2));
  ASSERT_EQ(card.missing().size(), 1u);
  EXPECT_EQ(card.missing()[0], "temperature (AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported)");
}

TEST_F(AmdSmiTest, MillidegreesAreTakenAsSuch) {
  const AmdSmiApi api = full_api();
  fake.hotspot = 61'000;  // as amdsmi.h documents it (the library gives whole degrees)
  Card card = fake_card(api);
  EXPECT_EQ(card.temperature_c(), 61.0);
}

TEST_F(AmdSmiTest, CoolDownReadsTheHotspot) {
  const AmdSmiApi api = full_api();
  Card card = fake_card(api);
  fake.hotspot = 90;
  FakeTime t;
  int polls = 0;
  const auto c = pitot::card::cool_down(card, 75, 60, 0.5, t.clock(), [&](double s) {
    t.now += s;
    if (++polls == 3) fake.hotspot = 70;
  });
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->reached);
  EXPECT_EQ(c->from_c, 90);
  EXPECT_EQ(c->to_c, 70);
  EXPECT_DOUBLE_EQ(c->waited_seconds, 1.5);
}

TEST_F(AmdSmiTest, PowerIsReadWhereEachVersionPutsIt) {
  for (const int version : {24, 25, 26}) {
    fake = Fake{};
    fake.layout = version;
    const AmdSmiApi api = full_api(version);
    Card card = fake_card(api);
    EXPECT_EQ(card.read().power_watts, 550.0) << version;
    // Cards before MI300 give only the average.
    fake.current_watts = version == 26 ? 0xFFFFFFFF : 0xFFFF;
    fake.average_watts = 300;
    EXPECT_EQ(card.read().power_watts, 300.0) << version;
  }
}

TEST_F(AmdSmiTest, PowerOfAnUnknownLayoutOrWithoutValueIsNotRead) {
  for (const int version : {0, 23, 27}) {
    fake = Fake{};
    const AmdSmiApi api = full_api(version);
    Card card = fake_card(api);
    EXPECT_FALSE(card.read().power_watts) << version;
    EXPECT_EQ(fake.power_calls, 0);
    EXPECT_EQ(card.missing()[0],
              "power (the power layout of amd-smi " + std::to_string(version) + " is not known to pitot)");
  }
  fake = Fake{};
  fake.current_watts = fake.average_watts = 0xFFFF;
  const AmdSmiApi api = full_api(24);
  Card card = fake_card(api);
  EXPECT_FALSE(card.read().power_watts);
  EXPECT_EQ(card.missing()[0], "power (amd-smi gives no value for this card)");
}

TEST_F(AmdSmiTest, OpensByBusIdAndSaysWhyNot) {
  const AmdSmiApi api = full_api();
  std::string why;
  EXPECT_NE(pitot::card::open_amdsmi(api, "0000:19:00.0", &why), nullptr);
  EXPECT_EQ(pitot::card::open_amdsmi(api, "0000:99:00.0", &why), nullptr);
  EXPECT_EQ(why, "amd-smi has no card at PCI bus id 0000:99:00.0: AMDSMI_STATUS_NOT_FOUND - Device Not found");
  // A bus id that does not parse never reaches amd-smi.
  fake.bdf_calls = 0;
  EXPECT_EQ(pitot::card::open_amdsmi(api, "0000:19:00", &why), nullptr);
  EXPECT_EQ(fake.bdf_calls, 0);
  EXPECT_NE(why.find("\"0000:19:00\""), std::string::npos) << why;
  AmdSmiApi no_lookup = full_api();
  no_lookup.processor_from_bdf = nullptr;
  EXPECT_EQ(pitot::card::open_amdsmi(no_lookup, "0000:19:00.0", &why), nullptr);
  EXPECT_EQ(why, "amd-smi cannot look a card up by PCI bus id");
}

TEST(AmdSmiBdf, PacksDomainBusDeviceFunction) {
  std::string why;
  const auto bdf = [&](const char* s) {
    const auto b = pitot::card::make_bdf(s, &why);
    return b ? b->as_uint : ~std::uint64_t{0};
  };
  EXPECT_EQ(bdf("0000:19:00.0"), 0x1900u);
  EXPECT_EQ(bdf("0000:c1:00.0"), 0xc100u);
  EXPECT_EQ(bdf("0000:C1:00.0"), 0xc100u);
  EXPECT_EQ(bdf("0001:c1:1f.7"), (std::uint64_t{1} << 16) | (0xc1u << 8) | (0x1fu << 3) | 7u);
  EXPECT_EQ(bdf("19:00.0"), 0x1900u);  // no domain: 0
  EXPECT_EQ(bdf("ffffffff:ff:1f.7"), (std::uint64_t{0xffffffff} << 16) | 0xffffu);
}

TEST(AmdSmiBdf, BadStringsAreRefusedWithTheReason) {
  for (const char* bad : {"", "garbage", "0000:19:00", "0000:19.0", "0000:19:00.8", "0000:19:20.0", "0000:1g:00.0",
                          "0000:123:00.0", "000000000:19:00.0", ":19:00.0", "0000::00.0", "0000:19:00.0 ",
                          "0000:19:00.00", "0000:19:00.", "-1:19:00.0", "0000:19:00:00.0"}) {
    std::string why;
    EXPECT_FALSE(pitot::card::make_bdf(bad, &why)) << bad;
    EXPECT_EQ(why.rfind("PCI bus id \"" + std::string(bad) + "\": ", 0), 0u) << why;
    EXPECT_NE(why.find("0000:19:00.0"), std::string::npos) << why;  // the example of a good one
  }
}

TEST(AmdSmiLibrary, VersionFromTheFileName) {
  using pitot::card::amdsmi_version_from_path;
  EXPECT_EQ(amdsmi_version_from_path("/opt/rocm-6.3.0/lib/libamd_smi.so.24.7.60300"), 24);
  EXPECT_EQ(amdsmi_version_from_path("libamd_smi.so.26"), 26);
  EXPECT_EQ(amdsmi_version_from_path("/opt/rocm/lib/libamd_smi.so"), 0);
  EXPECT_EQ(amdsmi_version_from_path("/x/libamd_smi.so.x"), 0);
  EXPECT_EQ(amdsmi_version_from_path("/x/libamd_smi.so.25abc"), 0);
  EXPECT_EQ(amdsmi_version_from_path("/lib.so.24/libother.so.24"), 0);
}

TEST(AmdSmiLibrary, CandidatesByNameThenRocmPathThenOptRocm) {
  const auto c = pitot::card::amdsmi_candidates("/rocm-x");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front(), "libamd_smi.so");
  EXPECT_NE(std::find(c.begin(), c.end(), "libamd_smi.so.24"), c.end());
  const auto at = [&](const std::string& s) { return std::find(c.begin(), c.end(), s) - c.begin(); };
  EXPECT_LT(at("libamd_smi.so.24"), at("/rocm-x/lib/libamd_smi.so"));
  EXPECT_LT(at("/rocm-x/lib/libamd_smi.so.24"), at("/opt/rocm/lib/libamd_smi.so"));
  EXPECT_EQ(c.back(), "/opt/rocm/lib/libamd_smi.so.24");
  EXPECT_EQ(pitot::card::amdsmi_candidates(nullptr).size() + 4, c.size());
}

// The fake libamd_smi.so built beside this test (fake_amdsmi.cpp), found through its unversioned
// link as a ROCm install would be.
TEST(AmdSmiLibrary, LoadsAFakeLibraryAndReadsThroughIt) {
  const std::string lib = std::string(PITOT_FAKE_AMDSMI_DIR) + "/libamd_smi.so";
  AmdSmiApi api;
  std::string why;
  ASSERT_TRUE(pitot::card::load_amdsmi({"/nowhere/libamd_smi.so", lib}, api, &why)) << why;
  EXPECT_EQ(api.version, 24);  // from the file the link leads to, libamd_smi.so.24.7.0
  EXPECT_TRUE(api.init && api.processor_from_bdf && api.energy_count && api.status_string);
  EXPECT_FALSE(api.power_info || api.clock_info || api.temp_metric);

  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  auto init_flags = reinterpret_cast<std::uint64_t (*)()>(dlsym(handle, "fake_amdsmi_init_flags"));
  auto last_bdf = reinterpret_cast<void (*)(std::uint64_t*)>(dlsym(handle, "fake_amdsmi_last_bdf"));
  ASSERT_TRUE(init_flags && last_bdf);
  EXPECT_EQ(init_flags(), 2u);  // AMDSMI_INIT_AMD_GPUS

  // The library decodes pitot's BDF with amdsmi_bdf_t's bit-fields.
  EXPECT_EQ(pitot::card::open_amdsmi(api, "0000:19:00.0", &why), nullptr);
  EXPECT_EQ(why, "amd-smi has no card at PCI bus id 0000:19:00.0: AMDSMI_STATUS_NOT_FOUND - Device Not found");
  std::uint64_t fields[4] = {};
  last_bdf(fields);
  EXPECT_EQ(fields[1], 0x19u);
  auto card = pitot::card::open_amdsmi(api, "0001:c1:1f.7", &why);
  last_bdf(fields);
  EXPECT_EQ((std::vector<std::uint64_t>(fields, fields + 4)), (std::vector<std::uint64_t>{1, 0xc1, 0x1f, 7}));
  ASSERT_NE(card, nullptr) << why;

  const auto r = card->read();
  EXPECT_EQ(card->energy_millijoules(), 15'265u);  // (1e6 + 1000) steps of 15.25 uJ
  EXPECT_FALSE(r.sm_clock_mhz || r.temperature_c || r.power_watts);
  EXPECT_EQ(card->missing()[0], "sm_clock (this amd-smi has no such function)");
  dlclose(handle);  // the RTLD_NOLOAD reference only
}

TEST(AmdSmiLibrary, SaysWhyNotWhenNothingLoads) {
  AmdSmiApi api;
  std::string why;
  EXPECT_FALSE(pitot::card::load_amdsmi({"/nowhere/libamd_smi.so", "libamd_smi_nowhere.so"}, api, &why));
  EXPECT_EQ(why.rfind("AMD SMI not found (libamd_smi.so", 0), 0u) << why;
  // A library without amd-smi's functions.
  EXPECT_FALSE(pitot::card::load_amdsmi({"libm.so.6"}, api, &why));
  EXPECT_EQ(why, "libm.so.6 lacks amdsmi_init or amdsmi_get_processor_handle_from_bdf");
}

}  // namespace

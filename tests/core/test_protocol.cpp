// The program-driver contract (src/core/protocol.hpp): each struct reads back what it writes,
// docs/protocol.md lists exactly the keys the structs write, and the device settings' names.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/protocol.hpp"
#include "core/settings.hpp"

namespace {

using namespace pitot;
using nlohmann::json;

PointResult full_point() {
  PointResult p;
  p.program = "bench_x";
  p.benchmark = "copy";
  p.id = 3;
  p.name = "copy[n=4]";
  p.index = {1};
  p.values = {std::int64_t{4}};
  p.status = PointStatus::Ok;
  p.backend = "cpu";
  p.samples = {1e-6, 2e-6};
  p.clock_ratios = {1.0, 0.9};
  p.process_medians = {1.5e-6};
  p.sample_process = {0, 0};
  p.stats = Stats{};
  return p;
}

BenchmarkInfo benchmark() {
  BenchmarkInfo b;
  b.program = "bench_x";
  b.name = "copy";
  b.axes.push_back({"n", AxisKind::Int, {std::int64_t{2}, std::int64_t{4}}});
  b.timeout_seconds = 3;
  b.code = "pitot benchmark copy (x.cpp)";
  b.asv_key = "own.copy";  // written only when set, so the full answer holds it
  return b;
}

ListAnswer full_answer() {
  ListAnswer a;
  a.program = "bench_x";
  a.backend = "cuda";
  a.device = {{"gpu", "NVIDIA H200"}, {"gpu_count", 2}};
  a.device_count = 2;
  a.machine = "h200";
  a.build = ListedBuild{"Release", true, true, "Release"};
  a.requirements = std::map<std::string, std::string>{{"compiler", "gcc-12.2"}, {"build_type", "Release"}};
  a.benchmarks = {benchmark()};
  a.points = {{0, "copy[n=2]", "copy"}, {1, "copy[n=4]", "copy"}};
  return a;
}

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.insert(k);
  return keys;
}

// The keys docs/protocol.md lists in the table after `<!-- keys: NAME -->`: the first column's
// `name` of each row.
std::map<std::string, std::set<std::string>> documented_keys() {
  std::ifstream in(PITOT_PROTOCOL_DOC);
  EXPECT_TRUE(in) << PITOT_PROTOCOL_DOC;
  std::map<std::string, std::set<std::string>> tables;
  const std::regex marker(R"(<!-- keys: (\w+) -->)"), row(R"(^\| `(\w+)` \|)");
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, marker)) {
      current = m[1];
      tables[current];
    } else if (!current.empty() && std::regex_search(line, m, row)) {
      tables[current].insert(m[1]);
    } else if (!current.empty() && line.empty() && !tables[current].empty()) {
      current.clear();
    }
  }
  return tables;
}

TEST(Protocol, TheDocListsExactlyTheKeysTheStructsWrite) {
  const auto doc = documented_keys();
  const std::map<std::string, json> written = {
      {"StartMessage", to_json(StartMessage{7})},
      {"SamplingMessage", to_json(SamplingMessage{7})},
      {"SampledMessage", to_json(SampledMessage{7})},
      {"DoneMessage", to_json(DoneMessage{})},
      {"PointMessage", to_json(PointMessage{full_point()})},
      {"ListAnswer", to_json(full_answer())},
      {"ListedPoint", to_json(ListedPoint{0, "copy[n=2]", "copy"})},
      {"BenchmarkInfo", to_json(benchmark())},
  };
  for (const auto& [name, j] : written) {
    ASSERT_TRUE(doc.count(name)) << "docs/protocol.md has no <!-- keys: " << name << " --> table";
    EXPECT_EQ(doc.at(name), keys_of(j)) << name;
  }
  EXPECT_EQ(doc.size(), written.size());
}

TEST(Protocol, ABenchmarkKeyedByItselfOrByItsProgram) {
  EXPECT_EQ(benchmark().full_name(), "own.copy");
  EXPECT_EQ(benchmark_from_json(to_json(benchmark())).asv_key, "own.copy");
  BenchmarkInfo plain = benchmark();
  plain.asv_key.clear();
  EXPECT_EQ(plain.full_name(), "bench_x.copy");
  EXPECT_FALSE(to_json(plain).contains("asv_key"));  // older readers see what they saw before
  EXPECT_EQ(benchmark_from_json(to_json(plain)).full_name(), "bench_x.copy");
}

TEST(Protocol, ListAnswerReadsBackWhatItWrites) {
  const json j = to_json(full_answer());
  EXPECT_EQ(to_json(list_answer_from_json(j)), j);
  const ListAnswer a = list_answer_from_json(j);
  EXPECT_EQ(a.device_count, 2);
  EXPECT_EQ(a.points.at(1).name, "copy[n=4]");
  EXPECT_EQ(listed_device_facts(a, 0).at("gpu"), "NVIDIA H200");
  EXPECT_TRUE(listed_device_facts(a, 1).is_null());
}

TEST(Protocol, ListAnswerOfAProgramWithoutAGpuOrOptionalKeys) {
  const ListAnswer a = list_answer_from_json(json::parse(R"({"program":"p","benchmarks":[],"points":[]})"));
  EXPECT_EQ(a.backend, "cpu");
  EXPECT_TRUE(a.device.is_null());
  EXPECT_EQ(a.device_count, 0);
  EXPECT_FALSE(a.build);
  EXPECT_FALSE(a.requirements);
  // A device without a count is one GPU.
  EXPECT_EQ(list_answer_from_json(json::parse(R"({"program":"p","device":{"gpu":"X"},"benchmarks":[],"points":[]})"))
                .device_count,
            1);
}

TEST(Protocol, ListAnswerRefusesWhatIsNotAList) {
  for (const char* text : {R"({"benchmarks":[],"points":[]})", R"({"program":"p","points":[]})",
                           R"({"program":"p","benchmarks":[]})", R"({"program":"p","device":"gpu","benchmarks":[],"points":[]})",
                           R"({"program":"p","benchmarks":[],"points":[{"id":"zero","name":"a","benchmark":"b"}]})",
                           R"({"program":"p","benchmarks":[{"program":"p","name":"b","axes":[{"name":"n","kind":"huge","values":[1]}]}],"points":[]})"})
    EXPECT_THROW(list_answer_from_json(json::parse(text)), json::exception) << text;
}

TEST(Protocol, MessagesReadBackAsTheirStructs) {
  EXPECT_EQ(to_json(StartMessage{7}).dump(), R"({"id":7,"type":"start"})");
  EXPECT_EQ(to_json(DoneMessage{}).dump(), R"({"type":"done"})");
  const ChannelMessage start = channel_message_from_json(to_json(StartMessage{7}));
  ASSERT_TRUE(std::holds_alternative<StartMessage>(start));
  EXPECT_EQ(std::get<StartMessage>(start).id, 7);
  EXPECT_TRUE(std::holds_alternative<DoneMessage>(channel_message_from_json(to_json(DoneMessage{}))));
  const ChannelMessage sampled = channel_message_from_json(to_json(SampledMessage{7, 0.25}));
  ASSERT_TRUE(std::holds_alternative<SampledMessage>(sampled));
  EXPECT_EQ(std::get<SampledMessage>(sampled).id, 7);
  EXPECT_EQ(std::get<SampledMessage>(sampled).harness, 0.25);
  // An older program's "sampled" has no harness seconds: none are allowed.
  const ChannelMessage bare = channel_message_from_json(json::parse(R"({"type":"sampled","id":7})"));
  EXPECT_EQ(std::get<SampledMessage>(bare).harness, 0.0);
  const ChannelMessage point = channel_message_from_json(to_json(PointMessage{full_point()}));
  ASSERT_TRUE(std::holds_alternative<PointMessage>(point));
  EXPECT_EQ(to_json(std::get<PointMessage>(point)), to_json(PointMessage{full_point()}));
  const ChannelMessage other = channel_message_from_json(json::parse(R"({"type":"heartbeat"})"));
  ASSERT_TRUE(std::holds_alternative<OtherMessage>(other));
  EXPECT_EQ(std::get<OtherMessage>(other).type, "heartbeat");
}

TEST(Protocol, MessagesRefuseWhatIsNotAMessage) {
  for (const char* text : {R"({"id":7})", R"({"type":7})", R"({"type":"start"})", R"({"type":"start","id":"x"})",
                           R"({"type":"point","id":1})", R"({"type":"point","program":"p","benchmark":"b","id":1,)"
                                                         R"("name":"b","index":[],"values":[],"status":"great"})"})
    EXPECT_THROW(channel_message_from_json(json::parse(text)), json::exception) << text;
}

TEST(Settings, OneNamePerValueBothWays) {
  EXPECT_EQ(timing_names(), (std::vector<std::string>{"cold", "hot", "graph"}));
  EXPECT_EQ(clock_names(), (std::vector<std::string>{"kernel", "events"}));
  for (const auto& name : timing_names()) EXPECT_EQ(name_of(timing_from_name(name).value()), name);
  for (const auto& name : clock_names()) EXPECT_EQ(name_of(clock_from_name(name).value()), name);
  EXPECT_EQ(timing_from_name("warm"), std::nullopt);
  EXPECT_EQ(clock_from_name(""), std::nullopt);
  EXPECT_STREQ(name_of(std::optional<GpuClock>{}), "default");
  EXPECT_EQ(timing_env_suffix(Timing::Cold), "");
  EXPECT_EQ(timing_env_suffix(Timing::Graph), "-graph");
}

TEST(Settings, TheKernelClockTimesColdLaunchesOnly) {
  EXPECT_EQ(device_settings_problem(Timing::Cold, GpuClock::Kernel), "");
  EXPECT_EQ(device_settings_problem(Timing::Hot, GpuClock::Events), "");
  EXPECT_EQ(device_settings_problem(Timing::Graph, std::nullopt), "");
  EXPECT_EQ(device_settings_problem(Timing::Hot, GpuClock::Kernel),
            "--clock kernel times cold launches only; hot and graph mode time with events");
}

}  // namespace

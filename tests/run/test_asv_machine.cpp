// The machine pitot run and pitot machine file rows under (driver/common/database.hpp): asv's own
// record of this host (~/.asv-machine.json) when there is one, so that a history asv started
// goes on in the same graphs, with asv's facts exactly as it wrote them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "driver/common/database.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pitot::driver;
using Facts = std::map<std::string, std::string>;

namespace {

// An entry as `asv machine --yes` writes it.
json entry(const std::string& name) {
  return {{"arch", "x86_64"}, {"cpu", "AMD EPYC"}, {"machine", name}, {"num_cpu", "2"},
          {"os", "Linux 6.18.44-fc-v1272"}, {"ram", "25276194816"}};
}

const Facts kAsvFacts = {{"arch", "x86_64"}, {"cpu", "AMD EPYC"}, {"num_cpu", "2"},
                         {"os", "Linux 6.18.44-fc-v1272"}, {"ram", "25276194816"}};

// HOME set to a folder of its own (the machine file is $HOME/.asv-machine.json) for one test.
struct Home {
  fs::path dir = fs::temp_directory_path() / ("pitot-asv-machine-" + std::to_string(::getpid()));
  std::string old;
  Home() {
    fs::create_directories(dir);
    if (const char* h = std::getenv("HOME")) old = h;
    ::setenv("HOME", dir.c_str(), 1);
  }
  ~Home() {
    ::setenv("HOME", old.c_str(), 1);
    fs::remove_all(dir);
  }
  void write(const json& doc) const { std::ofstream(dir / ".asv-machine.json") << doc.dump(4); }
};

}  // namespace

TEST(AsvMachine, OneRecordedMachineIsUsedWhateverItsName) {
  std::string note;
  const auto m = choose_asv_machine({{"version", 1}, {"vm", entry("vm")}}, "ci-runner-7", note);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "vm");
  EXPECT_EQ(m->facts, kAsvFacts);  // os and ram as asv wrote them, not pitot's "Linux 6.18", "24GB"
  EXPECT_EQ(note, "");
}

TEST(AsvMachine, OfSeveralTheOneNamedAfterTheHostElseNoneWithANote) {
  const json file = {{"version", 1}, {"vm", entry("vm")}, {"box", entry("box")}};
  std::string note;
  const auto m = choose_asv_machine(file, "box", note);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "box");
  EXPECT_EQ(note, "");
  EXPECT_FALSE(choose_asv_machine(file, "other", note));
  EXPECT_NE(note.find("vm"), std::string::npos) << note;
  EXPECT_NE(note.find("--machine"), std::string::npos) << note;
}

TEST(AsvMachine, NoMachineRecorded) {
  std::string note;
  for (const json& file : {json(nullptr), json{{"version", 1}}, json::array()})
    EXPECT_FALSE(choose_asv_machine(file, "box", note)) << file;
  EXPECT_EQ(note, "");
}

TEST(AsvMachine, FillMachineUsesAsvsRecordAndNoGpuFacts) {
  Home home;
  home.write({{"version", 1}, {"vm", entry("vm")}});
  const json gpu = {{"gpu", "NVIDIA H200"}, {"gpu_index", 0}};
  pitot::AsvRun run;
  fill_machine(run, "", gpu);
  EXPECT_EQ(run.machine, "vm");
  EXPECT_EQ(run.machine_facts, kAsvFacts);  // a "gpu" param would put the rows on another graph line
  // --machine wins; naming asv's machine keeps its facts, naming another gives pitot's own.
  fill_machine(run, "vm", gpu);
  EXPECT_EQ(run.machine_facts, kAsvFacts);
  fill_machine(run, "mine", gpu);
  EXPECT_EQ(run.machine, "mine");
  EXPECT_EQ(run.machine_facts.at("gpu"), "NVIDIA H200");
  EXPECT_NE(run.machine_facts.at("ram"), "25276194816");
}

TEST(AsvMachine, WithoutAsvsRecordTodaysNaming) {
  Home home;
  pitot::AsvRun run;
  fill_machine(run, "", json{{"gpu", "NVIDIA H200"}});
  EXPECT_EQ(run.machine, "h200");
  fill_machine(run, "", nullptr);
  EXPECT_EQ(run.machine, pitot::machine_name_from_cpu(run.machine_facts.at("cpu")));
  // An unreadable file is said and passed over.
  home.write(json("not an object"));
  std::ofstream(home.dir / ".asv-machine.json") << "{broken";
  fill_machine(run, "", json{{"gpu", "NVIDIA H200"}});
  EXPECT_EQ(run.machine, "h200");
}

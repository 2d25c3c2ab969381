// asv's machine files (asv/machine.hpp): the machine a run files rows under, from asv's own record
// of this host (~/.asv-machine.json) when there is one, so that a history asv started goes on in
// the same graphs with asv's facts exactly as it wrote them; and the one rule for updating a
// results folder's machine.json (the writer, pitot machine --record, pitot merge).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "asv/database.hpp"
#include "asv/machine.hpp"
#include "asv/merge.hpp"
#include "asv/run_record.hpp"
#include "asv/write.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace pitot;
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

// What a run on this host knows of the machine, with asv's file `file`.
MachineInputs inputs(const std::string& option, const json& file, const json& device) {
  return {option, file, "ci-runner-7", {{"cpu", "AMD EPYC 7763 64-Core Processor"}, {"ram", "24GB"}}, device, ""};
}

TEST(AsvMachine, AsvsRecordKeepsItsFactsAndGetsNoGpuFacts) {
  const json file = {{"version", 1}, {"vm", entry("vm")}};
  const json gpu = {{"gpu", "NVIDIA H200"}, {"gpu_index", 0}};
  std::string note;
  MachineRecord m = asv_machine_record(inputs("", file, gpu), note);
  EXPECT_EQ(m.name, "vm");
  EXPECT_EQ(m.facts, kAsvFacts);  // a "gpu" param would put the rows on another graph line
  // --machine wins; naming asv's machine keeps its facts, naming another gives pitot's own.
  EXPECT_EQ(asv_machine_record(inputs("vm", file, gpu), note).facts, kAsvFacts);
  m = asv_machine_record(inputs("mine", file, gpu), note);
  EXPECT_EQ(m.name, "mine");
  EXPECT_EQ(m.facts.at("gpu"), "NVIDIA H200");
  EXPECT_EQ(m.facts.at("gpu_index"), "0");
  EXPECT_EQ(m.facts.at("ram"), "24GB");
}

TEST(AsvMachine, WithoutAsvsRecordTheGpuThenTheCpuNamesIt) {
  std::string note;
  EXPECT_EQ(asv_machine_record(inputs("", nullptr, json{{"gpu", "NVIDIA H200"}}), note).name, "h200");
  EXPECT_EQ(asv_machine_record(inputs("", nullptr, nullptr), note).name, "epyc-7763");
  // The backend's own name for the card wins over the product's words (HIP names an unknown
  // board by its architecture).
  MachineInputs hip = inputs("", nullptr, json{{"gpu", "Device 74a1"}});
  hip.device_machine = "gfx942";
  EXPECT_EQ(asv_machine_record(hip, note).name, "gfx942");
  EXPECT_THROW(asv_machine_record(inputs("a/b", nullptr, nullptr), note), AsvError);
}

TEST(AsvMachine, AnUnreadableMachineFileIsSaidAndPassedOver) {
  Home home;
  std::string note;
  EXPECT_TRUE(read_asv_machine_file(note).is_null());
  EXPECT_EQ(note, "");
  home.write({{"version", 1}, {"vm", entry("vm")}});
  EXPECT_EQ(read_asv_machine_file(note)["vm"]["machine"], "vm");
  std::ofstream(home.dir / ".asv-machine.json") << "{broken";
  EXPECT_TRUE(read_asv_machine_file(note).is_null());
  EXPECT_NE(note.find("cannot read asv's machine file"), std::string::npos) << note;
}

// The one rule for machine.json: asv's facts already recorded are kept whoever wrote them, every
// other fact takes the new value, facts not given now stay.
TEST(MachineJson, AsvsRecordedFactsAreKeptPitotsAreAdded) {
  MachineJson recorded = machine_json_from(json{{"arch", "x86_64"}, {"machine", "box"}, {"os", "Linux 6.1.0-18-amd64"},
                                                {"ram", "25276203008"}, {"gpu", "NVIDIA A100"}, {"old", "x"}, {"version", 1}});
  std::vector<std::string> kept;
  const Facts now = update_machine_json(recorded, "box",
                                        {{"os", "Linux 6.1"}, {"ram", "24GB"}, {"cpu", "EPYC"}, {"gpu", "NVIDIA H200"}}, &kept);
  EXPECT_EQ(now.at("os"), "Linux 6.1.0-18-amd64");
  EXPECT_EQ(now.at("ram"), "25276203008");
  EXPECT_EQ(now.at("cpu"), "EPYC");            // an asv fact not recorded yet is added
  EXPECT_EQ(now.at("gpu"), "NVIDIA H200");     // pitot's facts follow the card
  EXPECT_EQ(now.at("arch"), "x86_64");
  EXPECT_EQ(recorded.facts.at("old"), "x");    // nothing recorded is dropped
  EXPECT_EQ(kept, (std::vector<std::string>{"os", "ram"}));
  const json text = json::parse(machine_json_text(recorded));
  EXPECT_EQ(text["version"], 1);
  EXPECT_EQ(text["machine"], "box");
  EXPECT_EQ(text["gpu"], "NVIDIA H200");
  EXPECT_EQ(text["ram"], "25276203008");
}

// The writer applies the rule: a machine.json asv (or a user) wrote keeps asv's facts, and this
// run's rows carry them as params.
TEST(MachineJson, TheWriterKeepsAsvsFactsInTheFileAndTheParams) {
  const fs::path dir = fs::temp_directory_path() / ("pitot-machine-json-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "box");
  std::ofstream(dir / "box" / "machine.json") << json{{"machine", "box"}, {"ram", "25276203008"}, {"version", 1}}.dump();
  AsvRun run;
  run.machine = "box";
  run.machine_facts = {{"ram", "24GB"}, {"gpu", "NVIDIA H200"}};
  run.commit_hash = std::string(40, 'a');
  run.env_name = "env";
  write_asv(dir, run, {}, {});
  const json machine = load_asv_file(dir / "box" / "machine.json", AsvFile::Machine);
  EXPECT_EQ(machine["ram"], "25276203008");
  EXPECT_EQ(machine["gpu"], "NVIDIA H200");
  const json results = load_asv_file(dir / "box" / (std::string(8, 'a') + "-env.json"), AsvFile::Results);
  EXPECT_EQ(results["params"]["ram"], "25276203008");
  fs::remove_all(dir);
}

// pitot merge (asv/merge.hpp) updates machine.json by the same rule: asv's facts the output
// recorded are kept; a point measured by the input replaces the output's, the others stay.
TEST(MachineJson, MergeKeepsTheOutputsAsvFactsAndMergesPoints) {
  AsvFolder out, in;
  out.machines["box"] = machine_json_from(json{{"machine", "box"}, {"ram", "25276203008"}});
  in.machines["box"] = machine_json_from(json{{"machine", "box"}, {"ram", "24GB"}, {"gpu", "NVIDIA H200"}});
  const auto file = [](const json& result) {
    return json{{"commit_hash", std::string(40, 'a')}, {"env_name", "env"}, {"params", json::object()},
                {"result_columns", {"result", "params"}}, {"results", {{"p.x", {result, json::array({json::array({"1", "2"})})}}}}};
  };
  out.results["box/aaaaaaaa-env.json"] = file({1.0, 2.0});
  in.results["box/aaaaaaaa-env.json"] = file({nullptr, 3.0});
  const AsvFolder before = out;
  merge_asv_folder(out, in);
  EXPECT_EQ(out.machines["box"].facts.at("ram"), "25276203008");
  EXPECT_EQ(out.machines["box"].facts.at("gpu"), "NVIDIA H200");
  EXPECT_EQ(out.results["box/aaaaaaaa-env.json"]["results"]["p.x"][0], json({1.0, 3.0}));
  EXPECT_EQ(changed_asv_files("db", before, out).size(), 2u);
  in.results["box/aaaaaaaa-env.json"]["env_name"] = "other";
  EXPECT_THROW(merge_asv_folder(out, in), AsvError);
}

// The asv module's loading and walking (asv/database.hpp): the one version check and its one
// message, which the writer, `pitot merge`, `pitot machine --record` and `pitot compare` all give.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "asv/database.hpp"
#include "asv/results.hpp"

namespace fs = std::filesystem;
using namespace pitot;

namespace {

struct Folder {
  fs::path dir = fs::temp_directory_path() / ("pitot-asvdb-" + std::to_string(::getpid()));
  Folder() { fs::create_directories(dir); }
  ~Folder() { fs::remove_all(dir); }
  fs::path write(const fs::path& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
    return dir / rel;
  }
};

// The message load_asv_file refuses `text` with, as kind; "" when it loads.
std::string refusal(const Folder& f, const std::string& text, AsvFile kind) {
  const fs::path p = f.write("m/x.json", text);
  try {
    load_asv_file(p, kind);
    return "";
  } catch (const AsvError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(p.string()), std::string::npos) << message;  // the file is named
    return message;
  }
}

}  // namespace

TEST(AsvDatabase, LoadsEachKindWithItsVersion) {
  Folder f;
  EXPECT_EQ(refusal(f, R"({"version": 2, "results": {"a": [NaN, Infinity]}})", AsvFile::Results), "");
  EXPECT_EQ(refusal(f, R"({"version": 2})", AsvFile::Benchmarks), "");
  EXPECT_EQ(refusal(f, R"({"version": 1})", AsvFile::Machine), "");
  // asv's bare tokens belong to results files only.
  EXPECT_NE(refusal(f, R"({"version": 2, "timeout": NaN})", AsvFile::Benchmarks), "");
}

TEST(AsvDatabase, OneMessagePerRefusal) {
  Folder f;
  const std::string old = refusal(f, R"({"version": 1})", AsvFile::Results);
  EXPECT_NE(old.find("has version 1, but pitot reads and writes version 2"), std::string::npos) << old;
  EXPECT_NE(old.find("asv update"), std::string::npos) << old;
  const std::string newer = refusal(f, R"({"version": 3})", AsvFile::Results);
  EXPECT_NE(newer.find("newer asv"), std::string::npos) << newer;
  EXPECT_NE(refusal(f, R"({"results": {}})", AsvFile::Results).find("has no version"), std::string::npos);
  EXPECT_NE(refusal(f, R"({"version": "2"})", AsvFile::Results).find("version \"2\""), std::string::npos);
  EXPECT_NE(refusal(f, R"({"version": 2})", AsvFile::Machine).find("version 1"), std::string::npos);
  EXPECT_NE(refusal(f, "[2]", AsvFile::Results).find("not a JSON object"), std::string::npos);
  EXPECT_NE(refusal(f, "{\"version\": 2, \"res", AsvFile::Results).find("not valid JSON"), std::string::npos);
  EXPECT_NE(refusal(f, std::string(300, '[') + std::string(300, ']'), AsvFile::Results).find("deeper"),
            std::string::npos);
  EXPECT_THROW(load_asv_file(f.dir / "missing.json", AsvFile::Results), AsvError);
  EXPECT_FALSE(load_asv_file_if_any(f.dir / "missing.json", AsvFile::Results));
}

TEST(AsvDatabase, WalksMachinesAndResultsFilesAsAsvNamesThem) {
  Folder f;
  f.write("box-b/machine.json", R"({"version": 1})");
  f.write("box-b/ABCDEF01-cpp-gcc.json", "{}");
  f.write("box-b/0123abcd-py3.12.json", "{}");
  f.write("box-b/notes.json", "{}");  // no '-': not <hash8>-<env>.json
  f.write("box-b/0123abcd-env.txt", "");
  fs::create_directories(f.dir / "box-b" / "dir-x.json");
  f.write("box-a/machine.json", R"({"version": 1})");
  f.write("no-machine/0123abcd-env.json", "{}");  // no machine.json: no machine folder
  f.write("benchmarks.json", R"({"version": 2})");
  EXPECT_EQ(asv_machines(f.dir), (std::vector<std::string>{"box-a", "box-b"}));
  const auto files = asv_results_files(f.dir / "box-b");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].hash8, "0123abcd");
  EXPECT_EQ(files[0].env, "py3.12");
  EXPECT_EQ(files[1].hash8, "abcdef01");  // lower case, as compare matches it
  EXPECT_EQ(files[1].env, "cpp-gcc");
  EXPECT_TRUE(asv_machines(f.dir / "missing").empty());
}

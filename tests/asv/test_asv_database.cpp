// The asv module's loading and walking (asv/database.hpp): the one version check and its one
// message, which the writer, `pitot merge`, `pitot machine --record` and `pitot compare` all give.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "asv/config.hpp"
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

// asv.conf.json's environments: what asv's rows carry as params, taken for a Python program's rows.
TEST(AsvConfigEnvironments, APythonProgramTakesTheParamsAsvGivesItsEnvironment) {
  Folder f;
  const auto envs_of = [&](const std::string& conf) {
    return read_asv_config(f.write("asv.conf.json", conf)).environments;
  };
  const std::map<std::string, std::string> python = {{"python", "/venv/bin/python3"}, {"python_version", "3.11"}};

  // virtualenv, asv 0.6's matrix: python the version, each requirement its version ("" newest),
  // a null one not installed; env vars name asv's env but are not params.
  auto req = python;
  EXPECT_EQ(take_asv_env_params(req, envs_of(R"({"environment_type": "virtualenv", "pythons": ["3.11"],
      "matrix": {"req": {"numpy": ["1.26"], "six": [""], "scipy": [null]}, "env": {"OMP": ["1", "2"]}}})")), "");
  EXPECT_EQ(req, (std::map<std::string, std::string>{
                     {"python", "3.11"}, {"python_version", "3.11"}, {"numpy", "1.26"}, {"six", ""}}));
  // The older matrix form (every key a requirement, a version alone as a string), comments allowed.
  req = python;
  EXPECT_EQ(take_asv_env_params(req, envs_of("// asv\n{\"environment_type\": \"conda\", \"matrix\": {\"numpy\": \"\"}}")), "");
  EXPECT_EQ(req.at("python"), "3.11");
  EXPECT_EQ(req.at("numpy"), "");

  // An existing environment keeps the interpreter's path and gains the matrix's requirements, as
  // `asv run --python=same` records them (asv 0.6.6: "numpy": "" for both forms below, [] too;
  // without them asv's graph path and pitot's differ: numpy-null). asv ignores `include` there.
  for (const char* conf : {R"({"environment_type": "existing", "matrix": {"req": {"numpy": "", "pandas": [""], "six": []}}})",
                           R"({"environment_type": "existing", "matrix": {"numpy": [""], "pandas": "", "six": [], "x": null},
                               "include": [{"python": "3.11", "req": {"a": "1"}}]})"}) {
    req = python;
    EXPECT_EQ(take_asv_env_params(req, envs_of(conf)), "") << conf;
    EXPECT_EQ(req, (std::map<std::string, std::string>{{"python", "/venv/bin/python3"}, {"python_version", "3.11"},
                                                       {"numpy", ""}, {"pandas", ""}, {"six", ""}}))
        << conf;
  }
  req = python;
  EXPECT_NE(take_asv_env_params(req, envs_of(R"({"environment_type": "existing", "matrix": {"numpy": ["1", "2"]}})")), "");
  EXPECT_EQ(req, python);

  // Left as they are: an existing environment without a matrix (asv records the path too), no
  // environment_type, a C++ program.
  for (const char* conf : {R"({"environment_type": "existing"})", "{}"}) {
    req = python;
    EXPECT_EQ(take_asv_env_params(req, envs_of(conf)), "") << conf;
    EXPECT_EQ(req, python) << conf;
  }
  std::map<std::string, std::string> cpp = {{"compiler", "gcc-12.2"}, {"build_type", "Release"}};
  EXPECT_EQ(take_asv_env_params(cpp, envs_of(R"({"environment_type": "virtualenv"})")), "");
  EXPECT_FALSE(cpp.count("python"));

  // Cannot be asv's: another Python version, several environments. Said why; nothing changed.
  for (const char* conf : {R"({"environment_type": "virtualenv", "pythons": ["3.10", "3.12"]})",
                           R"({"environment_type": "virtualenv", "matrix": {"req": {"numpy": ["1.25", "1.26"]}}})",
                           R"({"environment_type": "virtualenv", "include": [{"python": "3.11", "req": {"a": "1"}}]})"}) {
    req = python;
    const std::string why = take_asv_env_params(req, envs_of(conf));
    EXPECT_NE(why.find("graph line of their own"), std::string::npos) << conf << ": " << why;
    EXPECT_EQ(req, python) << conf;
  }
  // A matrix asv could not read either is refused, naming the file.
  for (const char* conf : {R"({"matrix": [1]})", R"({"matrix": {"req": {"numpy": [1]}}})"})
    try {
      envs_of(conf);
      ADD_FAILURE() << conf;
    } catch (const AsvError& e) {
      EXPECT_NE(std::string(e.what()).find("asv.conf.json"), std::string::npos) << e.what();
    }
}

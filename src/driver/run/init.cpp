// pitot init: writes an asv.conf.json so asv publish/preview/compare read pitot's database.
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "driver/common/command.hpp"
#include "asv/config.hpp"
#include "driver/common/files.hpp"
#include "host/machine.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::run {
namespace {

struct InitOptions {
  std::string dir = ".";
  std::string repo, project;
  std::vector<std::string> branches;
  std::string results_dir = "results", html_dir = "html";
  bool force = false;
};

// How an existing config differs from the settings init would write ("branches [\"dev\"], init
// would write [\"main\"]"); empty when it is the same. The repo counts as the folder it names:
// run-suite.sh passes an absolute --repo where a bare `pitot init` writes "..".
std::vector<std::string> differences(const fs::path& conf, const NewAsvConfig& want) {
  json have;
  try {
    have = read_asv_config_json(conf);
  } catch (const AsvError& e) {
    throw InputError(std::string(e.what()) + "; left as it is (--force replaces it)");
  }
  std::vector<std::string> out;
  const auto compare = [&](const char* key, const json& expected) {
    const json got = have.contains(key) ? have[key] : json();
    if (got != expected) out.push_back(fmt::format("{} {}, init would write {}", key, got.dump(), expected.dump()));
  };
  compare("project", want.project);
  compare("branches", want.branches);
  compare("results_dir", want.results_dir);
  compare("html_dir", want.html_dir);
  const fs::path dir = conf.parent_path();
  const json repo = have.contains("repo") ? have["repo"] : json();
  if (!repo.is_string() || fs::weakly_canonical(dir / repo.get<std::string>()) != fs::weakly_canonical(dir / want.repo))
    out.push_back(fmt::format("repo {}, init would write \"{}\"", repo.dump(), want.repo));
  return out;
}

int init_command(const InitOptions& o) {
  fs::path dir = o.dir;
  std::error_code ec;
  if (!fs::exists(dir, ec)) fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "pitot init: cannot use %s as the folder for asv.conf.json (%s); pass --dir FOLDER\n",
                 o.dir.c_str(), ec ? ec.message().c_str() : "it is not a folder");
    return kUsage;
  }
  fs::path conf = dir / "asv.conf.json";
  // The repository: given, else the git work tree holding the folder, written relative to it.
  std::string repo = o.repo;
  if (repo.empty()) {
    const std::string top = git_top_level(dir).value_or("");
    if (top.empty()) {
      std::fprintf(stderr, "pitot init: %s is not inside a git repository; pass --repo PATH (asv needs the commits)\n",
                   fs::absolute(dir).string().c_str());
      return kUsage;
    }
    repo = fs::relative(top, fs::canonical(dir), ec).string();
    if (repo.empty() || ec) repo = ".";
  }
  std::vector<std::string> branches = o.branches;
  if (branches.empty()) {
    const std::string current = git_branch(dir).value_or("");
    branches.push_back(current.empty() || current == "HEAD" ? "main" : current);
  }
  std::string project = o.project;
  if (project.empty()) project = fs::canonical(dir / repo, ec).filename().string();
  if (project.empty()) project = "benchmarks";

  const NewAsvConfig settings{project, repo, branches, o.results_dir, o.html_dir};
  const std::string what = fmt::format("repo {}, branches {}, results in {}, html in {}", repo, fmt::join(branches, ","),
                                       o.results_dir, o.html_dir);
  // Running init again (the README after run-suite.sh) is fine when nothing would change.
  if (fs::exists(conf, ec) && !o.force) {
    const auto differ = differences(conf, settings);
    if (!differ.empty()) {
      std::fprintf(stderr, "pitot init: %s already exists with other settings (%s); left as it is (--force replaces it)\n",
                   conf.string().c_str(), fmt::format("{}", fmt::join(differ, "; ")).c_str());
      return kUsage;
    }
    std::printf("%s is already set up (%s); left as it is\n", conf.string().c_str(), what.c_str());
  } else {
    write_asv_config(conf, settings);
    std::printf("wrote %s (%s)\n", conf.string().c_str(), what.c_str());
  }
  // The exact commands, with --config: run from another folder they still find the database.
  // pitot-asv, not a raw asv: it is installed beside pitot and installs asv on its first use.
  const std::string config = conf.lexically_normal().string();
  std::printf("next: pitot run --build-dir BUILD --config %s (writes %s)\n", config.c_str(),
              (dir / o.results_dir).lexically_normal().string().c_str());
  std::printf("then: pitot-asv --config %s publish && pitot-asv --config %s preview (scripts/pitot-asv in pitot's "
              "checkout)\n",
              config.c_str(), config.c_str());
  return kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("init", "Write asv.conf.json so asv can publish and compare pitot's results");
  auto o = std::make_shared<InitOptions>();
  cmd->add_option("--dir", o->dir, "Folder to write asv.conf.json into")->capture_default_str();
  cmd->add_option("--repo", o->repo, "The git repository holding the measured commits (default: the one around --dir)");
  cmd->add_option("--branch", o->branches, "Branch whose commits asv shows (repeatable; default: the current one)");
  cmd->add_option("--project", o->project, "Project name shown by asv (default: the repository's folder name)");
  cmd->add_option("--results-dir", o->results_dir, "Results folder, relative to asv.conf.json")->capture_default_str();
  cmd->add_option("--html-dir", o->html_dir, "Where asv publish writes the site")->capture_default_str();
  cmd->add_flag("--force", o->force, "Replace an existing asv.conf.json");
  cmd->callback([o] { run_guarded("init", [&] { return init_command(*o); }); });
}

}  // namespace

void add_init_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

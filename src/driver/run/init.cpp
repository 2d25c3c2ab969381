// pitot init: writes an asv.conf.json so asv publish/preview/compare read pitot's database.
#include <cstdio>

#include <fmt/format.h>

#include "driver/common/command.hpp"
#include "driver/common/database.hpp"
#include "output/machine.hpp"

namespace fs = std::filesystem;

namespace pitot::driver::run {
namespace {

struct InitOptions {
  std::string dir = ".";
  std::string repo, project;
  std::vector<std::string> branches;
  std::string results_dir = "results", html_dir = "html";
  bool force = false;
};

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
  if (fs::exists(conf) && !o.force) {
    std::fprintf(stderr, "pitot init: %s already exists; left as it is (--force replaces it)\n", conf.string().c_str());
    return kUsage;
  }
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

  write_asv_config(conf, {project, repo, branches, o.results_dir, o.html_dir});
  std::printf("wrote %s (repo %s, branches %s, results in %s, html in %s)\n", conf.string().c_str(), repo.c_str(),
              fmt::format("{}", fmt::join(branches, ",")).c_str(), o.results_dir.c_str(), o.html_dir.c_str());
  // The exact commands, with --config: run from another folder they still find the database.
  const std::string config = conf.lexically_normal().string();
  std::printf("next: pitot run --build-dir BUILD --config %s (writes %s), then asv publish --config %s && asv preview --config %s\n",
              config.c_str(), (dir / o.results_dir).lexically_normal().string().c_str(), config.c_str(), config.c_str());
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

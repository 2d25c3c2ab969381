// pitot merge OUT IN...: combines asv results folders (shards of one suite, runs of several hosts)
// into OUT (asv/merge.hpp). Within a results file that several inputs hold (same machine, commit,
// env), each point keeps the value of the last input that measured it (non-null); other points
// are kept; machine.json follows its one rule (asv's facts recorded in OUT are kept).
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/merge.hpp"
#include "core/rethrow.hpp"
#include "driver/common/command.hpp"
#include "driver/common/files.hpp"
#include "driver/common/manifest.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::run {
namespace {

// The asv module merges (asv/merge.hpp); this is the command around it: every input read before
// anything is written, the output folder locked, the changed files replaced all or none.
int merge_command(const std::string& out_arg, const std::vector<std::string>& in_args) {
  // A folder holding asv.conf.json stands for its results_dir.
  const auto resolve = [](const std::string& arg) { return asv_results_dir(arg, std::nullopt); };
  auto read = [](const fs::path& dir) {
    try {
      return read_asv_folder(dir);
    } catch (const AsvError& e) {
      throw InputError(std::string(e.what()) + "; nothing was merged");
    }
  };
  const fs::path out_dir = resolve(out_arg);
  std::vector<AsvFolder> inputs;
  for (const auto& a : in_args) inputs.push_back(read(resolve(a)));

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  FolderLock lock(out_dir);
  const AsvFolder before = read(out_dir);
  AsvFolder merged = before;
  for (const auto& in : inputs) rethrow_as<AsvError, InputError>([&] { merge_asv_folder(merged, in); });
  const auto files = changed_asv_files(out_dir, before, merged);
  for (const auto& [path, text] : files) fs::create_directories(path.parent_path(), ec);
  try {
    replace_files(files);
  } catch (const FileError& e) {
    throw InputError(std::string(e.what()) + "; nothing was merged");
  }
  std::printf("merged %zu folder(s) into %s: %zu file(s) written\n", inputs.size(), out_dir.string().c_str(), files.size());
  return kOk;
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand("merge", "Combine asv results folders (shards, hosts) into one");
  auto out = std::make_shared<std::string>();
  auto ins = std::make_shared<std::vector<std::string>>();
  cmd->add_option("OUT", *out, "Results folder to merge into (created when missing)")->required();
  cmd->add_option("IN", *ins, "Results folders to merge from")->required();
  cmd->callback([out, ins] { run_guarded("merge", [&] { return merge_command(*out, *ins); }); });
}

}  // namespace

void add_merge_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::run

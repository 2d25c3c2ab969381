// The exit code of the command that ran (common/command.hpp).
#include "driver/common/command.hpp"

namespace pitot::driver {

int& exit_code() {
  static int code = kOk;
  return code;
}

void add_build_dir_option(CLI::App* cmd, std::string& build_dir) {
  cmd->add_option("--build-dir", build_dir, "Build folder whose pitot-manifest.json names the programs")
      ->capture_default_str();
}

void add_point_options(CLI::App* cmd, std::string& filter, std::vector<std::string>& axes, const std::string& verb) {
  cmd->add_option("--filter", filter, verb + " points whose name matches this regex (searched)");
  // One value per --axis (repeat the flag): a multi-value option would swallow the program path
  // that follows it (`pitot run --axis n=64 prog`).
  cmd->add_option("--axis", axes, "Override an axis: name=v1,v2 or benchmark:name=v1,v2 (repeatable)")
      ->allow_extra_args(false);
}

}  // namespace pitot::driver

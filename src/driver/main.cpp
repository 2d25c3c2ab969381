// pitot: the driver. Runs benchmark programs, owns the asv database, compares, profiles.
#include <algorithm>
#include <exception>
#include <iostream>

#include "driver/command.hpp"

namespace pitot::driver {
std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
int& exit_code() {
  static int code = kOk;
  return code;
}
}  // namespace pitot::driver

int main(int argc, char** argv) {
  using namespace pitot::driver;
  CLI::App app{"pitot: measure GPU kernels, keep their history in an asv database, gate CI on regressions"};
  app.require_subcommand(1);
  auto& list = commands();
  std::sort(list.begin(), list.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : list) c.setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  } catch (const std::exception& e) {
    std::cerr << "pitot: " << e.what() << "\n";
    return kUsage;
  }
  return exit_code();
}

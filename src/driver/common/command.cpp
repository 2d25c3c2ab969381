// The exit code of the command that ran (common/command.hpp).
#include "driver/common/command.hpp"

namespace pitot::driver {

int& exit_code() {
  static int code = kOk;
  return code;
}

}  // namespace pitot::driver

#include "check.hpp"

#include <stdexcept>
#include <string_view>

namespace suite {

void fail_library_call(const char* library, const char* call, const std::string& status, const char* file,
                       int line) {
  // Only the file's name: build paths say nothing useful to the reader of a result.
  std::string_view path(file ? file : "");
  if (const auto slash = path.find_last_of('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  throw std::runtime_error(std::string(library) + " call failed: " + call + ": " + status + " (" +
                           std::string(path) + ":" + std::to_string(line) + ")");
}

}  // namespace suite

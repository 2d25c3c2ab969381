// found_toolkits() alone in its file: the build's CMake defines the versions it found on the
// pitot library, and a test compiles this same file with other definitions to fake a build that
// found more (tests/asv/CMakeLists.txt, fake_toolkits_*).
#include "host/machine.hpp"

namespace pitot {

std::map<std::string, std::string> found_toolkits() {
  std::map<std::string, std::string> found;
#if defined(PITOT_CUDA_VERSION)
  found["cuda"] = PITOT_CUDA_VERSION;
#endif
#if defined(PITOT_HIP_VERSION)
  found["hip"] = PITOT_HIP_VERSION;
#endif
  return found;
}

}  // namespace pitot

// main() of every C++ benchmark program, and the marker that tells the driver a file is one
// (core/protocol.hpp). Its own object in the pitot_main archive: the Python module, which calls
// program_main but has no main(), never pulls it in, so the module is not taken for a program.
#include "core/protocol.hpp"
#include "program/main.hpp"

// `used` keeps the array through LTO; the read in main() keeps its section through --gc-sections.
extern const char pitot_program_marker[];  // one named symbol, easy to find with nm
[[gnu::used]] const char pitot_program_marker[] = PITOT_PROGRAM_MARKER_HEAD PITOT_PROGRAM_MARKER_TAIL;

int main(int argc, char** argv) {
  const char* volatile marker = pitot_program_marker;
  (void)marker;
  return pitot::program_main(argc, argv);
}

// The whole of a benchmark program's main(), callable: the C++ programs' main() calls it, and so
// does the Python module (python/), so a Python benchmark file answers the same flags and exit codes.
#pragma once

namespace pitot {

// Parses argv (argv[0] names the program), runs the registered benchmarks, writes the outputs,
// speaks the driver protocol; returns the program's exit code (src/core/protocol.hpp, kExit*).
int program_main(int argc, char** argv);

}  // namespace pitot

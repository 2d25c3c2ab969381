// The engine's and the device's knobs a benchmark program takes and `pitot run` / `pitot ab` pass
// through to every program unchanged (--warmup, --max-time, --seed, --graph-launches, --energy...):
// declared once here, with their help and their bounds. A program builds its options from this
// table (src/program/options.cpp), the driver its pass-through options (src/driver/run/steps.cpp),
// both with the same checks (src/program/cli_hints.hpp, knob_check), so the two command lines
// cannot disagree on a flag or a bound (tests/driver/test_knobs.cpp). --timing and --clock are
// chosen by name (settings.hpp) and have their own helpers.
#pragma once

#include <cstdint>
#include <span>
#include <variant>

#include "core/backend.hpp"
#include "core/engine.hpp"

namespace pitot {

// The values a knob takes; each kind is one check of cli_hints.hpp.
struct KnobBounds {
  enum class Kind {
    Positive,     // a finite number above 0 (cli::positive)
    NonNegative,  // a finite number of 0 or more (cli::non_negative)
    Within,       // a finite number from lo to hi (cli::within)
    Integer,      // a whole number from lo to hi (CLI::Range on ints)
    Seed,         // a whole number from 0 to 2^64-1, in decimal (cli::seed)
    Flag,         // no value: on when given (pitot run passes the flag alone)
  };
  Kind kind = Kind::Positive;
  double lo = 0, hi = 0;
};

// Where a program keeps a knob's value: a member of its RunConfig (the engine) or of its
// DeviceOptions (the device).
using KnobField = std::variant<double RunConfig::*, int RunConfig::*, std::uint64_t RunConfig::*,
                               double DeviceOptions::*, int DeviceOptions::*, bool DeviceOptions::*>;

struct Knob {
  const char* flag;  // "--warmup"
  const char* help;  // as a program's --help says it
  KnobBounds bounds;
  KnobField field;
  // RunConfig's (the first three kinds of field), else DeviceOptions'.
  bool engine() const { return field.index() < 3; }
  bool flag_only() const { return bounds.kind == KnobBounds::Kind::Flag; }
};

// --interleave's bound, in a program and in `pitot run` (each with its own help: pitot run keeps
// the value for its schedule of children and passes it on itself).
inline constexpr int kMaxInterleave = 4096;

// Every pass-through knob, engine knobs first, each group in the order --help lists them.
std::span<const Knob> knobs();

}  // namespace pitot

// The asv module's one error: a database file that cannot be read as asv data or is of another
// format version, an asv.conf.json that cannot be read, or a write the database refuses. The
// driver reports it as bad input (exit code 2); a program's --asv-dir likewise.
#pragma once

#include <stdexcept>

namespace pitot {

struct AsvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pitot

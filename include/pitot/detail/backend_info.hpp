// pitot's own, not part of the API: what a device backend records about a point it times, beside
// its samples. Used by src/gpu, src/cuda and src/hip; benchmark code has no use for it.
#pragma once

#include <string>

namespace pitot {

class State;

namespace detail {

// Backend-specific facts for this point's JSON output (e.g. "timing" = "\"cold\""), as JSON text.
void set_backend_info(State& state, std::string key, std::string json_value);

}  // namespace detail
}  // namespace pitot

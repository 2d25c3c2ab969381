// A CPU benchmark program built as a build that found both GPU toolkits would build it: its
// CMake target compiles src/host/toolkits.cpp again with PITOT_CUDA_VERSION="13.0" and
// PITOT_HIP_VERSION="5.2" (faking nvcc and the HIP compiler being present). With
// FAKE_BACKEND="cuda" it also registers a device backend of that name, as a CUDA program's
// backend does. test_env_toolkits.cpp reads their `--list --json`.
#include <pitot/pitot.hpp>

#include "core/backend.hpp"

namespace {

void noop(pitot::State& state) {
  state.exec([] {});
}

#if defined(FAKE_BACKEND)
const bool registered = [] {
  pitot::DeviceBackend b;
  b.name = FAKE_BACKEND;
  return pitot::set_device_backend(b);
}();
#endif

}  // namespace

PITOT_BENCHMARK(noop);

#include "core/backend.hpp"

#include <optional>

namespace pitot {
namespace {
std::optional<DeviceBackend>& backend_slot() {
  static std::optional<DeviceBackend> slot;
  return slot;
}
}  // namespace

bool set_device_backend(DeviceBackend backend) {
  backend_slot() = std::move(backend);
  return true;
}

const DeviceBackend* device_backend() { return backend_slot() ? &*backend_slot() : nullptr; }

}  // namespace pitot

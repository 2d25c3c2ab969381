// A stand-in for ROCm's libamd_smi.so with amdsmi.h's declarations of the functions it has (from
// ROCm/amdsmi, library version 24.7.0), so that pitot's loader is tested on machines without
// ROCm: the symbol names, the version taken from the file name, the init flags, and the bit-field
// layout of amdsmi_bdf_t that pitot builds by shifts. The power, clock and temperature
// functions are left out on purpose: pitot must report them missing.
#include <cstdint>

namespace {

// amdsmi.h's amdsmi_bdf_t (its inner struct is anonymous there).
typedef union {
  struct {
    std::uint64_t function_number : 3;
    std::uint64_t device_number : 5;
    std::uint64_t bus_number : 8;
    std::uint64_t domain_number : 48;
  } fields;
  std::uint64_t as_uint;
} amdsmi_bdf_t;

using amdsmi_status_t = std::uint32_t;
using amdsmi_processor_handle = void*;

std::uint64_t init_flags = 0;
std::uint64_t last_domain = 0, last_bus = 0, last_device = 0, last_function = 0;
int processor_tag = 0;
std::uint64_t energy = 1'000'000;

}  // namespace

extern "C" {
__attribute__((visibility("default"))) amdsmi_status_t amdsmi_init(std::uint64_t flags) {
  init_flags = flags;
  return 0;
}

// The card sits at 0001:c1:1f.7, every field of the BDF at its top value but the domain.
__attribute__((visibility("default"))) amdsmi_status_t amdsmi_get_processor_handle_from_bdf(
    amdsmi_bdf_t bdf, amdsmi_processor_handle* processor) {
  last_domain = bdf.fields.domain_number;
  last_bus = bdf.fields.bus_number;
  last_device = bdf.fields.device_number;
  last_function = bdf.fields.function_number;
  if (last_domain != 1 || last_bus != 0xc1 || last_device != 0x1f || last_function != 7) return 31;  // NOT_FOUND
  *processor = &processor_tag;
  return 0;
}

__attribute__((visibility("default"))) amdsmi_status_t amdsmi_get_energy_count(
    amdsmi_processor_handle processor, std::uint64_t* energy_accumulator, float* counter_resolution,
    std::uint64_t* timestamp) {
  if (processor != &processor_tag) return 1;  // INVAL
  if (!energy_accumulator || !counter_resolution || !timestamp) return 1;
  energy += 1000;
  *energy_accumulator = energy;
  *counter_resolution = 15.25f;
  *timestamp = 0;
  return 0;
}

__attribute__((visibility("default"))) amdsmi_status_t amdsmi_status_code_to_string(amdsmi_status_t status,
                                                                                    const char** text) {
  *text = status == 31 ? "AMDSMI_STATUS_NOT_FOUND - Device Not found" : "AMDSMI_STATUS_UNKNOWN";
  return 0;
}

// What the test reads back.
__attribute__((visibility("default"))) std::uint64_t fake_amdsmi_init_flags() { return init_flags; }
__attribute__((visibility("default"))) void fake_amdsmi_last_bdf(std::uint64_t* out) {
  out[0] = last_domain;
  out[1] = last_bus;
  out[2] = last_device;
  out[3] = last_function;
}
}

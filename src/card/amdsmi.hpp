// The card's state as AMD SMI reports it (AMD). libamd_smi.so is ROCm's management library:
// opened at run time, so programs run where it is absent, and called through a table of functions
// that tests replace with fakes (tests/card/test_amdsmi.cpp). Never run on AMD hardware.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "card/card.hpp"

namespace pitot::card {

// The AMD SMI functions pitot calls, with amdsmi.h's signatures, copied from ROCm/amdsmi's
// include/amd_smi/amdsmi.h, library version 24.7.0 (ROCm 6.3), and checked against AMD's
// published headers of 25 (ROCm 6.4) and 26 (ROCm 7). A return of 0 is AMDSMI_STATUS_SUCCESS;
// enums are passed as their 32-bit values. A null entry is a function this amd-smi does not have.
struct AmdSmiApi {
  using Processor = void*;       // amdsmi_processor_handle
  using Status = std::uint32_t;  // amdsmi_status_t
  // amdsmi_bdf_t, a union of 64 bits whose bit-fields, from the lowest bit, are function (3),
  // device (5), bus (8) and domain (48); make_bdf fills it.
  struct Bdf {
    std::uint64_t as_uint = 0;
  };
  // amdsmi_power_info_t changed layout with the library's major version (see power_from); a
  // buffer larger than any of them is passed and the fields read at that version's offsets.
  struct PowerInfo {
    alignas(8) unsigned char bytes[512];
  };
  // amdsmi_clk_info_t (32 bytes in every version): its first field, the clock in MHz ("cur_clk"
  // up to ROCm 6.0, "clk" since), is the one pitot reads; the rest is room to spare.
  struct ClockInfo {
    std::uint32_t clk;
    unsigned char rest[124];
  };

  // The library's major version (libamd_smi.so.N; 0: unknown), which says PowerInfo's layout.
  int version = 0;
  Status (*init)(std::uint64_t init_flags) = nullptr;                            // amdsmi_init
  Status (*processor_from_bdf)(Bdf bdf, Processor* processor) = nullptr;         // amdsmi_get_processor_handle_from_bdf
  Status (*energy_count)(Processor, std::uint64_t* energy_accumulator, float* counter_resolution,
                         std::uint64_t* timestamp) = nullptr;                    // amdsmi_get_energy_count
  Status (*power_info)(Processor, PowerInfo* info) = nullptr;                    // amdsmi_get_power_info
  Status (*clock_info)(Processor, std::uint32_t clk_type, ClockInfo* info) = nullptr;  // amdsmi_get_clock_info
  Status (*temp_metric)(Processor, std::uint32_t sensor_type, std::uint32_t metric,
                        std::int64_t* temperature) = nullptr;                    // amdsmi_get_temp_metric
  Status (*status_string)(Status status, const char** text) = nullptr;           // amdsmi_status_code_to_string
};

// amdsmi.h's values that pitot uses.
namespace amdsmi {
constexpr std::uint64_t kInitAmdGpus = 1u << 1;  // AMDSMI_INIT_AMD_GPUS
constexpr AmdSmiApi::Status kSuccess = 0, kNotSupported = 2, kNotYetImplemented = 3, kNoPermission = 10,
                            kNotFound = 31;
constexpr std::uint32_t kClockGfx = 0, kClockMem = 4;          // AMDSMI_CLK_TYPE_GFX, _MEM
constexpr std::uint32_t kTemperatureEdge = 0, kTemperatureHotspot = 1;  // AMDSMI_TEMPERATURE_TYPE_*
constexpr std::uint32_t kTemperatureCurrent = 0;                // AMDSMI_TEMP_CURRENT
}  // namespace amdsmi

// The places libamd_smi.so is looked for, in order: by name on the loader's path, then under
// $ROCM_PATH/lib and /opt/rocm/lib.
std::vector<std::string> amdsmi_candidates(const char* rocm_path);
// The major version in a library's file name ("libamd_smi.so.24.7.60300" -> 24); 0 without one.
int amdsmi_version_from_path(const std::string& path);
// Opens the first candidate that loads, fills `api` and initializes it for AMD GPUs; false, with
// `why`, where none loads or amdsmi_init fails.
bool load_amdsmi(const std::vector<std::string>& candidates, AmdSmiApi& api, std::string* why);
// This process's AMD SMI, opened and initialized on first use; nullptr, with `why`, where it cannot be.
const AmdSmiApi* system_amdsmi(std::string* why);

// The BDF of a PCI bus id as hipDeviceGetPCIBusId writes it ("0000:19:00.0": domain, bus,
// device and function in hex; the domain may be left out); empty, with `why`, for anything else.
std::optional<AmdSmiApi::Bdf> make_bdf(const std::string& bus_id, std::string* why);

// The card at PCI bus id `bus_id`; nullptr, with `why`, where AMD SMI has none.
std::unique_ptr<Card> open_amdsmi(const AmdSmiApi& api, const std::string& bus_id, std::string* why);
// The source of a processor AMD SMI already gave.
std::unique_ptr<Source> amdsmi_source(const AmdSmiApi& api, AmdSmiApi::Processor processor);

// The socket power in watts in an amdsmi_power_info_t of library `version`: the current power
// where the card gives it (MI300 and later), else the average; empty where neither is given or
// the layout of `version` is not known.
std::optional<double> power_from(const AmdSmiApi::PowerInfo& info, int version);

}  // namespace pitot::card

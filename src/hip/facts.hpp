// Device facts that need no GPU to compute: names, versions, cache sizes, the no-GPU message
// (unit-tested on any machine).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pitot::hip {

// asv machine name from the product: "AMD Instinct MI300X" -> "mi300x", "AMD Instinct MI325X" ->
// "mi325x", "AMD Instinct MI250X/MI250" -> "mi250x-mi250". Lower case, the vendor and brand words
// (amd, instinct, radeon) dropped, other runs of symbols become '-'. A product the runtime could not
// name ("", "Device 74a1") gives the architecture instead ("gfx942").
std::string machine_name_from_product(std::string_view product, std::string_view arch);

// "gfx942" from hipDeviceProp_t::gcnArchName ("gfx942:sramecc+:xnack-"), and the features after it.
std::string gfx_arch(std::string_view gcn_arch_name);
std::string gfx_arch_features(std::string_view gcn_arch_name);

// HIP's integer versions (major * 10000000 + minor * 100000 + patch) as text: 60342134 -> "6.3.42134".
std::string hip_version_text(int version);

// ROCm's release from the text of <rocm>/.info/version ("6.3.1-48\n" -> "6.3.1"); "" if not one.
std::string rocm_version_from_info(std::string_view text);

// The first line of a sysfs or proc file, trimmed ("6.8.5\n" -> "6.8.5").
std::string first_line(std::string_view text);

// Caches a flush must evict, by architecture. AMD's data-center GPUs of gfx942 (MI300X, MI300A,
// MI325X) and gfx950 (MI355X) have one L2 per XCD (up to 8, 4 MiB each; HIP reports one XCD's) and a
// 256 MiB Infinity Cache in front of HBM; gfx90a (MI200) and gfx908 (MI100) have one L2 and no
// Infinity Cache. Unknown architectures count one L2 and no last-level cache.
int l2_instances(std::string_view arch);
std::size_t infinity_cache_bytes(std::string_view arch);

// Bytes the flush kernel reads: twice every L2 instance plus the last-level cache, so no line of the
// last launch survives the replacement policy; at least 8 MiB.
std::size_t flush_bytes(std::size_t l2_bytes, int l2_count, std::size_t llc_bytes);

// Parses PITOT_HIP_FLUSH_BYTES ("640M", "1G", "600000000"): the flush size for caches this table
// does not know. Throws pitot::UsageError on anything but a positive size.
std::size_t parse_flush_bytes(std::string_view text);

// What /dev/kfd, ROCm's compute device node, looks like on this machine.
enum class KfdState { Missing, NoAccess, Present };

// Why a HIP program cannot run here, and what to do: `hip_says` is hipGetDeviceCount's error.
std::string no_device_message(std::string_view hip_says, KfdState kfd);

}  // namespace pitot::hip

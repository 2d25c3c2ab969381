#include "hip/facts.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include <pitot/benchmark.hpp>

#include "host/machine.hpp"

namespace pitot::hip {

std::string machine_name_from_product(std::string_view product, std::string_view arch) {
  const std::string name = machine_name_from_gpu(product);
  // Older runtimes name unknown boards "Device 74a1" (the PCI id): the architecture says more.
  if (name.empty() || name.rfind("device-", 0) == 0 || name == "device") return gfx_arch(arch);
  return name;
}

std::string gfx_arch(std::string_view gcn_arch_name) {
  return std::string(gcn_arch_name.substr(0, gcn_arch_name.find(':')));
}

std::string gfx_arch_features(std::string_view gcn_arch_name) {
  const auto colon = gcn_arch_name.find(':');
  return colon == std::string_view::npos ? "" : std::string(gcn_arch_name.substr(colon + 1));
}

std::string hip_version_text(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 10000000) + "." + std::to_string((version / 100000) % 100) + "." +
         std::to_string(version % 100000);
}

std::string first_line(std::string_view text) {
  text = text.substr(0, text.find('\n'));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

std::string rocm_version_from_info(std::string_view text) {
  std::string line = first_line(text);
  line = line.substr(0, line.find('-'));
  // Digits and dots only, starting with a digit: anything else is not a version file.
  if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) return "";
  for (char c : line)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return "";
  return line;
}

int l2_instances(std::string_view arch) { return arch == "gfx942" || arch == "gfx950" ? 8 : 1; }

std::size_t infinity_cache_bytes(std::string_view arch) {
  return arch == "gfx942" || arch == "gfx950" ? std::size_t{256} << 20 : 0;
}

std::size_t flush_bytes(std::size_t l2_bytes, int l2_count, std::size_t llc_bytes) {
  const std::size_t caches = l2_bytes * static_cast<std::size_t>(l2_count > 0 ? l2_count : 1) + llc_bytes;
  return std::max<std::size_t>(2 * caches, std::size_t{8} << 20);
}

std::size_t parse_flush_bytes(std::string_view text) {
  auto fail = [&]() -> std::size_t {
    throw UsageError("PITOT_HIP_FLUSH_BYTES=" + std::string(text) +
                     ": give a positive size in bytes, optionally with K, M or G (e.g. 640M)");
  };
  if (text.empty()) return fail();
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (value > (std::uint64_t{1} << 50)) return fail();
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i == 0) return fail();
  if (i < text.size()) {
    if (i + 1 != text.size()) return fail();
    switch (std::toupper(static_cast<unsigned char>(text[i]))) {
      case 'K': value <<= 10; break;
      case 'M': value <<= 20; break;
      case 'G': value <<= 30; break;
      default: return fail();
    }
  }
  if (value == 0) return fail();
  return static_cast<std::size_t>(value);
}

std::string no_device_message(std::string_view hip_says, KfdState kfd) {
  std::string message = "no AMD GPU: hipGetDeviceCount says " + std::string(hip_says) + ". ";
  switch (kfd) {
    case KfdState::Missing:
      message +=
          "/dev/kfd does not exist, so the amdgpu kernel driver (ROCm's compute interface) is not "
          "loaded on this machine. ";
      break;
    case KfdState::NoAccess:
      message +=
          "/dev/kfd exists but this user cannot open it: add the user to the 'render' and 'video' "
          "groups (in a container: --device=/dev/kfd --device=/dev/dri). ";
      break;
    case KfdState::Present:
      message +=
          "/dev/kfd is there but HIP sees no GPU: check HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES, "
          "and that this ROCm supports the GPU. ";
      break;
  }
  message +=
      "This program was built with pitot's HIP backend for AMD GPUs; on an NVIDIA machine build "
      "pitot's CUDA flavour instead.";
  return message;
}

}  // namespace pitot::hip

#include "cuda/facts.hpp"

#include <cctype>
#include <string>

#include "host/machine.hpp"

namespace pitot::cuda {

std::string machine_name_from_product(std::string_view product) { return machine_name_from_gpu(product); }

double peak_gbytes_per_second(double memory_clock_khz, int bus_width_bits) {
  if (!(memory_clock_khz > 0) || bus_width_bits <= 0) return 0;
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

double peak_tflops(int cc_major, int sm_count, double clock_khz) {
  if (cc_major <= 0 || sm_count <= 0 || !(clock_khz > 0)) return 0;
  // Sparse tensor FLOP per SM per clock at the narrowest type: Hopper's FP8 dense is 8192 (1979
  // TFLOP/s on 132 SMs at 1.83 GHz), twice that sparse; Blackwell's FP4 four times Hopper's;
  // Ampere and Ada's INT8/FP8 half of Hopper's. Older cards get Ampere's, already far above them.
  const double per_sm_clock = cc_major >= 10 ? 65536 : cc_major == 9 ? 16384 : 8192;
  return per_sm_clock * sm_count * clock_khz * 1e3 / 1e12;
}

std::string cuda_version_text(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string driver_version_from_proc(std::string_view text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct 10 ..." (open module:
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...")
  auto line_end = text.find('\n');
  std::string_view line = text.substr(0, line_end);
  if (line.find("NVRM version") == std::string_view::npos) return "";
  auto module = line.find("Module");
  if (module == std::string_view::npos) return "";
  // The first whitespace-separated token after "Module" that starts with a digit.
  std::size_t i = module + 6;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    std::string_view token = line.substr(i, j - i);
    if (!token.empty() && std::isdigit(static_cast<unsigned char>(token[0])) && token.find('.') != std::string_view::npos)
      return std::string(token);
    i = j;
  }
  return "";
}

std::string sm_arch(int major, int minor) { return "sm_" + std::to_string(major) + std::to_string(minor); }

}  // namespace pitot::cuda

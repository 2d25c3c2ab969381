// Device facts that need no GPU to compute: names, versions, peak bandwidth (unit-tested on CPU).
#pragma once

#include <string>
#include <string_view>

namespace pitot::cuda {

// asv machine name from the product: "NVIDIA H200" -> "h200", "NVIDIA H100 80GB HBM3" ->
// "h100-80gb-hbm3". Lower case, the vendor word dropped, other runs of symbols become '-'.
std::string machine_name_from_product(std::string_view product);

// Peak DRAM bandwidth in GB/s from the memory clock (kHz) and bus width (bits); double data rate.
double peak_gbytes_per_second(double memory_clock_khz, int bus_width_bits);

// The card's highest arithmetic rate in TFLOP/s, at any precision with sparse tensor cores (FP8 or
// FP4 on recent cards): a generous bound for the untrusted mode's speed floor, which only refuses
// the impossible. From the compute capability, the SM count and the SM clock (kHz); 0 if unknown.
double peak_tflops(int cc_major, int sm_count, double clock_khz);

// CUDA's integer versions as text: 13000 -> "13.0", 12040 -> "12.4".
std::string cuda_version_text(int version);

// The kernel module's version from /proc/driver/nvidia/version's text ("580.159.04"); "" if absent.
std::string driver_version_from_proc(std::string_view text);

// "sm_90" from a compute capability.
std::string sm_arch(int major, int minor);

}  // namespace pitot::cuda

// Device facts shared by the CUDA and HIP backends that need no GPU (unit-tested on CPU through
// each backend's machine_name_from_product).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "gpu/api.hpp"

namespace pitot::PITOT_GPU_NAMESPACE {

// The product's alphanumeric words in lower case, joined by '-', without the `dropped` words
// (vendor and brand words): "NVIDIA H100 80GB HBM3" without {"nvidia"} -> "h100-80gb-hbm3".
std::string product_slug(std::string_view product, std::initializer_list<std::string_view> dropped);

}  // namespace pitot::PITOT_GPU_NAMESPACE

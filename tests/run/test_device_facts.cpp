// Which GPU's facts name the asv machine of `pitot run --devices 0,1` and `pitot machine --device N`
// (driver/common/manifest.hpp device_facts): programs list device 0, so device 1 is asked for
// again with --device 1. The programs here are shell scripts that answer a listing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "driver/common/manifest.hpp"

namespace fs = std::filesystem;
using namespace pitot::driver;

namespace {

struct ScriptFolder {
  fs::path dir = fs::temp_directory_path() / ("pitot-device-facts-" + std::to_string(::getpid()));
  ScriptFolder() { fs::create_directories(dir); }
  ~ScriptFolder() { fs::remove_all(dir); }
  // A program that lists itself with `answer` (a shell expression of $dev, the --device it got).
  ProgramRef program(const std::string& name, const std::string& device_json) const {
    const fs::path path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n"
                           "dev=0; prev=\n"
                           "for a in \"$@\"; do [ \"$prev\" = --device ] && dev=$a; prev=$a; done\n"
                           "echo \"{\\\"program\\\": \\\"" << name << "\\\", \\\"device\\\": " << device_json
                        << ", \\\"benchmarks\\\": [], \\\"points\\\": []}\"\n";
    fs::permissions(path, fs::perms::owner_all);
    return {name, path, {}};
  }
};

}  // namespace

TEST(DeviceFacts, EachDeviceIsDescribedByItself) {
  ScriptFolder f;
  const ProgramInfo cpu = list_program(f.program("cpu_only", "null"), {});
  const ProgramInfo gpu = list_program(
      f.program("on_gpu", R"({\"gpu\": \"Card $dev\", \"gpu_index\": $dev, \"gpu_count\": 2})"), {});
  ASSERT_EQ(gpu.list.device.at("gpu"), "Card 0");  // listed as the driver lists: device 0
  EXPECT_EQ(device_facts({cpu, gpu}, 0).at("gpu"), "Card 0");
  EXPECT_EQ(device_facts({cpu, gpu}, 1).at("gpu"), "Card 1");  // not device 0's, nor none
  EXPECT_EQ(device_facts({cpu, gpu}, 1).at("gpu_index"), 1);
  EXPECT_TRUE(device_facts({cpu}, 1).is_null());  // no GPU program: the host's facts name the machine
}

TEST(DeviceFacts, AProgramThatCannotDescribeTheDeviceSaysSo) {
  ScriptFolder f;
  const ProgramRef ref = f.program("one_gpu", R"({\"gpu\": \"Card 0\", \"gpu_count\": 1})");
  const ProgramInfo listed = list_program(ref, {});
  std::ofstream(ref.path) << "#!/bin/sh\necho 'no GPU 3: this machine has 1' >&2\nexit 2\n";
  try {
    device_facts({listed}, 3);
    ADD_FAILURE() << "a device the program cannot describe gave facts";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU 3"), std::string::npos) << e.what();
  }
}

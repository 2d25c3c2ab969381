// --self-timed and asv.conf.json's "pitot_self_timed": how Python time_* methods that time
// themselves with CUDA events are timed, their returned seconds or pitot's device clock
// (python/pitot/_self_timed.py; docs/writing-benchmarks.md, "Self-timed methods"). The driver
// only passes the choice on, to each Python program's launcher (`python -m pitot --self-timed
// MODE FILE`), at listing and at every run of it; a C++ program has no such method and is not
// given it.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "asv/config.hpp"
#include "asv/error.hpp"
#include "driver/common/errors.hpp"
#include "driver/common/manifest.hpp"

namespace pitot::driver::run {

inline const std::vector<std::string> kSelfTimedModes = {"returned", "device"};
inline constexpr const char* kSelfTimedKey = "pitot_self_timed";

inline void add_self_timed_option(CLI::App* cmd, std::string& mode) {
  cmd->add_option("--self-timed", mode,
                  "Python time_* methods that time themselves with CUDA events: returned (their own seconds, the "
                  "default) or device (pitot's device clock, rows in an env of their own); default: "
                  "\"pitot_self_timed\" of the asv.conf.json run")
      ->check(CLI::IsMember(kSelfTimedModes));
}

// The asv.conf.json the key is read from: one given as an input, else --config (the file, or a
// folder holding one), else ./asv.conf.json; empty when there is none.
inline std::filesystem::path self_timed_config(const std::vector<std::string>& inputs, const std::string& config) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& in : inputs)
    if (is_asv_config_input(in)) return in;
  fs::path file = config.empty() ? fs::path("asv.conf.json") : fs::path(config);
  if (fs::is_directory(file, ec)) file /= "asv.conf.json";
  return fs::is_regular_file(file, ec) ? file : fs::path();
}

// The run's mode: the command line's, else the config's key; "" when neither sets it (the
// programs' default, returned). A key that is not a mode is refused before anything runs.
inline std::string self_timed_mode(const std::string& given, const std::filesystem::path& config) {
  if (!given.empty() || config.empty()) return given;
  nlohmann::json j;
  try {
    j = read_asv_config_json(config);
  } catch (const AsvError& e) {
    throw InputError(e.what());
  }
  const auto v = j.find(kSelfTimedKey);
  if (v == j.end()) return "";
  for (const auto& mode : kSelfTimedModes)
    if (v->is_string() && v->get<std::string>() == mode) return mode;
  throw InputError(config.string() + ": \"" + kSelfTimedKey + "\" is " + v->dump() +
                   ": give \"returned\" (each self-timed method's own seconds) or \"device\" (pitot's device clock)");
}

// `ref` started with --self-timed MODE when it is a Python program and a mode is chosen.
inline ProgramRef with_self_timed(ProgramRef ref, const std::string& mode) {
  if (!mode.empty() && !ref.interpreter.empty()) ref.interpreter.insert(ref.interpreter.end(), {"--self-timed", mode});
  return ref;
}

}  // namespace pitot::driver::run

#include "asv/env.hpp"

#include <cctype>

#include "host/machine.hpp"

namespace pitot {

std::string build_env_name() { return env_name(build_requirements()); }

std::string env_name(std::map<std::string, std::string> req) {
  // A Python program names its interpreter, not the compiler that built pitot's module.
  std::string name = req.count("python_version") ? "python" + req["python_version"]
                                                 : "cpp-" + req["compiler"] + "-" + req["build_type"];
  if (req.count("cuda")) name += "-cuda" + req["cuda"];
  if (req.count("hip")) name += "-hip" + req["hip"];
  std::string safe;
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    safe += ok ? c : '_';
  }
  return safe;
}

std::vector<std::pair<std::string, std::vector<PointResult>>> split_by_clock(const std::string& env,
                                                                             const std::vector<PointResult>& points,
                                                                             bool suffix) {
  auto clock_of = [](const PointResult& p) -> std::string {
    const auto it = p.backend_info.find("clock");
    return it != p.backend_info.end() && it->is_string() ? it->get<std::string>() : "";
  };
  std::size_t kernel = 0, events = 0;
  for (const auto& p : points) (clock_of(p) == "kernel" ? kernel : events) += clock_of(p).empty() ? 0 : 1;
  const bool unnamed_kernel = kernel > events;
  auto switched = [](const PointResult& p) {
    const auto c = p.backend_info.find("convention");
    return p.backend_info.contains("self_timed") && c != p.backend_info.end() && *c == "device";
  };
  std::vector<PointResult> by_kernel, by_events, by_switched;
  for (const auto& p : points) {
    const std::string c = clock_of(p);
    if ((c.empty() ? unnamed_kernel : c == "kernel")) by_kernel.push_back(p);
    else (switched(p) ? by_switched : by_events).push_back(p);
  }
  std::vector<std::pair<std::string, std::vector<PointResult>>> out;
  if (!suffix) {
    out.emplace_back(env, points);
    return out;
  }
  if (!by_events.empty()) out.emplace_back(env, std::move(by_events));
  if (!by_kernel.empty()) out.emplace_back(env + kKernelClockEnvSuffix, std::move(by_kernel));
  if (!by_switched.empty()) out.emplace_back(env + kSelfTimedDeviceEnvSuffix, std::move(by_switched));
  return out;
}

}  // namespace pitot

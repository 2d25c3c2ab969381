#include "core/protocol.hpp"

#include <stdexcept>

namespace pitot {

using nlohmann::json;

json listed_device_facts(const ListAnswer& answer, int index) {
  return index <= 0 ? answer.device : json(nullptr);
}

json to_json(const ListedPoint& point) {
  return {{"id", point.id}, {"name", point.name}, {"benchmark", point.benchmark}};
}

json to_json(const ListedBuild& build) {
  return {{"build_type", build.build_type}, {"optimized", build.optimized}, {"ndebug", build.ndebug}, {"env_build_type", build.env_build_type}};
}

json to_json(const ListAnswer& answer) {
  json j = {{"program", answer.program}, {"backend", answer.backend}, {"device", answer.device}, {"device_count", answer.device_count}, {"machine", answer.machine}, {"benchmarks", json::array()}, {"points", json::array()}};
  if (answer.build) j["build"] = to_json(*answer.build);
  if (answer.requirements) j["requirements"] = *answer.requirements;
  for (const auto& b : answer.benchmarks) j["benchmarks"].push_back(to_json(b));
  for (const auto& p : answer.points) j["points"].push_back(to_json(p));
  return j;
}

namespace {

ListedBuild build_from_json(const json& j) {
  ListedBuild b;
  b.build_type = j.at("build_type").get<std::string>();
  b.optimized = j.at("optimized").get<bool>();
  b.ndebug = j.at("ndebug").get<bool>();
  b.env_build_type = j.at("env_build_type").get<std::string>();
  return b;
}

}  // namespace

ListAnswer list_answer_from_json(const json& j) {
  ListAnswer a;
  a.program = j.at("program").get<std::string>();
  a.backend = j.value("backend", a.backend);
  if (j.contains("device") && !j["device"].is_null()) {
    if (!j["device"].is_object()) throw json::type_error::create(302, "device is not an object of facts", &j);
    a.device = j["device"];
  }
  a.device_count = j.value("device_count", a.device.is_object() ? 1 : 0);
  a.machine = j.value("machine", "");
  if (j.contains("build")) a.build = build_from_json(j["build"]);
  if (j.contains("requirements")) a.requirements = j["requirements"].get<std::map<std::string, std::string>>();
  try {
    for (const auto& b : j.at("benchmarks")) a.benchmarks.push_back(benchmark_from_json(b));
  } catch (const json::exception&) {
    throw;
  } catch (const std::exception& e) {  // benchmark_from_json's own refusals (an unknown axis kind...)
    throw json::other_error::create(501, e.what(), &j);
  }
  for (const auto& p : j.at("points"))
    a.points.push_back({p.at("id").get<int>(), p.at("name").get<std::string>(), p.at("benchmark").get<std::string>()});
  return a;
}

json to_json(const StartMessage& m) { return {{"type", kStartType}, {"id", m.id}}; }
json to_json(const SamplingMessage& m) { return {{"type", kSamplingType}, {"id", m.id}}; }
json to_json(const SampledMessage& m) { return {{"type", kSampledType}, {"id", m.id}, {"harness", m.harness}}; }
json to_json(const PointMessage& m) { return to_json(m.point); }  // its "type" is "point"
json to_json(const DoneMessage&) { return {{"type", kDoneType}}; }

ChannelMessage channel_message_from_json(const json& j) {
  const std::string type = j.at("type").get<std::string>();
  if (type == kStartType) return StartMessage{j.at("id").get<int>()};
  if (type == kSamplingType) return SamplingMessage{j.at("id").get<int>()};
  if (type == kSampledType) return SampledMessage{j.at("id").get<int>(), j.value("harness", 0.0)};
  if (type == kDoneType) return DoneMessage{};
  if (type != kPointType) return OtherMessage{type};
  try {
    return PointMessage{point_from_json(j)};
  } catch (const json::exception&) {
    throw;
  } catch (const std::exception& e) {
    // point_from_json's own refusals (an unknown status...): not a message like any other.
    throw json::other_error::create(501, e.what(), &j);
  }
}

}  // namespace pitot

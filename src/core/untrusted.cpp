// The untrusted mode's device-free checks (untrusted.hpp).
#include "core/untrusted.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pitot::untrusted {

namespace {

// A sanitizer's runtime intercepts the clock functions itself (AddressSanitizer's libasan does):
// in a build with that sanitizer (CI's sanitizer step), its library is not a detour. A plain build,
// what a platform times with, accepts no interposer at all.
bool sanitizer_runtime(const std::string& path) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const std::string name = path.substr(path.rfind('/') + 1);
  for (const char* runtime : {"libasan.", "libtsan.", "libclang_rt.asan", "libclang_rt.tsan"})
    if (name.rfind(runtime, 0) == 0) return true;
#else
  (void)path;
#endif
  return false;
}

}  // namespace

std::string clock_detour_reason() {
  static const std::string reason = [] {
    // Where the C library is not glibc's libc.so.6 (musl, a static build) there is nothing to ask.
    void* libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
    if (!libc) return std::string();
    std::string found;
    for (const char* name : {"clock_gettime", "gettimeofday", "clock"}) {
      void* bound = dlsym(RTLD_DEFAULT, name);
      void* own = dlsym(libc, name);
      if (!own || bound == own) continue;
      Dl_info where{};
      const std::string from = dladdr(bound, &where) && where.dli_fname ? where.dli_fname : "an unknown object";
      if (sanitizer_runtime(from)) continue;
      found = std::string(kPrefix) +
              fmt::format("the program's own {} stands in front of the C library's (defined in {}): every clock "
                          "in the process, pitot's timers included, reads what it says (a timer detour)",
                          name, from);
      break;
    }
    dlclose(libc);
    return found;
  }();
  return reason;
}

std::string self_reported_reason() {
  return std::string(kPrefix) +
         "self-reported time refused (exec_manual, or a Python method timed by the seconds it returns): time the "
         "work with state.exec, or run without --untrusted";
}

double floor_seconds(double flops, double bytes, const Peaks& peaks, bool bytes_bound, bool launches) {
  double floor = launches ? kLaunchFloorSeconds : 0.0;
  if (flops > 0 && peaks.flops_per_second > 0) floor = std::max(floor, flops / peaks.flops_per_second);
  if (bytes_bound && bytes > 0 && peaks.bytes_per_second > 0) floor = std::max(floor, bytes / peaks.bytes_per_second);
  return floor;
}

std::string impossible_speed(double median, double flops, double bytes, const Peaks& peaks, bool bytes_bound,
                             bool launches) {
  const double floor = floor_seconds(flops, bytes, peaks, bytes_bound, launches);
  if (!(floor > 0) || !(median >= 0) || median >= floor * (1 - kSpeedMargin)) return "";
  const std::string prefix = std::string(kPrefix) + "faster than the card can do: ";
  const double by_flops = peaks.flops_per_second > 0 ? flops / peaks.flops_per_second : 0;
  const double by_bytes = bytes_bound && peaks.bytes_per_second > 0 ? bytes / peaks.bytes_per_second : 0;
  if (by_flops >= floor && by_flops > 0)
    return prefix + fmt::format("{:.0f} TFLOP/s claimed, peak {:.0f}", flops / std::max(median, 1e-15) / 1e12,
                                peaks.flops_per_second / 1e12);
  if (by_bytes >= floor && by_bytes > 0)
    return prefix + fmt::format("{:.0f} GB/s claimed, peak {:.0f}", bytes / std::max(median, 1e-15) / 1e9,
                                peaks.bytes_per_second / 1e9);
  return prefix + fmt::format("{:.3g} us per call, below the launch floor of {:.3g} us", median * 1e6,
                              kLaunchFloorSeconds * 1e6);
}

namespace {

double number_in(const nlohmann::json& info, const char* key) {
  const auto it = info.find(key);
  return it != info.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

void check_point(PointResult& r) {
  nlohmann::json& info = r.backend_info;
  info["untrusted"] = true;
  nlohmann::json& checks = info["untrusted_checks"];
  if (!checks.is_object()) checks = nlohmann::json::object();
  checks["self_reported_time"] = "ok";  // a manual sampler failed the point before it got here
  if (!r.stats) return;
  // Device points: the backend recorded its peaks; a CPU point has none and is not bounded.
  const bool device = r.backend != "cpu" && r.backend != "value";
  Peaks peaks{number_in(info, "peak_tflops") * 1e12, number_in(info, "peak_gbytes_per_second") * 1e9};
  // The bytes bound holds when the data comes from memory: cold mode, or more bytes than the cache.
  const auto timing = info.find("timing");
  const bool cold = timing != info.end() && timing->is_string() && timing->get<std::string>() == "cold";
  const double cache = number_in(info, "cache_bytes");
  const bool bytes_bound = cold || (cache > 0 && r.bytes > cache);
  const std::string refused = impossible_speed(r.stats->median, r.flops, r.bytes, peaks, bytes_bound, device);
  checks["impossible_speed"] = refused.empty() ? "ok" : refused;
  checks["floor_seconds"] = floor_seconds(r.flops, r.bytes, peaks, bytes_bound, device);
  if (refused.empty()) return;
  r.status = PointStatus::Failed;
  r.reason = refused;
}

namespace {

double median_of(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

}  // namespace

std::string check_against_wall(const std::vector<double>& samples, std::int64_t number, double wall_seconds) {
  if (samples.empty()) return "";
  double sum = 0;
  for (double s : samples) sum += s;
  const double median = median_of(samples);
  const double n = static_cast<double>(std::max<std::int64_t>(number, 1));
  // The device time the child claims to have measured: its samples' sum, or count x median when
  // a few small samples hide many large ones' worth.
  const double claimed = std::max(sum, median * static_cast<double>(samples.size())) * n;
  const double allowed = wall_seconds * (1 + kWallMargin) + kWallSlackSeconds;
  if (std::isfinite(claimed) && claimed <= allowed) return "";
  return std::string(kPrefix) +
         fmt::format("the program's samples claim {:.3g} s of timed work, but the driver saw its timed phase last "
                     "{:.3g} s (reported times forged?)",
                     claimed, wall_seconds);
}

std::string check_unaccounted(const std::vector<double>& samples, std::int64_t number, int discarded,
                              double turns_seconds, double harness_seconds) {
  if (samples.empty()) return "";
  const double median = median_of(samples);
  const double calls = static_cast<double>(std::max<std::int64_t>(number, 1));
  double claimed = 0;  // seconds of timed work the samples account for, each clipped
  for (double s : samples) claimed += std::min(std::isfinite(s) ? s : 0.0, kClipMedians * median) * calls;
  const double count = static_cast<double>(samples.size()) + std::max(discarded, 0);
  const double thrown = std::max(discarded, 0) * 2 * median * calls;  // throttled samples, dropped
  const double checks = std::isfinite(harness_seconds) && harness_seconds > 0 ? harness_seconds : 0.0;
  const double harness = count * (kHarnessPerSampleSeconds + calls * kHarnessPerCallSeconds) + checks;
  const double allowed = 2 * (claimed + thrown) + harness + kWallSlackSeconds;
  if (!(turns_seconds > allowed)) return "";
  return std::string(kPrefix) +
         fmt::format("the program's samples account for {:.3g} s of timed work ({} samples x {} call{}, median "
                     "{:.3g} s a call), but its sampling lasted {:.3g} s on the driver's clock, more than the "
                     "harness's own work explains (at most {:.3g} s, {:.3g} s of it the checks it timed): reported times "
                     "forged, or a clock slowed down?",
                     claimed, samples.size(), number, number == 1 ? "" : "s", median, turns_seconds, allowed, checks);
}

void DriverClock::sampling(int id, double now) {
  Turns& t = points_[id];
  if (t.open && t.broken.empty())
    t.broken = std::string(kPrefix) + "the program began a turn of this point's sampling twice without ending it "
                                      "(a \"sampling\" message without its \"sampled\")";
  if (!t.open && t.count == 0) t.first = now;
  t.open = now;
}

void DriverClock::sampled(int id, double now, double harness) {
  Turns& t = points_[id];
  if (!t.open) {
    if (t.broken.empty())
      t.broken = std::string(kPrefix) + "the program ended a turn of this point's sampling it had not begun (a "
                                        "\"sampled\" message without its \"sampling\")";
    return;
  }
  const double turn = now - *t.open;
  t.seconds += turn;
  if (harness > 0) t.harness += std::min(harness, turn);  // NaN and negatives count for nothing
  ++t.count;
  t.open.reset();
}

std::string DriverClock::refusal(const PointResult& p, const Turns* t, double now) const {
  if (p.backend_info.value("untrusted", false) != true)
    return std::string(kPrefix) + "the program did not run this point in untrusted mode (built with an older pitot?)";
  if (!t) return std::string(kPrefix) + "the program did not say when this point's sampling began";
  if (!t->broken.empty()) return t->broken;
  if (t->open || t->count == 0)
    return std::string(kPrefix) +
           "the program did not say when this point's sampling ended (no \"sampled\" message; built with an "
           "older pitot?)";
  if (std::string why = check_against_wall(p.samples, p.number, now - t->first); !why.empty()) return why;
  return check_unaccounted(p.samples, p.number, p.discarded_samples, t->seconds, t->harness);
}

void DriverClock::check(PointResult& p, double now) const {
  if (p.status != PointStatus::Ok) return;
  const auto it = points_.find(p.id);
  const Turns* turns = it == points_.end() ? nullptr : &it->second;
  const std::string refused = refusal(p, turns, now);
  nlohmann::json& checks = p.backend_info["untrusted_checks"];
  if (!checks.is_object()) checks = nlohmann::json::object();
  checks["driver_wall_clock"] = refused.empty() ? "ok" : refused;
  if (turns)
    checks["driver_seconds"] = {{"window", now - turns->first},
                                {"sampling", turns->seconds},
                                {"turns", turns->count},
                                {"harness", turns->harness}};
  if (refused.empty()) return;
  p.status = PointStatus::Failed;
  p.reason = refused;
  p.stats.reset();
  p.tracks.clear();
}

}  // namespace pitot::untrusted

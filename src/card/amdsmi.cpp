#include "card/amdsmi.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <mutex>
#include <string_view>

namespace pitot::card {
namespace {

using amdsmi::kSuccess;
using Status = AmdSmiApi::Status;

// pitot's own reasons for refusing a quantity, beyond amd-smi's status codes (all under 100 or
// 0xFFFFFFFx, which read as small negative ints).
constexpr int kNoValue = 1'000'001;
constexpr int kNoReasons = 1'000'002;
constexpr int kUnknownLayout = 1'000'003;
constexpr int kBadResolution = 1'000'004;

// The values amd-smi puts where a card has no such reading: 0xFFFF up to ROCm 6.3, UINT32_MAX since.
bool given(std::uint32_t v) { return v != 0xFFFF && v != 0xFFFFFFFF; }

// The library versions whose amdsmi_power_info_t pitot knows (power_from).
bool power_layout_known(int version) { return version >= 24 && version <= 26; }

std::string status_text(const AmdSmiApi& api, Status status) {
  const char* text = nullptr;
  if (api.status_string && api.status_string(status, &text) == kSuccess && text) return text;
  return "amd-smi status " + std::to_string(status);
}

Answer answer(Status s) {
  if (s == kSuccess) return {Answer::ok};
  const int code = static_cast<int>(s);
  if (s == amdsmi::kNotSupported || s == amdsmi::kNotYetImplemented || s == amdsmi::kNoPermission)
    return {Answer::refused, code};
  return {Answer::failed, code};
}

// The energy counter's raw value, continued across wraps. A 32-bit counter (Navi cards' firmware
// keeps one, which Linux's driver passes on) wraps after 2^32 steps, minutes at full power with
// 15.3 uJ steps; a 64-bit one never does. Any other fall is a reset (the driver reloaded) and is passed on: watts_between refuses it.
class Unwrap {
 public:
  std::uint64_t total(std::uint64_t raw) {
    if (last_ && raw < *last_) {
      if (*last_ <= UINT32_MAX && *last_ - raw > (std::uint64_t{1} << 31))
        ++wraps_;
      else
        wraps_ = 0;
    }
    last_ = raw;
    return raw + (wraps_ << 32);
  }

 private:
  std::optional<std::uint64_t> last_;
  std::uint64_t wraps_ = 0;
};

// AMD SMI's answers as Card reads them.
class AmdSmiSource final : public Source {
 public:
  AmdSmiSource(const AmdSmiApi& api, AmdSmiApi::Processor processor) : api_(api), processor_(processor) {}

  const char* name() const override { return "amdsmi"; }
  const char* library() const override { return "amd-smi"; }
  std::string describe(int code) const override {
    switch (code) {
      case kNoValue: return "amd-smi gives no value for this card";
      case kNoReasons: return "not read: amd-smi's violation status differs between its versions";
      case kUnknownLayout: return "the power layout of amd-smi " + std::to_string(api_.version) + " is not known to pitot";
      case kBadResolution: return "amd-smi gives no usable counter resolution";
      default: return status_text(api_, static_cast<Status>(code));
    }
  }

  Answer sm_clock_mhz(double& out) override { return clock(amdsmi::kClockGfx, out); }
  Answer mem_clock_mhz(double& out) override { return clock(amdsmi::kClockMem, out); }

  Answer temperature_c(double& out) override {
    if (!api_.temp_metric) return {Answer::absent};
    // The hotspot (junction) first: MI300 has no edge sensor; the edge where a card has no hotspot.
    static constexpr std::uint32_t kSensors[] = {amdsmi::kTemperatureHotspot, amdsmi::kTemperatureEdge};
    Answer a{Answer::refused, amdsmi::kNotSupported};
    for (; sensor_ < std::size(kSensors); ++sensor_) {
      std::int64_t t = 0;
      a = answer(api_.temp_metric(processor_, kSensors[sensor_], amdsmi::kTemperatureCurrent, &t));
      if (a.kind == Answer::ok) {
        // Whole degrees, though amdsmi.h says millidegrees (the library divides by 1000); a
        // value no GPU reaches in degrees is taken as millidegrees.
        out = std::abs(t) >= 1000 ? static_cast<double>(t) / 1000 : static_cast<double>(t);
        return a;
      }
      if (a.kind != Answer::refused) return a;  // asked again, from this sensor
    }
    return a;
  }

  Answer power_watts(double& out) override {
    if (!api_.power_info) return {Answer::absent};
    if (!power_layout_known(api_.version)) return {Answer::refused, kUnknownLayout};
    AmdSmiApi::PowerInfo info{};
    const Answer a = answer(api_.power_info(processor_, &info));
    if (a.kind != Answer::ok) return a;
    const auto watts = power_from(info, api_.version);
    if (!watts) return {Answer::refused, kNoValue};
    out = *watts;
    return a;
  }

  Answer energy_millijoules(std::uint64_t& out) override {
    if (!api_.energy_count) return {Answer::absent};
    std::uint64_t raw = 0, timestamp = 0;  // amd-smi refuses a null timestamp
    float resolution = 0;                   // microjoules per step
    const Answer a = answer(api_.energy_count(processor_, &raw, &resolution, &timestamp));
    if (a.kind != Answer::ok) return a;
    if (!(resolution > 0) || !std::isfinite(resolution)) return {Answer::refused, kBadResolution};
    // Linux's amdgpu driver gives UINT_MAX where the firmware's accumulator is not to be trusted
    // (RDNA 3 and 4 cards with newer firmware).
    if (raw == UINT32_MAX || raw == UINT64_MAX) return {Answer::refused, kNoValue};
    out = static_cast<std::uint64_t>(static_cast<double>(energy_.total(raw)) * resolution / 1000);
    return a;
  }

  // amdsmi_get_violation_status has the throttling state (MI300 and later), but its struct
  // gained fields in the middle between versions: not read, and said so in `missing`.
  Answer clock_reasons(std::uint64_t&) override { return {Answer::refused, kNoReasons}; }
  std::vector<std::string> reason_names(std::uint64_t) const override { return {}; }

 private:
  Answer clock(std::uint32_t type, double& out) {
    if (!api_.clock_info) return {Answer::absent};
    AmdSmiApi::ClockInfo info{};
    const Answer a = answer(api_.clock_info(processor_, type, &info));
    if (a.kind != Answer::ok) return a;
    if (!given(info.clk)) return {Answer::refused, kNoValue};
    out = info.clk;
    return a;
  }

  const AmdSmiApi& api_;
  AmdSmiApi::Processor processor_;
  std::size_t sensor_ = 0;  // the temperature sensor in use
  Unwrap energy_;
};

template <class F>
void find(void* lib, F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
}

// The hex number in `s`, of 1 to `most` digits.
std::optional<std::uint64_t> hex(std::string_view s, std::size_t most) {
  if (s.empty() || s.size() > most) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    int d = 0;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    v = v * 16 + static_cast<std::uint64_t>(d);
  }
  return v;
}

}  // namespace

std::vector<std::string> amdsmi_candidates(const char* rocm_path) {
  // The unversioned name comes with amd-smi's -dev package; the versioned ones are the libraries
  // whose power layout pitot knows (power_from), newest first.
  static const char* const kNames[] = {"libamd_smi.so", "libamd_smi.so.26", "libamd_smi.so.25", "libamd_smi.so.24"};
  std::vector<std::string> candidates(std::begin(kNames), std::end(kNames));
  std::vector<std::string> dirs;
  if (rocm_path && *rocm_path) dirs.push_back(std::string(rocm_path) + "/lib/");
  dirs.emplace_back("/opt/rocm/lib/");
  for (const auto& dir : dirs)
    for (const char* name : kNames) candidates.push_back(dir + name);
  return candidates;
}

int amdsmi_version_from_path(const std::string& path) {
  static constexpr std::string_view kStem = "libamd_smi.so.";
  const std::string_view file = std::string_view(path).substr(path.rfind('/') + 1);  // npos + 1 = 0
  if (!file.starts_with(kStem)) return 0;
  int version = 0;
  std::size_t i = kStem.size();
  for (; i < file.size() && file[i] >= '0' && file[i] <= '9' && version < 100000; ++i) version = version * 10 + (file[i] - '0');
  if (i == kStem.size() || (i < file.size() && file[i] != '.')) return 0;
  return version;
}

bool load_amdsmi(const std::vector<std::string>& candidates, AmdSmiApi& api, std::string* why) {
  void* lib = nullptr;
  std::string opened, problem;
  for (const auto& path : candidates) {
    // Never closed: the card is read until the process exits.
    if ((lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      opened = path;
      break;
    }
    const char* e = dlerror();
    // A library that is there but does not load says more than the names that are not there.
    if (e && !std::strstr(e, "No such file")) problem = e;
  }
  if (!lib) {
    if (why)
      *why = problem.empty() ? "AMD SMI not found (libamd_smi.so, part of ROCm's amd-smi; looked for on the loader's "
                               "path, under $ROCM_PATH/lib and /opt/rocm/lib)"
                             : "AMD SMI does not load: " + problem;
    return false;
  }
  api = AmdSmiApi{};
  // The version is in the file the name leads to ("libamd_smi.so" -> "libamd_smi.so.24.7.60300").
  std::string file = opened;
  link_map* map = nullptr;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) file = map->l_name;
  if (char* real = realpath(file.c_str(), nullptr)) {
    api.version = amdsmi_version_from_path(real);
    std::free(real);
  }
  if (api.version == 0) api.version = amdsmi_version_from_path(opened);
  find(lib, api.init, "amdsmi_init");
  find(lib, api.processor_from_bdf, "amdsmi_get_processor_handle_from_bdf");
  find(lib, api.energy_count, "amdsmi_get_energy_count");
  find(lib, api.power_info, "amdsmi_get_power_info");
  find(lib, api.clock_info, "amdsmi_get_clock_info");
  find(lib, api.temp_metric, "amdsmi_get_temp_metric");
  find(lib, api.status_string, "amdsmi_status_code_to_string");
  if (!api.init || !api.processor_from_bdf) {
    if (why) *why = opened + " lacks amdsmi_init or amdsmi_get_processor_handle_from_bdf";
    dlclose(lib);
    return false;
  }
  if (const Status r = api.init(amdsmi::kInitAmdGpus); r != kSuccess) {
    if (why) *why = "amdsmi_init failed: " + status_text(api, r);
    return false;
  }
  return true;
}

const AmdSmiApi* system_amdsmi(std::string* why) {
  static std::once_flag once;
  static AmdSmiApi api;
  static std::string problem;
  std::call_once(once, [] {
    if (!load_amdsmi(amdsmi_candidates(std::getenv("ROCM_PATH")), api, &problem) && problem.empty())
      problem = "AMD SMI cannot be used";
  });
  if (!problem.empty()) {
    if (why) *why = problem;
    return nullptr;
  }
  return &api;
}

std::optional<AmdSmiApi::Bdf> make_bdf(const std::string& bus_id, std::string* why) {
  auto fail = [&](const std::string& what) -> std::optional<AmdSmiApi::Bdf> {
    if (why) *why = "PCI bus id \"" + bus_id + "\": " + what + " (expected domain:bus:device.function in hex, as 0000:19:00.0)";
    return std::nullopt;
  };
  const std::string_view id(bus_id);
  const auto dot = id.rfind('.');
  if (dot == std::string_view::npos) return fail("no function number");
  const auto function = hex(id.substr(dot + 1), 1);
  const std::string_view head = id.substr(0, dot);
  const auto last_colon = head.rfind(':');
  if (last_colon == std::string_view::npos) return fail("no bus number");
  const auto device = hex(head.substr(last_colon + 1), 2);
  const std::string_view front = head.substr(0, last_colon);
  const auto colon = front.rfind(':');
  const auto bus = hex(colon == std::string_view::npos ? front : front.substr(colon + 1), 2);
  const auto domain = colon == std::string_view::npos ? std::optional<std::uint64_t>(0) : hex(front.substr(0, colon), 8);
  if (!domain || !bus || !device || !function) return fail("not hex numbers of 8, 2, 2 and 1 digits");
  if (*device > 0x1f) return fail("device number over 1f");
  if (*function > 7) return fail("function number over 7");
  return AmdSmiApi::Bdf{*function | *device << 3 | *bus << 8 | *domain << 16};
}

std::unique_ptr<Source> amdsmi_source(const AmdSmiApi& api, AmdSmiApi::Processor processor) {
  return std::make_unique<AmdSmiSource>(api, processor);
}

std::unique_ptr<Card> open_amdsmi(const AmdSmiApi& api, const std::string& bus_id, std::string* why) {
  const auto bdf = make_bdf(bus_id, why);
  if (!bdf) return nullptr;
  if (!api.processor_from_bdf) {
    if (why) *why = "amd-smi cannot look a card up by PCI bus id";
    return nullptr;
  }
  AmdSmiApi::Processor processor = nullptr;
  if (const Status r = api.processor_from_bdf(*bdf, &processor); r != kSuccess) {
    if (why) *why = "amd-smi has no card at PCI bus id " + bus_id + ": " + status_text(api, r);
    return nullptr;
  }
  return std::make_unique<Card>(amdsmi_source(api, processor));
}

std::optional<double> power_from(const AmdSmiApi::PowerInfo& info, int version) {
  // Offsets of current_socket_power and average_socket_power (uint32_t, watts):
  // 24 (ROCm 6.1 to 6.3): the struct's first two fields;
  // 25 (ROCm 6.4), 26 (ROCm 7): after a uint64_t socket_power.
  // 23 (ROCm 5.7 and 6.0) had two layouts under one name: not read.
  if (!power_layout_known(version)) return std::nullopt;
  const std::size_t current = version == 24 ? 0 : 8, average = current + 4;
  std::uint32_t watts = 0;
  for (const std::size_t at : {current, average}) {
    std::memcpy(&watts, info.bytes + at, sizeof watts);
    if (watts != 0 && given(watts)) return watts;
  }
  return std::nullopt;
}

}  // namespace pitot::card

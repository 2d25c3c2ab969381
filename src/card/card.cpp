#include "card/card.hpp"

#include <chrono>

namespace pitot::card {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

template <class F>
bool Card::ask(const char* name, F&& f) {
  if (refused_.contains(name)) return false;
  const Answer a = f();
  if (a.kind == Answer::ok) return true;
  if (a.kind == Answer::absent || a.kind == Answer::refused) {
    refused_.insert(name);
    const std::string why = a.kind == Answer::absent ? std::string("this ") + source_->library() + " has no such function"
                                                     : source_->describe(a.code);
    missing_.push_back(std::string(name) + " (" + why + ")");
  }
  return false;  // failed: may pass, asked again next time
}

Reading Card::read() {
  Reading r;
  r.seconds = now_seconds();
  double value = 0;
  if (ask("sm_clock", [&] { return source_->sm_clock_mhz(value); })) r.sm_clock_mhz = value;
  if (ask("memory_clock", [&] { return source_->mem_clock_mhz(value); })) r.mem_clock_mhz = value;
  r.temperature_c = temperature_c();
  if (ask("power", [&] { return source_->power_watts(value); })) r.power_watts = value;
  std::uint64_t mask = 0;
  if (ask("clock_reasons", [&] { return source_->clock_reasons(mask); })) r.reasons = mask;
  return r;
}

std::optional<std::uint64_t> Card::energy_millijoules() {
  std::uint64_t mj = 0;
  if (ask("energy", [&] { return source_->energy_millijoules(mj); })) return mj;
  return std::nullopt;
}

std::optional<double> Card::temperature_c() {
  double c = 0;
  if (ask("temperature", [&] { return source_->temperature_c(c); })) return c;
  return std::nullopt;
}

}  // namespace pitot::card

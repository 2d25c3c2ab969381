#include "plan_cache.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <system_error>

namespace suite {

namespace {

std::string default_folder() {
  if (const char* set = std::getenv("PITOT_SUITE_PLAN_CACHE"); set && *set)
    return std::string(set) == "off" ? std::string() : std::string(set);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/pitot/plans";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/pitot/plans";
  return {};
}

// FNV-1a: a file name that is the same in every build (std::hash need not be).
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

PlanCache::PlanCache(std::string kind, std::string library) : library_(std::move(library)) {
  const std::string base = default_folder();
  if (!base.empty()) folder_ = base + "/" + kind;
}

std::string PlanCache::path_of(const std::string& full) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.plan", static_cast<unsigned long long>(fnv1a(full)));
  return folder_ + "/" + name;
}

std::optional<std::string> PlanCache::load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  const std::string full = full_key(key);
  std::ifstream in(path_of(full), std::ios::binary);
  std::string first;
  if (!in || !std::getline(in, first) || first != full) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return std::nullopt;
  return text.str();
}

void PlanCache::store(const std::string& key, const std::string& text) const {
  if (!enabled() || key.find('\n') != std::string::npos) return;
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  if (ec) return;
  const std::string full = full_key(key), path = path_of(full);
  const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << full << '\n' << text;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace suite

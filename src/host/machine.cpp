#include "host/machine.hpp"

#include <algorithm>
#include <iterator>

#include <pitot/detail/registry.hpp>

#include "core/backend.hpp"
#include "core/text.hpp"
#include "process/process.hpp"

#include <sys/utsname.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace pitot {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The value of the first "key : value" line of a /proc file, or "".
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return "";
}

// Runs git with `args` and returns its stdout, or nullopt when there is no git or it failed.
// Its stderr ("not a git repository") is pitot's to report, so it is kept off the terminal.
std::optional<std::string> run_git(const std::vector<std::string>& args) {
  const std::filesystem::path git = find_on_path("git");
  if (git.empty()) return std::nullopt;
  std::vector<std::string> argv = {git.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const Captured c = run_captured(argv, /*timeout_seconds=*/120);
  if (!c.end.ok()) return std::nullopt;
  return c.out;
}

}  // namespace

std::map<std::string, std::string> host_facts() {
  std::map<std::string, std::string> facts;
  struct utsname u {};
  if (uname(&u) == 0) {
    facts["arch"] = u.machine;
    // Kernel major.minor only: results params become asv graph lines, and a build suffix that
    // changes with every VM image (6.18.44-fc-v657-gpu) would split one runner's history.
    std::string release = u.release;
    const auto first_dot = release.find('.');
    const auto second_dot = first_dot == std::string::npos ? first_dot : release.find_first_not_of("0123456789", first_dot + 1);
    facts["os"] = std::string(u.sysname) + " " + release.substr(0, second_dot);
  }
  std::string cpu = proc_field("/proc/cpuinfo", "model name");
  if (cpu.empty()) cpu = proc_field("/proc/cpuinfo", "Model");  // some ARM kernels
  if (cpu.empty()) cpu = proc_field("/proc/cpuinfo", "Hardware");
  facts["cpu"] = cpu.empty() ? "unknown" : cpu;
  unsigned n = std::thread::hardware_concurrency();
  facts["num_cpu"] = std::to_string(n == 0 ? 1 : n);
  // "MemTotal:  24576000 kB" -> "23GB"; whole GiB keep the value stable across boots.
  std::string mem = proc_field("/proc/meminfo", "MemTotal");
  if (!mem.empty()) {
    try {
      double kib = std::stod(mem);
      facts["ram"] = std::to_string(static_cast<long long>(std::llround(kib / (1024.0 * 1024.0)))) + "GB";
    } catch (const std::exception&) {
      facts["ram"] = mem;
    }
  }
  return facts;
}

std::string machine_name_from_gpu(std::string_view product) {
  static const std::string_view dropped[] = {"nvidia", "amd", "instinct", "radeon"};
  std::string name, word;
  auto flush_word = [&] {
    if (!word.empty() && std::find(std::begin(dropped), std::end(dropped), word) == std::end(dropped)) {
      if (!name.empty()) name += '-';
      name += word;
    }
    word.clear();
  };
  for (char c : product) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) word += static_cast<char>(std::tolower(u));
    else flush_word();
  }
  flush_word();
  return name;
}

std::string machine_name_from_cpu(const std::string& cpu_model) {
  // "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz" -> "xeon-gold-6338";
  // "AMD EPYC 7763 64-Core Processor" -> "epyc-7763".
  std::string model = cpu_model.substr(0, cpu_model.find('@'));
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    static const char* noise[] = {"r", "tm", "intel", "amd", "cpu", "processor", "core", "with", "radeon", "graphics"};
    bool is_noise = false;
    for (const char* n : noise) is_noise = is_noise || word == n;
    // "64-core", "8-core": a core count, not part of the model.
    if (word.size() > 5 && word.ends_with("-core")) is_noise = true;
    if (!is_noise) words.push_back(word);
    word.clear();
  };
  for (char c : ascii_lower(model)) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') word += c;
    else flush();
  }
  flush();
  std::string name;
  for (const auto& w : words) {
    std::string part = trim(w);
    while (!part.empty() && part.front() == '-') part.erase(part.begin());
    while (!part.empty() && part.back() == '-') part.pop_back();
    if (part.empty()) continue;
    if (!name.empty()) name += '-';
    name += part;
  }
  if (name.size() > 64) name.resize(64);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name.empty() ? "unknown-cpu" : name;
}

std::string checked_name(const std::string& what, const std::string& name) {
  if (name.empty()) throw std::invalid_argument(what + " name is empty");
  if (name.size() >= 128)
    throw std::invalid_argument(what + " name '" + name.substr(0, 40) + "...' is too long (" +
                                std::to_string(name.size()) + " characters, at most 127)");
  if (name.front() == '.' || name.front() == '-')
    throw std::invalid_argument(what + " name '" + name + "' must not start with '.' or '-'");
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!ok)
      throw std::invalid_argument(what + " name '" + name + "' has the character '" + std::string(1, c) +
                                  "'; use only letters, digits, '.', '_' and '-'");
  }
  return name;
}

std::optional<CommitInfo> git_commit(const std::filesystem::path& dir, const std::string& rev) {
  if (rev.empty() || rev.front() == '-') return std::nullopt;
  auto hash = run_git({"-C", dir.string(), "rev-parse", "--verify", "--quiet", rev + "^{commit}"});
  if (!hash) return std::nullopt;
  CommitInfo info;
  info.hash = trim(*hash);
  if (info.hash.size() != 40) return std::nullopt;
  // asv dates a commit by its author time (`git rev-list -n1 --format=%at`), so use the same.
  auto date = run_git({"-C", dir.string(), "show", "-s", "--format=%at", info.hash});
  if (!date) return std::nullopt;
  try {
    info.date_ms = std::stoll(trim(*date)) * 1000;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return info;
}

namespace {

// The first line git prints, or nullopt when it fails or prints nothing.
std::optional<std::string> git_line(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"-C", dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto out = run_git(argv);
  if (!out) return std::nullopt;
  std::string line = trim(out->substr(0, out->find('\n')));
  if (line.empty()) return std::nullopt;
  return line;
}

}  // namespace

std::optional<std::string> git_top_level(const std::filesystem::path& dir) {
  return git_line(dir, {"rev-parse", "--show-toplevel"});
}

std::optional<std::string> git_branch(const std::filesystem::path& dir) {
  return git_line(dir, {"rev-parse", "--abbrev-ref", "HEAD"});
}

std::optional<std::map<std::string, std::string>>& requirements_override() {
  static std::optional<std::map<std::string, std::string>> requirements;
  return requirements;
}

std::map<std::string, std::string> build_requirements() {
  if (requirements_override()) return *requirements_override();
  std::map<std::string, std::string> req;
#if defined(__clang__)
  req["compiler"] = "clang-" + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__);
#elif defined(__GNUC__)
  req["compiler"] = "gcc-" + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
#elif defined(_MSC_VER)
  req["compiler"] = "msvc-" + std::to_string(_MSC_VER);
#else
  req["compiler"] = "unknown";
#endif
  // A program records its benchmarks' own build (an author's project may be built otherwise
  // than pitot); the driver, which registers none, falls back to its own.
  if (const auto build = program_build()) {
    req["build_type"] = build_type_name(*build);
  } else {
#if defined(PITOT_BUILD_TYPE)
    req["build_type"] = PITOT_BUILD_TYPE;
#elif defined(NDEBUG)
    req["build_type"] = "Release";
#else
    req["build_type"] = "Debug";
#endif
  }
  if (req["build_type"].empty()) req["build_type"] = "none";
  const DeviceBackend* backend = device_backend();
  for (const auto& [k, v] : toolkits_used(backend ? backend->name : "", found_toolkits())) req[k] = v;
  return req;
}

std::map<std::string, std::string> toolkits_used(const std::string& backend, const std::map<std::string, std::string>& found) {
  // Only the toolkit of the program's own backend: a CUDA program's env must not change when the
  // HIP compiler is installed (nor a CPU program's when either is), or its history would split.
  std::map<std::string, std::string> used;
  if (const auto it = found.find(backend); it != found.end()) used.insert(*it);
  return used;
}

}  // namespace pitot

#include <pitot/detail/registry.hpp>

#include <cmath>

#include "core/text.hpp"

namespace pitot {

std::deque<BenchmarkDef>& registry() {
  static std::deque<BenchmarkDef> defs;
  return defs;
}

Benchmark register_benchmark(std::string name, BenchmarkFn fn, std::string source_file, BuildFlags build) {
  auto& defs = registry();
  // Refused here, reported by main (exit 2): names asv cannot store, or that would be one row.
  if (const std::string problem = benchmark_name_problem(name); !problem.empty())
    registration_errors().push_back(problem);
  for (const auto& d : defs)
    if (d.name == name)
      registration_errors().push_back("benchmark " + escape_non_utf8(name) + " is registered twice (" + d.source_file +
                                      " and " + source_file +
                                      "): asv stores one row per name, so one's results would be lost; rename one");
  defs.push_back(BenchmarkDef{std::move(name), std::move(fn), {}, "1", 60.0, std::move(source_file), {}, std::move(build), "time", "seconds", false, {}});
  return Benchmark(defs.back());
}

std::optional<BuildFlags> program_build() {
  const auto& defs = registry();
  if (defs.empty()) return std::nullopt;
  BuildFlags b = defs.front().build;
  b.device = false;
  for (const auto& d : defs) {
    b.optimized = b.optimized && d.build.optimized;
    b.ndebug = b.ndebug && d.build.ndebug;
    b.device = b.device || d.build.device;
    if (b.build_type.empty()) b.build_type = d.build.build_type;
  }
  return b;
}

std::string build_type_name(const BuildFlags& build) {
  if (!build.optimized) return build.build_type == "Debug" ? "Debug" : "unoptimized";
  return build.build_type.empty() ? "none" : build.build_type;
}

std::vector<std::string>& registration_errors() {
  static std::vector<std::string> errors;
  return errors;
}

// Registration runs before main(), where an exception would only terminate: problems are
// recorded and reported by the program's main.
Benchmark& Benchmark::fail(const std::string& message) {
  registration_errors().push_back("benchmark " + escape_non_utf8(def_->name) + ": " + message);
  return *this;
}

Benchmark& Benchmark::add(Axis a) {
  if (a.values.empty()) return fail("axis '" + escape_non_utf8(a.name) + "' has no values");
  if (const std::string problem = axis_problem(a); !problem.empty()) return fail(problem);
  for (const auto& existing : def_->axes)
    if (existing.name == a.name) return fail("axis '" + a.name + "' is declared twice");
  def_->axes.push_back(std::move(a));
  return *this;
}

Benchmark& Benchmark::axis_pow2(std::string name, std::initializer_list<int> exponents) {
  return axis_pow2(std::move(name), std::vector<int>(exponents));
}

Benchmark& Benchmark::axis_pow2(std::string name, const std::vector<int>& exponents) {
  Axis a{std::move(name), AxisKind::Pow2, {}};
  for (int e : exponents) {
    if (e < 0 || e > 62) return fail("power-of-two exponent " + std::to_string(e) + " is out of 0..62");
    a.values.emplace_back(std::int64_t{1} << e);
  }
  return add(std::move(a));
}

Benchmark& Benchmark::version(std::string v) {
  def_->version = std::move(v);
  return *this;
}

Benchmark& Benchmark::multi_rank() {
  def_->multi_rank = true;
  return *this;
}

Benchmark& Benchmark::timeout(double seconds) {
  if (!(seconds > 0)) return fail("timeout must be positive");
  def_->timeout_seconds = seconds;
  return *this;
}

}  // namespace pitot

#include "output/console.hpp"

#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/tracks.hpp"

namespace pitot {

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "-";
  double a = std::fabs(s);
  if (a < 1e-6) return fmt::format("{:.1f} ns", s * 1e9);
  if (a < 1e-3) return fmt::format("{:.3g} µs", s * 1e6);
  if (a < 1.0) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} s", s);
}

namespace {

// A rate with the SI prefix that makes the number read 1-999: "11.47 GFLOP/s", not "0.01147 TFLOP/s".
std::string si_rate(double per_second, const char* unit) {
  static const std::pair<double, const char*> prefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, prefix] : prefixes)
    if (std::fabs(per_second) >= scale) return fmt::format("{:.4g} {}{}", per_second / scale, prefix, unit);
  return fmt::format("{:.4g} {}", per_second, unit);
}

std::string format_track(const Track& t) {
  if (t.unit == "items/s") return si_rate(t.value, "items/s");
  if (t.unit == "TFLOP/s") return si_rate(t.value * 1e12, "FLOP/s");
  if (t.unit == "GB/s") return si_rate(t.value * 1e9, "B/s");
  if (t.unit == "seconds") return (t.name == track::kKernelBusySeconds ? "busy " : t.name + " ") + format_seconds(t.value);
  if (t.name == track::kEnergyJoulesPerCall) {
    for (const auto& [scale, unit] : {std::pair{1.0, "J"}, {1e-3, "mJ"}, {1e-6, "uJ"}})
      if (std::fabs(t.value) >= scale) return fmt::format("{:.4g} {}/call", t.value / scale, unit);
    return fmt::format("{:.4g} nJ/call", t.value * 1e9);
  }
  return fmt::format("{:.4g} {}", t.value, t.unit);
}

std::string percent(double part, double whole) {
  if (!(whole > 0) || !std::isfinite(part)) return "-";
  return fmt::format("{:.2f}%", 100.0 * part / whole);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string format_value(double v, const std::string& unit) {
  if (unit == "seconds") return format_seconds(v);
  if (!std::isfinite(v)) return "-";
  if (unit == "bytes") return si_rate(v, "B");
  return fmt::format("{:.4g} {}", v, unit);
}

void print_table(std::ostream& out, const std::vector<PointResult>& points, double ci_target) {
  std::size_t noisy = 0;
  std::size_t width = 5;
  for (const auto& p : points) width = std::max(width, p.name.size());
  out << fmt::format("{:<{}}  {:>8}  {:>10}  {:>8}  {:>9}  {:>10}  {:<11}  {}\n", "point", width, "samples",
                     "median", "±iqr/2", "ci99 ±", "min", "stop", "throughput");
  for (const auto& p : points) {
    if (p.status != PointStatus::Ok || !p.stats) {
      out << fmt::format("{:<{}}  {}: {}\n", p.name, width, status_name(p.status), p.reason);
      continue;
    }
    const Stats& s = *p.stats;
    std::string tracks;
    for (const auto& t : p.tracks)  // the card's state is in the JSON, CSV and asv: not a throughput
      if (!t.name.starts_with("card_")) tracks += (tracks.empty() ? "" : ", ") + format_track(t);
    std::string ci = std::isfinite(s.ci99_lo) && std::isfinite(s.ci99_hi) ? percent((s.ci99_hi - s.ci99_lo) / 2, s.median) : "-";
    std::string stop = p.stop_reason;
    if (p.discarded_samples > 0) stop += fmt::format(" ({} thr.)", p.discarded_samples);
    // Stopped by a limit before the interval reached the target: the median is less certain.
    const bool wide = !(std::isfinite(s.ci99_lo) && std::isfinite(s.ci99_hi) && s.median > 0 &&
                        (s.ci99_hi - s.ci99_lo) / s.median < ci_target);
    // "samples": the count the benchmark asked for (asv's repeat, one recorded value), no limit.
    if (p.stop_reason != "ci" && p.stop_reason != "samples" && wide) {
      ci += " !";
      ++noisy;
    }
    out << fmt::format("{:<{}}  {:>8}  {:>10}  {:>8}  {:>9}  {:>10}  {:<11}  {}\n", p.name, width, s.n,
                       format_value(s.median, p.unit), percent((s.q75 - s.q25) / 2, s.median), ci,
                       format_value(s.min, p.unit), stop, tracks);
  }
  if (noisy > 0)
    out << fmt::format(
        "! noisy: {} point{} stopped on a limit with the 99% interval of the median wider than "
        "--ci-target ({:g}%); give {} more --max-time, or quiet the machine\n",
        noisy, noisy == 1 ? "" : "s", 100 * ci_target, noisy == 1 ? "it" : "them");
}

void write_csv(std::ostream& out, const std::vector<PointResult>& points) {
  out << "program,benchmark,point,status,reason,samples,number,median_s,q25_s,q75_s,min_s,max_s,mean_s,"
         "stdev_s,ci99_lo_s,ci99_hi_s,stop_reason,items,bytes,flops,tracks\n";
  for (const auto& p : points) {
    out << csv_field(p.program) << ',' << csv_field(p.benchmark) << ',' << csv_field(p.name) << ','
        << status_name(p.status) << ',' << csv_field(p.reason) << ',';
    if (p.stats) {
      const Stats& s = *p.stats;
      out << fmt::format("{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}", s.n, p.number,
                         s.median, s.q25, s.q75, s.min, s.max, s.mean, s.stdev, s.ci99_lo, s.ci99_hi);
    } else {
      out << ",,,,,,,,,,";
    }
    std::string tracks;
    for (const auto& t : p.tracks) tracks += (tracks.empty() ? "" : ";") + fmt::format("{}={:.6g} {}", t.name, t.value, t.unit);
    out << ',' << p.stop_reason << ',' << p.items << ',' << p.bytes << ',' << p.flops << ',' << csv_field(tracks)
        << '\n';
  }
}

}  // namespace pitot

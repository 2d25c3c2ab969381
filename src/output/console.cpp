#include "output/console.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

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

std::string format_track(const Track& t) {
  double v = t.value;
  const char* prefix = "";
  if (t.unit == "items/s") {
    if (v >= 1e9) v /= 1e9, prefix = "G";
    else if (v >= 1e6) v /= 1e6, prefix = "M";
    else if (v >= 1e3) v /= 1e3, prefix = "k";
    return fmt::format("{:.3g} {}items/s", v, prefix);
  }
  if (t.unit == "seconds") return (t.name == "kernel_busy_seconds" ? "busy " : t.name + " ") + format_seconds(v);
  return fmt::format("{:.4g} {}", v, t.unit);
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

void print_table(std::ostream& out, const std::vector<PointResult>& points) {
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
    for (const auto& t : p.tracks) tracks += (tracks.empty() ? "" : ", ") + format_track(t);
    std::string ci = std::isfinite(s.ci99_lo) && std::isfinite(s.ci99_hi) ? percent((s.ci99_hi - s.ci99_lo) / 2, s.median) : "-";
    std::string stop = p.stop_reason;
    if (p.discarded_samples > 0) stop += fmt::format(" ({} thr.)", p.discarded_samples);
    out << fmt::format("{:<{}}  {:>8}  {:>10}  {:>8}  {:>9}  {:>10}  {:<11}  {}\n", p.name, width, s.n,
                       format_seconds(s.median), percent((s.q75 - s.q25) / 2, s.median), ci,
                       format_seconds(s.min), stop, tracks);
  }
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

// See trace.hpp.
#include "driver/profile/trace.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <zlib.h>

#include "core/bounded_json.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace pitot::driver::profile {

std::vector<fs::path> files_with_suffix(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// Reads a gzip (or plain) file line by line; a truncated gzip stream ends the lines early.
std::vector<std::string> read_lines(const fs::path& path) {
  std::vector<std::string> lines;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return lines;
  std::string current;
  char buf[1 << 16];
  for (;;) {
    int n = gzread(gz, buf, sizeof buf);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        lines.push_back(std::move(current));
        current.clear();
      } else {
        current.push_back(buf[i]);
      }
    }
  }
  if (!current.empty()) lines.push_back(std::move(current));
  gzclose(gz);
  return lines;
}

double ts_of(const json& e) { return e.contains("ts") && e["ts"].is_number() ? e["ts"].get<double>() : 0.0; }

}  // namespace

TraceStats merge_cupti_traces(const std::vector<fs::path>& inputs, const fs::path& output) {
  TraceStats stats;
  std::vector<json> meta, events;
  std::set<int> pids;
  for (const auto& path : inputs) {
    ++stats.files;
    for (auto& line : read_lines(path)) {
      while (!line.empty() && (line.back() == ',' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
      if (line.empty() || line.front() != '{') continue;
      json e;
      try {
        e = parse_json_bounded(line);
      } catch (const json::exception&) {
        e = json();  // a line cut short, or not JSON: counted below
      }
      if (!e.is_object() || !e.contains("ph")) {
        // The header line ({"displayTimeUnit":...,"traceEvents":[) is not an event either.
        if (line.find("\"traceEvents\"") == std::string::npos) ++stats.broken_lines;
        continue;
      }
      if (e.contains("pid") && e["pid"].is_number_integer()) pids.insert(e["pid"].get<int>());
      if (e["ph"] == "M") {
        if (e.value("name", "") == "pitot_trace_info") {
          stats.process_info.push_back(e.value("args", json::object()));
          stats.dropped_records += e["args"].value("dropped_records", std::uint64_t{0});
        }
        meta.push_back(std::move(e));
      } else {
        events.push_back(std::move(e));
      }
    }
  }
  std::stable_sort(events.begin(), events.end(), [](const json& a, const json& b) { return ts_of(a) < ts_of(b); });
  stats.processes = static_cast<int>(pids.size());
  stats.events = events.size();

  // Which API call launched each device activity, to tie device work to the range around the call.
  struct Call {
    double ts;
    std::uint64_t tid;
  };
  std::map<std::pair<int, std::int64_t>, Call> calls;
  for (const auto& e : events) {
    const std::string cat = e.value("cat", "");
    if (cat == "cuda_runtime" || cat == "cuda_driver") {
      ++stats.api_calls;
      if (e.contains("args") && e["args"].contains("correlation"))
        calls[{e.value("pid", 0), e["args"]["correlation"].get<std::int64_t>()}] = {ts_of(e), e.value("tid", std::uint64_t{0})};
    } else if (cat == "kernel") {
      ++stats.kernels;
    } else if (cat == "memcpy") {
      ++stats.memcpys;
    } else if (cat == "memset") {
      ++stats.memsets;
    }
  }
  for (const auto& r : events) {
    if (r.value("cat", "") != "nvtx" || r.value("ph", "") != "X") continue;
    ++stats.ranges;
    const std::string name = r.value("name", "");
    if (name.rfind("pitot:", 0) != 0) continue;
    RangeSummary s;
    s.name = name.substr(6);
    s.pid = r.value("pid", 0);
    s.wall_us = r.value("dur", 0.0);
    const double begin = ts_of(r), end = begin + s.wall_us;
    const auto tid = r.value("tid", std::uint64_t{0});
    std::vector<std::pair<std::string, double>> work;
    for (const auto& e : events) {
      const std::string cat = e.value("cat", "");
      if (cat != "kernel" && cat != "memcpy" && cat != "memset") continue;
      if (e.value("pid", 0) != s.pid || !e.contains("args") || !e["args"].contains("correlation")) continue;
      // By the call that launched it; work launched through a call the trace does not hold (a
      // library calling the driver API, e.g. cuBLASLt) counts when it ran inside the range.
      auto call = calls.find({s.pid, e["args"]["correlation"].get<std::int64_t>()});
      const double dur = e.value("dur", 0.0);
      if (call != calls.end()) {
        if (call->second.tid != tid || call->second.ts < begin || call->second.ts > end) continue;
      } else if (ts_of(e) < begin || ts_of(e) + dur > end) {
        continue;
      }
      s.gpu_us += dur;
      (cat == "kernel" ? s.kernels : cat == "memcpy" ? s.memcpys
                                                     : s.memsets)++;
      work.emplace_back(e.value("name", ""), dur);
    }
    std::sort(work.begin(), work.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (work.size() > 5) work.resize(5);
    s.top = std::move(work);
    stats.points.push_back(std::move(s));
  }

  gzFile gz = gzopen(output.c_str(), "wb6");
  if (!gz) throw std::runtime_error("cannot write " + output.string());
  json other = {{"generator", "pitot profile --tool cupti"}, {"processes", stats.process_info}};
  std::string head = "{\"displayTimeUnit\":\"ns\",\"otherData\":" + other.dump() + ",\"traceEvents\":[\n";
  bool ok = gzwrite(gz, head.data(), static_cast<unsigned>(head.size())) > 0;
  bool first = true;
  auto put = [&](const json& e) {
    std::string s = (first ? "" : ",\n") + e.dump();
    first = false;
    ok = ok && gzwrite(gz, s.data(), static_cast<unsigned>(s.size())) > 0;
  };
  for (const auto& e : meta) put(e);
  for (const auto& e : events) put(e);
  const std::string tail = "\n]}\n";
  ok = ok && gzwrite(gz, tail.data(), static_cast<unsigned>(tail.size())) > 0;
  if (gzclose(gz) != Z_OK || !ok) throw std::runtime_error("cannot write " + output.string() + " (disk full?)");
  return stats;
}

std::uint64_t merge_perfetto(const std::vector<fs::path>& inputs, const fs::path& output) {
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + output.string());
  std::uint64_t total = 0;
  for (const auto& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    out << in.rdbuf();
    std::error_code ec;
    total += fs::file_size(p, ec);
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + output.string() + " (disk full?)");
  return total;
}

}  // namespace pitot::driver::profile

#include "gpu/kernel_clock.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace pitot::kernel_clock {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Kernel: return "kernel";
    case Kind::Memcpy: return "memcpy";
    case Kind::Memset: return "memset";
    case Kind::ExternalCorrelation: return "external_correlation";
  }
  return "?";
}

void Matcher::expect(std::uint64_t first, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) launches_.try_emplace(first + static_cast<std::uint64_t>(i));
}

void Matcher::attach(std::uint64_t external, const Record& record) {
  auto it = launches_.find(external);
  if (it == launches_.end()) {
    ++late_;  // its launch was taken already (or belongs to an earlier sampler)
    return;
  }
  it->second.push_back(record);
}

void Matcher::add(const Record& record) {
  if (record.kind == Kind::ExternalCorrelation) {
    external_of_[record.correlation] = {record.external, generation_};
    auto pending = unmatched_.find(record.correlation);
    if (pending != unmatched_.end()) {
      for (const auto& r : pending->second.records) attach(record.external, r);
      unmatched_.erase(pending);
    }
    return;
  }
  if (record.start_ns == 0 || record.end_ns == 0 || record.end_ns < record.start_ns) {
    ++invalid_;
    return;
  }
  auto mapping = external_of_.find(record.correlation);
  if (mapping != external_of_.end()) {
    attach(mapping->second.external, record);
    return;
  }
  // The external correlation record may come in a later buffer: hold the work record until then.
  auto& pending = unmatched_[record.correlation];
  if (pending.records.empty()) pending.generation = generation_;
  pending.records.push_back(record);
}

std::int64_t Matcher::incomplete(std::uint64_t first, std::int64_t count, int min_records) const {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    auto it = launches_.find(first + static_cast<std::uint64_t>(i));
    if (it == launches_.end() || static_cast<int>(it->second.size()) < std::max(1, min_records)) ++n;
  }
  return n;
}

std::vector<LaunchTime> Matcher::take(std::uint64_t first, std::int64_t count) {
  std::vector<LaunchTime> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  for (std::int64_t i = 0; i < count; ++i) {
    LaunchTime t;
    t.id = first + static_cast<std::uint64_t>(i);
    auto it = launches_.find(t.id);
    if (it != launches_.end()) {
      if (!it->second.empty()) {
        std::uint64_t lo = it->second.front().start_ns, hi = it->second.front().end_ns;
        double busy = 0;
        for (const auto& r : it->second) {
          lo = std::min(lo, r.start_ns);
          hi = std::max(hi, r.end_ns);
          const double ns = static_cast<double>(r.end_ns - r.start_ns);
          busy += ns;
          t.parts.push_back({r.kind, r.name, ns, r.waves});
          if (r.waves > t.max_waves) {
            t.max_waves = r.waves;
            t.widest = r.name;
          }
        }
        t.span_ns = static_cast<double>(hi - lo);
        t.busy_ns = busy;
      }
      launches_.erase(it);
    }
    out.push_back(std::move(t));
  }
  if (count > 0) taken_below_ = std::max(taken_below_, first + static_cast<std::uint64_t>(count));
  ++generation_;
  // Work records that found no external id in two takes were queued outside every push: pitot's
  // helpers or setup work. Mappings of taken launches are kept one take longer, so a record that
  // comes after its launch was taken is counted as late rather than as unattributed.
  for (auto it = unmatched_.begin(); it != unmatched_.end();) {
    if (generation_ - it->second.generation >= 2) {
      unattributed_ += static_cast<std::int64_t>(it->second.records.size());
      it = unmatched_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = external_of_.begin(); it != external_of_.end();) {
    if (it->second.external < taken_below_ && generation_ - it->second.generation >= 2 &&
        !launches_.count(it->second.external))
      it = external_of_.erase(it);
    else
      ++it;
  }
  return out;
}

Summary summarize(const std::vector<LaunchTime>& launches) {
  Summary s;
  s.launches = static_cast<std::int64_t>(launches.size());
  if (launches.empty()) {
    s.span_ns = s.busy_ns = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  for (const auto& l : launches) {
    s.span_ns += l.span_ns;  // NaN spreads: one launch without records spoils the sample
    s.busy_ns += l.busy_ns;
  }
  s.span_ns /= static_cast<double>(s.launches);
  s.busy_ns /= static_cast<double>(s.launches);
  return s;
}

void Breakdown::add(const std::vector<LaunchTime>& launches) {
  for (const auto& l : launches) {
    ++launches_;
    for (const auto& p : l.parts) {
      Entry& e = by_name_[{p.kind, p.name}];
      e.kind = p.kind;
      e.name = p.name;
      ++e.count;
      e.total_ns += p.ns;
    }
  }
}

void Breakdown::merge(const Breakdown& other) {
  launches_ += other.launches_;
  for (const auto& [key, entry] : other.by_name_) {
    Entry& e = by_name_[key];
    e.kind = entry.kind;
    e.name = entry.name;
    e.count += entry.count;
    e.total_ns += entry.total_ns;
  }
}

void Breakdown::clear() {
  by_name_.clear();
  launches_ = 0;
}

std::vector<Breakdown::Entry> Breakdown::entries() const {
  std::vector<Entry> out;
  for (const auto& [key, entry] : by_name_) out.push_back(entry);
  std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::string demangle(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text ? text : name;
  std::free(text);
  return out;
}

double waves(std::uint64_t blocks, int threads_per_block, int registers_per_thread, std::uint64_t shared_bytes_per_block,
             const DeviceLimits& limits) {
  if (limits.sm_count <= 0 || limits.max_blocks_per_sm <= 0 || threads_per_block <= 0 || blocks == 0) return 0;
  std::int64_t per_sm = limits.max_blocks_per_sm;
  if (limits.max_threads_per_sm > 0) per_sm = std::min<std::int64_t>(per_sm, limits.max_threads_per_sm / threads_per_block);
  if (limits.registers_per_sm > 0 && registers_per_thread > 0)
    per_sm = std::min<std::int64_t>(per_sm, limits.registers_per_sm / (static_cast<std::int64_t>(registers_per_thread) * threads_per_block));
  if (limits.shared_bytes_per_sm > 0 && shared_bytes_per_block > 0)
    per_sm = std::min<std::int64_t>(per_sm, static_cast<std::int64_t>(limits.shared_bytes_per_sm / shared_bytes_per_block));
  per_sm = std::max<std::int64_t>(per_sm, 1);
  return static_cast<double>(blocks) / static_cast<double>(per_sm * limits.sm_count);
}

bool events_see_unmatched_work(double span_seconds, double event_seconds) {
  if (!(span_seconds > 0) || !(event_seconds > 0)) return false;
  return event_seconds - span_seconds > std::max(10e-6, 0.25 * span_seconds);
}

}  // namespace pitot::kernel_clock

// The kernel clock's bookkeeping, free of CUDA and CUPTI so it is unit-tested without a GPU:
// device activity records (kernels, memcpys, memsets with the device's own start and end
// timestamps) in, per-launch time and a per-kernel breakdown out.
//
// How records find their launch: the sampler pushes an external correlation id (one per launch
// of the author's work) around that launch; CUPTI then writes an ExternalCorrelation record
// {correlation id of each API call made meanwhile -> external id}, and every kernel, memcpy or
// memset carries the correlation id of the API call that queued it. Work queued outside a push
// (pitot's L2 flush, blocker and clock probe, a benchmark's setup) never gets an external id and
// is left out. Records arrive in buffers, in any order, possibly in a later flush than the batch
// they belong to; the Matcher holds them until both halves are there.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace pitot::kernel_clock {

enum class Kind { Kernel, Memcpy, Memset, ExternalCorrelation };
const char* kind_name(Kind kind);  // "kernel", "memcpy", "memset", "external_correlation"
// A kernel's name as C++ wrote it (the record holds the mangled name); unchanged if not mangled.
std::string demangle(const std::string& name);

struct Record {
  Kind kind = Kind::Kernel;
  std::string name;                        // kernel name as recorded (mangled); "memcpy DtoD", "memset"
  std::uint32_t correlation = 0;           // CUPTI's id of the API call that queued the work
  std::uint64_t external = 0;              // ExternalCorrelation only: the id pushed around that call
  std::uint64_t start_ns = 0, end_ns = 0;  // device timestamps (work records only)
  // Kernels: the grid's blocks over the blocks the device holds at once (1 or less: one wave).
  // 0 when unknown, and for memcpys and memsets.
  double waves = 0;
};

// One record of a launch, kept for the breakdown.
struct Part {
  Kind kind = Kind::Kernel;
  std::string name;
  double ns = 0;
  double waves = 0;
};

// One launch of the author's work, as the device saw it.
struct LaunchTime {
  std::uint64_t id = 0;
  // First start to last end of its records; NaN when no record of it arrived (the work queued
  // nothing the clock sees, or its records are still to come): the caller decides.
  double span_ns = std::numeric_limits<double>::quiet_NaN();
  double busy_ns = std::numeric_limits<double>::quiet_NaN();  // sum of record durations
  std::vector<Part> parts;
  // The record with the most waves of blocks (Record::waves), for the clock's own check.
  double max_waves = 0;
  std::string widest;
};

// Records to launches. Launch ids are expected in batches of consecutive ids.
class Matcher {
 public:
  // The launches [first, first + count) are (about to be) queued.
  void expect(std::uint64_t first, std::int64_t count);
  void add(const Record& record);
  // How many launches of the batch have fewer than `min_records` records so far.
  std::int64_t incomplete(std::uint64_t first, std::int64_t count, int min_records) const;
  // The batch's launches in id order; forgets them. A record of them that arrives later is
  // counted in late() and dropped. Work records still without an external id after two takes
  // are pitot's own or setup work: dropped and counted in unattributed().
  std::vector<LaunchTime> take(std::uint64_t first, std::int64_t count);

  std::int64_t unattributed() const { return unattributed_; }
  std::int64_t late() const { return late_; }
  std::int64_t invalid() const { return invalid_; }  // end before start, or a zero timestamp

 private:
  void attach(std::uint64_t external, const Record& record);
  struct Pending {
    std::vector<Record> records;
    std::uint64_t generation = 0;
  };
  struct Mapping {
    std::uint64_t external = 0;
    std::uint64_t generation = 0;
  };
  std::map<std::uint64_t, std::vector<Record>> launches_;   // expected, not yet taken
  std::unordered_map<std::uint32_t, Mapping> external_of_;  // correlation -> external id
  std::unordered_map<std::uint32_t, Pending> unmatched_;    // work records without one yet
  std::uint64_t taken_below_ = 0;                           // every id below this was taken (or never expected)
  std::uint64_t generation_ = 0;                            // counts takes
  std::int64_t unattributed_ = 0, late_ = 0, invalid_ = 0;
};

// What bounds how many blocks a device runs at once, per multiprocessor.
struct DeviceLimits {
  int sm_count = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_sm = 0;
  int registers_per_sm = 0;
  std::uint64_t shared_bytes_per_sm = 0;
};
// A kernel's grid over the blocks the device can hold at once (an upper bound on residency from
// threads, registers and shared memory; allocation granularity ignored): above 1, the kernel runs
// in several waves. 0 when the limits are unknown.
double waves(std::uint64_t blocks, int threads_per_block, int registers_per_thread, std::uint64_t shared_bytes_per_block,
             const DeviceLimits& limits);

// Whether the events around the launches saw much more device time than the kernel clock did, per
// launch (medians of warm-up samples): work queued from another thread (torch's autograd runs the
// backward on its own thread) carries no correlation id the clock can match, so the clock sees only
// part of the launch. The margin (10 us, or a quarter of the span) leaves out what the event pair
// adds by itself (launch processing, a few microseconds at most).
bool events_see_unmatched_work(double span_seconds, double event_seconds);

// Time of one sample (or batch): spans and busy times averaged over its launches.
struct Summary {
  double span_ns = 0;  // mean over launches; NaN if any launch had no record
  double busy_ns = 0;
  std::int64_t launches = 0;
};
Summary summarize(const std::vector<LaunchTime>& launches);

// Per-kernel totals over many launches.
class Breakdown {
 public:
  void add(const std::vector<LaunchTime>& launches);
  void merge(const Breakdown& other);
  void clear();
  struct Entry {
    Kind kind = Kind::Kernel;
    std::string name;
    std::int64_t count = 0;  // records over all launches
    double total_ns = 0;
  };
  // Largest total first.
  std::vector<Entry> entries() const;
  std::int64_t launches() const { return launches_; }

 private:
  std::map<std::pair<Kind, std::string>, Entry> by_name_;
  std::int64_t launches_ = 0;
};

}  // namespace pitot::kernel_clock

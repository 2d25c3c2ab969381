// CPU stand-ins of the attacks on a problem's timing (docs/untrusted.md, "Problems"), each a
// submission to the same problem beside honest controls; check_problems.py runs them through
// pitot run --untrusted and expects each verdict (expected_problems.json). The same attacks on a
// GPU are in problem_corpus.cu.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pitot/pitot.hpp>

#include "problems.hpp"

namespace {

const pitot::Problem kProblem = untrusted_problems::multiply_add({4096});
const pitot::Problem kIntProblem = untrusted_problems::int_axpy({4096});
const pitot::Problem kDeterministicProblem = untrusted_problems::declared_deterministic(kProblem);
// 64 MB of output a call: the checks between calls take several times the call (the driver's
// clock from below must allow them, as the harness timed them).
const pitot::Problem kLargeOutput = untrusted_problems::large_output({std::int64_t{1} << 24});

void multiply_add(const float* a, const float* b, float* c, std::int64_t from, std::int64_t to) {
  for (std::int64_t i = from; i < to; ++i) c[i] = a[i] * b[i] + a[i];
}

void compute(pitot::Buffers in, pitot::Buffers out) {
  multiply_add(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), 0, out[0].count());
}

// The controls: the work, every call.
void honest(pitot::Buffers in, pitot::Buffers out) { compute(in, out); }

void honest_threads(pitot::Buffers in, pitot::Buffers out) {  // two threads, both joined before returning
  const std::int64_t n = out[0].count();
  std::thread half([&] { multiply_add(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), 0, n / 2); });
  multiply_add(in[0].as<const float>(), in[1].as<const float>(), out[0].as<float>(), n / 2, n);
  half.join();
}

void honest_deterministic(pitot::Buffers in, pitot::Buffers out) { compute(in, out); }

void honest_large_output(pitot::Buffers in, pitot::Buffers out) { untrusted_problems::repeat_doubled(in, out); }

void honest_int(pitot::Buffers in, pitot::Buffers out) {
  const auto* x = in[0].as<const std::uint32_t>();
  const auto* z = in[1].as<const std::uint32_t>();
  auto* y = out[0].as<std::uint32_t>();
  for (std::int64_t i = 0; i < out[0].count(); ++i) y[i] = 3u * x[i] + z[i];
}

// Caches the result by the input's address: computed once per pointer, copied after that.
void cache_by_pointer(pitot::Buffers in, pitot::Buffers out) {
  static std::map<const void*, std::vector<float>> cache;
  auto [it, fresh] = cache.try_emplace(in[0].data());
  if (fresh) {
    compute(in, out);
    it->second.assign(out[0].as<float>(), out[0].as<float>() + out[0].count());
  }
  std::memcpy(out[0].data(), it->second.data(), out[0].bytes());
}

// Caches the result by the first input's content (all of it): computed once per content.
void cache_by_first_input(pitot::Buffers in, pitot::Buffers out) {
  static std::map<std::string, std::vector<float>> cache;
  auto [it, fresh] = cache.try_emplace(std::string(static_cast<const char*>(in[0].data()), in[0].bytes()));
  if (fresh) {
    compute(in, out);
    it->second.assign(out[0].as<float>(), out[0].as<float>() + out[0].count());
  }
  std::memcpy(out[0].data(), it->second.data(), out[0].bytes());
}

// The work for the first 50 calls (the correctness phase of a harness that checks only those),
// nothing after.
void skip_after_calls(pitot::Buffers in, pitot::Buffers out) {
  static int calls = 0;
  if (++calls <= 50) compute(in, out);
}

// Right for the first 50 calls, one element wrong after them: a harness that checks only the
// first calls, or only the warm-up, never sees it.
void wrong_after_calls(pitot::Buffers in, pitot::Buffers out) {
  static int calls = 0;
  compute(in, out);
  if (++calls > 50) out[0].as<float>()[7] += 1.0f;
}

// Returns at once; a detached thread does the work 5 ms later (the timer has stopped by then).
void deferred_thread(pitot::Buffers in, pitot::Buffers out) {
  const float* a = in[0].as<const float>();
  const float* b = in[1].as<const float>();
  float* c = out[0].as<float>();
  const std::int64_t n = out[0].count();
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    multiply_add(a, b, c, 0, n);
  }).detach();
}

// The work, then on every other call each element's last bit raised (1 ulp, within the problem's
// atol of 1e-6 for |c| <= 2): a result that depends on the call, as atomics' order or a kernel
// picked at run time makes it. Every call passes the tolerance; the problem declared
// deterministic refuses it, the same problem without the flag accepts it.
void jitter(pitot::Buffers in, pitot::Buffers out) {
  static std::int64_t calls = 0;
  compute(in, out);
  if ((++calls & 1) == 0) return;
  float* c = out[0].as<float>();
  for (std::int64_t i = 0; i < out[0].count(); ++i) c[i] = std::nextafter(c[i], std::numeric_limits<float>::infinity());
}
void last_bit_jitter(pitot::Buffers in, pitot::Buffers out) { jitter(in, out); }
void last_bit_jitter_allowed(pitot::Buffers in, pitot::Buffers out) { jitter(in, out); }


// Reads the reference's expected outputs out of the harness's memory instead of computing:
// pygpubench's attack on its expected outputs, on the CPU. Written against the harness as it was
// before the expected outputs moved to a checker process (src/core/problem_checker.hpp): then a
// point's problem::PointData, in this process, held the input draws and each set's expected
// outputs (std::vector<std::vector<HostBlock>> draws_, expected_), followed by the key they were
// masked with (mask_of in problem_check.hpp). The scan looks for that layout in every writable
// mapping of the process (through /proc/self/mem, so a wrong guess reads nothing rather than
// crashing), finds which set the call's inputs are by their content, unmasks that set's expected
// output and returns it. Against that harness it was accepted; where it finds nothing it writes
// nothing, and the output is refused as not written.
namespace scan {

struct Memory {
  int fd = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  bool read(std::uint64_t address, void* to, std::size_t bytes) const {
    return fd >= 0 && address != 0 &&
           ::pread(fd, to, bytes, static_cast<off_t>(address)) == static_cast<ssize_t>(bytes);
  }
  std::vector<std::uint64_t> words(std::uint64_t address, std::size_t count) const {
    std::vector<std::uint64_t> w(count);
    if (!read(address, w.data(), count * 8)) w.clear();
    return w;
  }
};

std::uint64_t mix64(std::uint64_t x) {  // problem_check.hpp's
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The harness's layout: a std::vector is (begin, end, capacity); a HostBlock a vector of words and
// its byte count (32 bytes).
struct Layout {
  std::uint64_t draws = 0, expected = 0, key = 0;  // the vectors' arrays, the mask key
  std::uint64_t count = 0, sets = 0;
};

// Whether (begin, end) holds a vector of `n` HostBlocks of the buffers' sizes.
bool blocks_fit(const Memory& m, std::uint64_t vec, const pitot::Buffers& bufs) {
  const auto v = m.words(vec, 3);
  if (v.empty() || v[1] - v[0] != bufs.size() * 32 || v[2] < v[1]) return false;
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    const auto b = m.words(v[0] + 32 * i, 4);
    if (b.empty() || b[3] != bufs[i].bytes() || b[1] - b[0] != (bufs[i].bytes() + 7) / 8 * 8) return false;
  }
  return true;
}

std::optional<Layout> match(const Memory& m, const std::uint64_t* w, pitot::Buffers in, pitot::Buffers out) {
  const std::uint64_t d = (w[1] - w[0]) / 24, s = (w[4] - w[3]) / 24;
  if (w[0] == 0 || w[0] % 8 || (w[1] - w[0]) % 24 || d < 2 || d > 64 || w[2] < w[1]) return std::nullopt;
  if (w[3] == 0 || w[3] % 8 || (w[4] - w[3]) % 24 || (s != d && s != d * d) || w[5] < w[4]) return std::nullopt;
  if (!blocks_fit(m, w[0], in) || !blocks_fit(m, w[3], out)) return std::nullopt;
  return Layout{w[0], w[3], w[6], d, s};
}

std::optional<Layout> find(const Memory& m, pitot::Buffers in, pitot::Buffers out) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    const std::uint64_t from = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    const std::uint64_t to = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (perms.rfind("rw", 0) != 0 || to - from > (256ull << 20)) continue;  // not the sanitizers' shadow
    const std::vector<std::uint64_t> w = m.words(from, (to - from) / 8);
    for (std::size_t i = 0; i + 7 <= w.size(); ++i)
      if (auto found = match(m, w.data() + i, in, out)) return found;
  }
  return std::nullopt;
}

// Which set the call's inputs are: the draw each input came from, found by content.
std::optional<std::uint64_t> set_of(const Memory& m, const Layout& l, pitot::Buffers in) {
  std::vector<std::uint64_t> draw(in.size(), l.count);
  for (std::uint64_t d = 0; d < l.count; ++d) {
    const auto blocks = m.words(l.draws + 24 * d, 1);
    for (std::size_t j = 0; !blocks.empty() && j < in.size(); ++j) {
      const auto block = m.words(blocks[0] + 32 * j, 1);
      std::vector<unsigned char> bytes(in[j].bytes());
      if (!block.empty() && m.read(block[0], bytes.data(), bytes.size()) &&
          std::memcmp(bytes.data(), in[j].data(), bytes.size()) == 0)
        draw[j] = d;
    }
  }
  for (auto d : draw)
    if (d == l.count) return std::nullopt;
  return l.sets == l.count ? draw[0] : draw[0] * l.count + draw[1];
}

}  // namespace scan

void read_expected(pitot::Buffers in, pitot::Buffers out) {
  static const scan::Memory memory;
  static const std::optional<scan::Layout> layout = scan::find(memory, in, out);
  if (!layout) return;  // nothing found: nothing written
  const auto set = scan::set_of(memory, *layout, in);
  const auto blocks = set ? memory.words(layout->expected + 24 * *set, 1) : std::vector<std::uint64_t>{};
  const auto block = blocks.empty() ? blocks : memory.words(blocks[0], 1);
  std::vector<std::uint32_t> c(static_cast<std::size_t>(out[0].count()));
  if (block.empty() || !memory.read(block[0], c.data(), c.size() * 4)) return;
  for (std::size_t i = 0; i < c.size(); ++i) {
    c[i] ^= static_cast<std::uint32_t>(scan::mix64(layout->key + i * 0xA24BAED4963EE407ull));
    float v;
    std::memcpy(&v, &c[i], 4);
    if (!(std::fabs(v) <= 2.0f)) return;  // not this problem's answer (|a * b + a| <= 2)
  }
  std::memcpy(out[0].data(), c.data(), out[0].bytes());
}

// Kills the harness's checker process on its first call (the children of the calling thread, the
// point's: the program runs other points beside it, each with a checker of its own), then does
// the work: nothing is left to check its outputs, and the point is refused.
void kill_checker(pitot::Buffers in, pitot::Buffers out) {
  static const int killed = [] {
    std::ifstream children("/proc/thread-self/children");
    int n = 0;
    for (long pid = 0; children >> pid;) n += ::kill(static_cast<pid_t>(pid), SIGKILL) == 0;
    return n;
  }();
  (void)killed;
  compute(in, out);
}

}  // namespace

PITOT_SUBMISSION(kProblem, honest);
PITOT_SUBMISSION(kProblem, honest_threads);
PITOT_SUBMISSION(kIntProblem, honest_int);
PITOT_SUBMISSION(kProblem, cache_by_pointer);
PITOT_SUBMISSION(kProblem, cache_by_first_input);
PITOT_SUBMISSION(kProblem, skip_after_calls);
PITOT_SUBMISSION(kProblem, wrong_after_calls);
PITOT_SUBMISSION(kProblem, deferred_thread);
PITOT_SUBMISSION(kDeterministicProblem, honest_deterministic);
PITOT_SUBMISSION(kLargeOutput, honest_large_output);
PITOT_SUBMISSION(kDeterministicProblem, last_bit_jitter);
PITOT_SUBMISSION(kProblem, last_bit_jitter_allowed);
PITOT_SUBMISSION(kProblem, read_expected);
PITOT_SUBMISSION(kProblem, kill_checker);

// The harness's side of a problem (problem.hpp): the point's data, the host checks, the reasons,
// and the device path's hand-over to the backend.
#include "core/problem.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include <pitot/detail/backend_info.hpp>

#include "core/backend.hpp"
#include "core/problem_check.hpp"
#include "core/untrusted.hpp"

namespace pitot {

std::size_t dtype_bytes(DType t) { return static_cast<std::size_t>(problem::element_bytes(t)); }

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::BF16: return "bf16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U8: return "u8";
  }
  return "?";
}

namespace problem {
namespace {

std::vector<BufferSpec> specs_of(const Problem& p, const Shape& shape, bool outputs) {
  const char* what = outputs ? "outputs" : "inputs";
  const auto& fn = outputs ? p.outputs : p.inputs;
  if (!fn) throw UsageError(fmt::format("problem {}: no {} function", p.name, what));
  std::vector<BufferSpec> specs = fn(shape);
  if (specs.empty()) throw UsageError(fmt::format("problem {}: no {} for {}", p.name, what, shape.name()));
  for (const auto& s : specs)
    if (s.count < 1)
      throw UsageError(fmt::format("problem {}: {} '{}' has {} elements for {} (at least 1)", p.name, what, s.name,
                                   s.count, shape.name()));
  return specs;
}

std::vector<HostBlock> blocks_for(const std::vector<BufferSpec>& specs) {
  std::vector<HostBlock> blocks;
  for (const auto& s : specs) blocks.emplace_back(s.bytes());
  return blocks;
}

std::vector<Buffer> views_of(std::vector<HostBlock>& blocks, const std::vector<BufferSpec>& specs) {
  std::vector<Buffer> views;
  for (std::size_t i = 0; i < specs.size(); ++i) views.emplace_back(blocks[i].data(), specs[i]);
  return views;
}

// Stores `plain` XOR each element's mask (problem_check.hpp), in place.
void mask(HostBlock& block, const BufferSpec& spec, std::uint64_t key) {
  const int size = element_bytes(spec.dtype);
  auto* bytes = static_cast<unsigned char*>(block.data());
  for (std::int64_t i = 0; i < spec.count; ++i) {
    const std::uint64_t m = mask_of(key, static_cast<std::uint64_t>(i));
    for (int b = 0; b < size; ++b) bytes[i * size + b] ^= static_cast<unsigned char>(m >> (8 * b));
  }
}

std::string number(double v) { return fmt::format("{:.9g}", v); }

}  // namespace

std::uint64_t os_seed() {
  std::uint64_t seed = 0;
  const ssize_t got = getrandom(&seed, sizeof seed, 0);
  if (got != static_cast<ssize_t>(sizeof seed))
    throw std::runtime_error(std::string("the operating system gave no random seed (getrandom: ") +
                             (got < 0 ? std::strerror(errno) : "short read") + ")");
  return seed;
}

PointData::PointData(const Problem& p, const Shape& shape, std::uint64_t seed)
    : name_(p.name),
      inputs_(specs_of(p, shape, false)),
      outputs_(specs_of(p, shape, true)),
      tolerance_(p.tolerance),
      deterministic_(p.deterministic) {
  if (!p.generate || !p.reference) throw UsageError("problem " + p.name + ": a generate and a reference function are needed");
  if (p.draws < 2 || p.draws > 64) throw UsageError(fmt::format("problem {}: draws is {}; 2 to 64", p.name, p.draws));
  if (!tolerance_.exact && !(tolerance_.atol >= 0 && tolerance_.rtol >= 0))
    throw UsageError("problem " + p.name + ": a tolerance's atol and rtol are at least 0");
  combined_ = p.inputs_independent && inputs_.size() >= 2;
  mask_key_ = mix64(seed ^ 0x6D61736Bull);
  hash_key_ = mix64(seed ^ 0x68617368ull);
  order_key_ = mix64(seed ^ 0x6F726465ull);
  for (int d = 0; d < p.draws; ++d) {
    draws_.push_back(blocks_for(inputs_));
    const std::vector<Buffer> views = views_of(draws_.back(), inputs_);
    p.generate(shape, mix64(seed + static_cast<std::uint64_t>(d) + 1), views);
  }
  const int sets = combined_ ? p.draws * p.draws : p.draws;
  for (int s = 0; s < sets; ++s) {
    std::vector<Buffer> in;
    for (std::size_t j = 0; j < inputs_.size(); ++j)
      in.emplace_back(draws_[draw_of(s, static_cast<int>(j))][j].data(), inputs_[j]);
    expected_.push_back(blocks_for(outputs_));
    const std::vector<Buffer> out = views_of(expected_.back(), outputs_);
    p.reference(shape, in, out);
    for (std::size_t o = 0; o < outputs_.size(); ++o) mask(expected_.back()[o], outputs_[o], mask_key_);
  }
}

int PointData::draw_of(int set, int j) const {
  if (!combined_) return set;
  const int d = static_cast<int>(draws_.size());
  return j == 0 ? set / d : set % d;
}

std::uint64_t PointData::hash_key(int o) const { return mix64(hash_key_ + static_cast<std::uint64_t>(o)); }

int PointData::next_set() {
  return static_cast<int>(mix64(order_key_ + counter_++) % static_cast<std::uint64_t>(sets()));
}

unsigned char PointData::next_poison() { return static_cast<unsigned char>(mix64(~order_key_ + counter_++) | 1); }

nlohmann::json PointData::info() const {
  auto list = [](const std::vector<BufferSpec>& specs) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& s : specs) a.push_back({{"name", s.name}, {"dtype", dtype_name(s.dtype)}, {"count", s.count}});
    return a;
  };
  nlohmann::json tolerance = tolerance_.exact ? nlohmann::json{{"exact", true}}
                                              : nlohmann::json{{"atol", tolerance_.atol}, {"rtol", tolerance_.rtol}};
  return {{"name", name_},          {"draws", draws()},          {"sets", sets()},
          {"inputs_combined", combined_}, {"inputs", list(inputs_)}, {"outputs", list(outputs_)},
          {"tolerance", tolerance},    {"deterministic", deterministic_}};
}

PointData prepare(State& state, const Problem& p) {
  const Shape shape(state);
  if (p.work) {
    const Work w = p.work(shape);
    if (w.flops > 0) state.add_flops(w.flops);
    if (w.bytes > 0) state.add_bytes(w.bytes);
  }
  return PointData(p, shape, os_seed());
}

void record(State& state, const PointData& data, std::int64_t calls_checked, double check_seconds_per_call,
            std::int64_t compared) {
  nlohmann::json info = data.info();
  info["calls_checked"] = calls_checked;
  if (data.deterministic()) info["calls_compared_bit_for_bit"] = compared;
  info["check_seconds_per_call"] = check_seconds_per_call;
  detail::set_backend_info(state, "problem", info.dump());
}

std::uint64_t fingerprint(const void* data, std::size_t bytes, std::uint64_t key) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t sum = length_term(key, bytes);
  const std::size_t words = bytes / 4;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint32_t w;
    std::memcpy(&w, p + 4 * i, 4);
    sum += word_term(key, i, w);
  }
  if (bytes % 4 != 0) {
    std::uint32_t w = 0;
    std::memcpy(&w, p + 4 * words, bytes % 4);
    sum += word_term(key, words, w);
  }
  return sum;
}

std::optional<Mismatch> first_mismatch(const void* got, const void* expected_masked, const BufferSpec& spec,
                                       const Tolerance& t, std::uint64_t mask_key) {
  const std::uint64_t cut = size_mask(spec.dtype);
  for (std::int64_t i = 0; i < spec.count; ++i) {
    const std::uint64_t g = load_bits(got, spec.dtype, i);
    const std::uint64_t w = (load_bits(expected_masked, spec.dtype, i) ^ mask_of(mask_key, static_cast<std::uint64_t>(i))) & cut;
    if (!matches(spec.dtype, g, w, t.atol, t.rtol, t.exact))
      return Mismatch{i, as_double(spec.dtype, g), as_double(spec.dtype, w)};
  }
  return std::nullopt;
}

bool all_poisoned(const void* got, const BufferSpec& spec, unsigned char poison) {
  for (std::int64_t i = 0; i < spec.count; ++i)
    if (!poisoned(spec.dtype, load_bits(got, spec.dtype, i), poison)) return false;
  return true;
}

std::int64_t poisoned_count(const void* got, const BufferSpec& spec, unsigned char poison) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < spec.count; ++i) n += poisoned(spec.dtype, load_bits(got, spec.dtype, i), poison);
  return n;
}

std::int64_t FirstOutputs::differs(int set, std::int64_t call, std::uint64_t hash) {
  First& f = first_.at(static_cast<std::size_t>(set));
  if (f.call == 0) {
    f = First{call, hash};
    return 0;
  }
  ++compared_;
  return f.hash == hash ? 0 : f.call;
}

int other_set_matching(const PointData& data, int set, int o, const void* got) {
  for (int s = 0; s < data.sets(); ++s)
    if (s != set && !first_mismatch(got, data.expected(s, o).data(), data.outputs()[o], data.tolerance(), data.mask_key()))
      return s;
  return -1;
}

std::string prefix_for(bool untrusted) { return untrusted ? untrusted::kPrefix : "problem: "; }

std::string wrong_output_reason(const std::string& prefix, std::int64_t call, const BufferSpec& output,
                                const Mismatch& m, const Tolerance& t, int other_set) {
  const std::string within = t.exact ? "bit for bit" : fmt::format("atol {}, rtol {}", number(t.atol), number(t.rtol));
  std::string why = other_set >= 0 ? "; it is the reference's answer to other inputs (a result cached by input "
                                     "pointer or content?)"
                                   : "";
  return prefix + fmt::format("wrong output from call {}: {}[{}] is {} where the reference has {} ({}){}", call,
                              output.name, m.index, number(m.got), number(m.want), within, why);
}

std::string not_written_reason(const std::string& prefix, std::int64_t call, const BufferSpec& output) {
  return prefix + fmt::format("output not written by call {}: {} still holds the harness's poison (work skipped?)",
                              call, output.name);
}

std::string changed_after_reason(const std::string& prefix, std::int64_t call, const char* when) {
  return prefix + fmt::format("output changed after call {} returned: its fingerprint when the call returned differs "
                              "from the one {} (work deferred past the timer, or the output rewritten later)",
                              call, when);
}

std::string nondeterministic_reason(const std::string& prefix, std::int64_t call, int set, std::int64_t first_call,
                                    std::int64_t unwritten) {
  const std::string why =
      unwritten > 0 ? fmt::format("; {} of its elements still hold this call's poison (part of the output not written?)",
                                  unwritten)
                    : " (a result that depends on the call: atomics' order, a choice made at run time, memory read "
                      "before it is written?)";
  return prefix + fmt::format("non-deterministic output: call {} on input set {} differs bit for bit from call {} on the "
                              "same set, and the problem declares its submissions deterministic{}",
                              call, set, first_call, why);
}

std::string unsupported_reason(const std::string& what) { return std::string(untrusted::kPrefix) + what; }

}  // namespace problem

namespace detail {

void run_problem(State& state, const Problem& p, const DeviceSubmission& submit) {
  if (state.skipped()) return;
  const DeviceBackend* backend = device_backend();
  if (!backend)
    throw UsageError("problem " + p.name + ": submission " + state.benchmark_name() +
                     " launches device work, but this program was built without a GPU backend");
  if (!backend->exec_problem)
    throw std::runtime_error("problem " + p.name + ": the " + backend->display_name + " backend has no problems yet");
  backend->exec_problem(state, device_options(state), p, submit);
}

}  // namespace detail
}  // namespace pitot

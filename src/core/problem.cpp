// The harness's side of a problem (problem.hpp): the point's data, the host checks, the reasons,
// and the device path's hand-over to the backend.
#include "core/problem.hpp"

#include <sys/random.h>

#include <algorithm>
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

// The problem's draws, once its functions and tolerance are known to be usable.
int checked_draws(const Problem& p) {
  if (!p.generate || !p.reference) throw UsageError("problem " + p.name + ": a generate and a reference function are needed");
  if (p.draws < 2 || p.draws > 64) throw UsageError(fmt::format("problem {}: draws is {}; 2 to 64", p.name, p.draws));
  if (!p.tolerance.exact && !(p.tolerance.atol >= 0 && p.tolerance.rtol >= 0))
    throw UsageError("problem " + p.name + ": a tolerance's atol and rtol are at least 0");
  return p.draws;
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

PointData::PointData(const Problem& p, const Shape& shape, std::string prefix, std::optional<std::uint64_t> fixed_seed)
    : name_(p.name),
      inputs_(specs_of(p, shape, false)),
      outputs_(specs_of(p, shape, true)),
      tolerance_(p.tolerance),
      deterministic_(p.deterministic),
      combined_(p.inputs_independent && inputs_.size() >= 2),
      draws_(checked_draws(p)),
      sets_(combined_ ? draws_ * draws_ : draws_),
      layout_(inputs_, outputs_, draws_) {
  // The harness's own keys (the checker draws its seed itself): they choose the order and take
  // fingerprints, and tell nothing of the expected outputs.
  const std::uint64_t own = fixed_seed ? mix64(*fixed_seed ^ 0x6F776E6Bull) : os_seed();
  hash_key_ = mix64(own ^ 0x68617368ull);
  order_key_ = mix64(own ^ 0x6F726465ull);
  shared_ = std::make_unique<SharedMemory>(layout_.bytes);
  CheckerPlan plan;
  plan.problem = &p;
  plan.shape = &shape;
  plan.inputs = inputs_;
  plan.outputs = outputs_;
  plan.draws = draws_;
  plan.sets = sets_;
  plan.combined = combined_;
  for (std::size_t o = 0; o < outputs_.size(); ++o) plan.hash_keys.push_back(hash_key(static_cast<int>(o)));
  plan.fixed_seed = fixed_seed;
  plan.prefix = std::move(prefix);
  checker_ = std::make_unique<Checker>(plan, *shared_, layout_);
}

SharedBuffer PointData::draw_input(int draw, int j) const {
  if (draw < 0 || draw >= draws_ || j < 0 || static_cast<std::size_t>(j) >= inputs_.size())
    throw std::out_of_range(fmt::format("problem {}: no input {} of draw {}", name_, j, draw));
  return {shared_->data() + layout_.input(draw, j), inputs_[static_cast<std::size_t>(j)].bytes()};
}

SharedBuffer PointData::output(int o) const {
  return {shared_->data() + layout_.output(o), outputs_.at(static_cast<std::size_t>(o)).bytes()};
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
          {"tolerance", tolerance},    {"deterministic", deterministic_}, {"checker", "process"}};
}

PointData prepare(State& state, const Problem& p) {
  const Shape shape(state);
  if (p.work) {
    const Work w = p.work(shape);
    if (w.flops > 0) state.add_flops(w.flops);
    if (w.bytes > 0) state.add_bytes(w.bytes);
  }
  return PointData(p, shape, prefix_for(detail::device_options(state).untrusted));
}

void record(State& state, const PointData& data, std::int64_t calls_checked, double check_seconds_per_call,
            std::int64_t compared, const nlohmann::json& extra) {
  nlohmann::json info = data.info();
  if (extra.is_object()) info.update(extra);
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

std::optional<Mismatch> first_mismatch(const void* got, const void* want, const BufferSpec& spec, const Tolerance& t) {
  for (std::int64_t i = 0; i < spec.count; ++i) {
    const std::uint64_t g = load_bits(got, spec.dtype, i);
    const std::uint64_t w = load_bits(want, spec.dtype, i);
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

bool AcceptedOutputs::has(int set, std::uint64_t hash) const {
  const auto& hashes = sets_.at(static_cast<std::size_t>(set));
  return std::find(hashes.begin(), hashes.end(), hash) != hashes.end();
}

void AcceptedOutputs::add(int set, std::uint64_t hash) {
  auto& hashes = sets_.at(static_cast<std::size_t>(set));
  if (hashes.size() < kPerSet && !has(set, hash)) hashes.push_back(hash);
}

void RingCopies::new_batch() {
  used_ = 0;
  copied_sets_.clear();
}

std::int64_t RingCopies::take(int set, bool accepted) {
  const bool drawn = mix64(key_ + draws_++) % static_cast<std::uint64_t>(batch_) < static_cast<std::uint64_t>(copies_);
  const bool first_unaccepted =
      !accepted && std::find(copied_sets_.begin(), copied_sets_.end(), set) == copied_sets_.end();
  if (used_ >= copies_ || (copies_ < batch_ && !drawn && !first_unaccepted)) return -1;
  copied_sets_.push_back(set);
  return used_++;
}

std::int64_t SpotChecks::draw(const std::vector<std::int64_t>& candidates, double elapsed) {
  if (candidates.empty() || spent_ > share_ * elapsed) return -1;
  return candidates[mix64(key_ + draws_++) % candidates.size()];
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

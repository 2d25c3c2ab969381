// A problem's harness on the host (src/core/problem.*): the fingerprint, the expected outputs
// checked by the checker process, the element match, the input sets and their order, and the
// refusals of bad problems (the checker process itself: test_problem_checker.cpp).
// The attacks themselves run as submissions in tests/untrusted/check_problems.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <pitot/pitot.hpp>
#include <pitot/problem.hpp>

#include "core/engine.hpp"
#include "point_fixture.hpp"
#include "core/problem.hpp"
#include "core/problem_check.hpp"

namespace {

using namespace pitot;
using problem::PointData;

// c = a + b over n floats; draws and whether the inputs combine as given.
Problem add_problem(int draws, bool independent) {
  Problem p;
  p.name = "add";
  p.inputs = [](const Shape&) {
    return std::vector<BufferSpec>{{"a", DType::F32, 64}, {"b", DType::F32, 64}};
  };
  p.outputs = [](const Shape&) { return std::vector<BufferSpec>{{"c", DType::F32, 64}}; };
  p.generate = [](const Shape&, std::uint64_t seed, Buffers in) {
    for (const auto& b : in)
      for (std::int64_t i = 0; i < b.count(); ++i)
        b.as<float>()[i] = static_cast<float>(problem::mix64(seed + static_cast<std::uint64_t>(i) * 7 + b.count()) % 1000);
  };
  p.reference = [](const Shape&, Buffers in, Buffers out) {
    for (std::int64_t i = 0; i < out[0].count(); ++i)
      out[0].as<float>()[i] = in[0].as<const float>()[i] + in[1].as<const float>()[i];
  };
  p.tolerance = Tolerance::close(0, 1e-6);
  p.draws = draws;
  p.inputs_independent = independent;
  return p;
}

using test::with_point;

std::vector<float> plain_expected(const PointData& d, int set) {
  const auto* a = static_cast<const float*>(d.input(set, 0).data());
  const auto* b = static_cast<const float*>(d.input(set, 1).data());
  std::vector<float> v(64);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = a[i] + b[i];
  return v;
}

}  // namespace

TEST(Problem, FingerprintSeesEveryByteAndPosition) {
  std::vector<unsigned char> a(37);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(i * 13);
  const std::uint64_t h = problem::fingerprint(a.data(), a.size(), 42);
  EXPECT_EQ(h, problem::fingerprint(a.data(), a.size(), 42));
  EXPECT_NE(h, problem::fingerprint(a.data(), a.size(), 43));      // keyed
  EXPECT_NE(h, problem::fingerprint(a.data(), a.size() - 1, 42));  // the length counts
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto b = a;
    b[i] ^= 1;  // one bit anywhere, the tail's partial word included
    EXPECT_NE(h, problem::fingerprint(b.data(), b.size(), 42)) << "byte " << i;
  }
  auto swapped = a;
  std::swap_ranges(swapped.begin(), swapped.begin() + 4, swapped.begin() + 4);  // two words change places
  EXPECT_NE(h, problem::fingerprint(swapped.data(), swapped.size(), 42));
}

TEST(Problem, ElementMatch) {
  auto f32 = [](float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return std::uint64_t{u};
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(problem::matches(DType::F32, f32(1.0f), f32(1.0f), 0, 0, true));
  EXPECT_FALSE(problem::matches(DType::F32, f32(1.0f + 1e-7f), f32(1.0f), 0, 0, true));
  EXPECT_TRUE(problem::matches(DType::F32, f32(1.0f + 1e-7f), f32(1.0f), 0, 1e-6, false));
  EXPECT_FALSE(problem::matches(DType::F32, f32(1.01f), f32(1.0f), 1e-3, 1e-3, false));
  EXPECT_TRUE(problem::matches(DType::F32, f32(nan), f32(nan), 1, 1, false));
  EXPECT_FALSE(problem::matches(DType::F32, f32(nan), f32(1.0f), 1, 1, false));
  EXPECT_FALSE(problem::matches(DType::F32, f32(1.0f), f32(nan), 1, 1, false));
  EXPECT_TRUE(problem::matches(DType::F32, f32(inf), f32(inf), 1, 1, false));
  EXPECT_FALSE(problem::matches(DType::F32, f32(-inf), f32(inf), 1, 1, false));
  EXPECT_FALSE(problem::matches(DType::F32, f32(1e30f), f32(inf), 1, 1, false));
  EXPECT_FALSE(problem::matches(DType::I32, 5, 6, 10, 10, false));  // integers: exact whatever the tolerance
  EXPECT_TRUE(problem::matches(DType::BF16, 0x3F80, 0x3F81, 0, 0.01, false));  // 1.0 and 1.0078125
  EXPECT_FALSE(problem::matches(DType::BF16, 0x3F80, 0x4000, 0, 0.01, false));
  EXPECT_DOUBLE_EQ(problem::as_double(DType::BF16, 0xC040), -3.0);
}

TEST(Problem, CombinedSetsShareEachInputWithDifferentOthers) {
  with_point([](State& s) {
    PointData d(add_problem(3, true), Shape(s), "problem: ", 1234);
    ASSERT_EQ(d.sets(), 9);
    for (int j = 0; j < 2; ++j) {
      std::map<int, std::set<int>> others;  // draw of input j -> draws of the other input beside it
      for (int set = 0; set < d.sets(); ++set) others[d.draw_of(set, j)].insert(d.draw_of(set, 1 - j));
      for (const auto& [draw, with] : others) EXPECT_EQ(with.size(), 3u) << "input " << j << ", draw " << draw;
    }
    PointData apart(add_problem(4, false), Shape(s), "problem: ", 1234);
    EXPECT_EQ(apart.sets(), 4);
    for (int set = 0; set < 4; ++set) EXPECT_EQ(apart.draw_of(set, 1), set);
  });
}

TEST(Problem, ExpectedOutputsCheckedByTheChecker) {
  with_point([](State& s) {
    PointData d(add_problem(3, true), Shape(s), "problem: ", 99);
    const BufferSpec& spec = d.outputs()[0];
    for (int set = 0; set < d.sets(); ++set) {
      const std::vector<float> want = plain_expected(d, set);
      std::memcpy(d.output(0).data(), want.data(), spec.bytes());
      const problem::Verdict v = d.check(set, 0x11, set + 1, true);
      EXPECT_TRUE(v.ok) << "set " << set;
      EXPECT_EQ(v.hash, problem::fingerprint(want.data(), spec.bytes(), d.hash_key(0)));  // the harness's own
    }
    // A refusal ends the checker (one answer a point): each below gets a point of its own, the
    // same seed, so the same inputs.
    for (int set : {0, 4}) {
      PointData wrong(add_problem(3, true), Shape(s), "problem: ", 99);
      std::vector<float> want = plain_expected(wrong, set);
      const float right = want[17];
      want[17] += 1;
      std::memcpy(wrong.output(0).data(), want.data(), spec.bytes());
      const problem::Verdict v = wrong.check(set, 0x11, 1);
      ASSERT_FALSE(v.ok);
      EXPECT_EQ(v.output, 0);
      EXPECT_EQ(v.mismatch.index, 17);
      EXPECT_EQ(v.mismatch.want, right);
      EXPECT_EQ(v.mismatch.got, right + 1);
      EXPECT_EQ(v.other_set, -1);
      EXPECT_FALSE(v.all_poisoned);
    }
    {  // Another set's answer is recognised as one.
      PointData other(add_problem(3, true), Shape(s), "problem: ", 99);
      const std::vector<float> want = plain_expected(other, 2);
      std::memcpy(other.output(0).data(), want.data(), spec.bytes());
      const problem::Verdict v = other.check(5, 0x11, 1);
      ASSERT_FALSE(v.ok);
      EXPECT_EQ(v.other_set, 2);
    }
    {  // Nothing written: every element still holds the call's poison.
      PointData unwritten(add_problem(3, true), Shape(s), "problem: ", 99);
      std::memset(unwritten.output(0).data(), 0x35, spec.bytes());
      const problem::Verdict v = unwritten.check(3, 0x35, 1);
      ASSERT_FALSE(v.ok);
      EXPECT_TRUE(v.all_poisoned);
    }
  });
}

TEST(Problem, SeedsDecideTheInputsAndTheOrder) {
  with_point([](State& s) {
    PointData a(add_problem(3, true), Shape(s), "problem: ", 7), b(add_problem(3, true), Shape(s), "problem: ", 7),
        c(add_problem(3, true), Shape(s), "problem: ", 8);
    EXPECT_EQ(std::memcmp(a.draw_input(0, 0).data(), b.draw_input(0, 0).data(), a.draw_input(0, 0).bytes()), 0);
    EXPECT_NE(std::memcmp(a.draw_input(0, 0).data(), c.draw_input(0, 0).data(), a.draw_input(0, 0).bytes()), 0);
    std::vector<int> count(9);
    int repeats = 0, previous = -1, differ = 0;
    for (int i = 0; i < 9000; ++i) {
      const int set = a.next_set();
      ++count[static_cast<std::size_t>(set)];
      repeats += set == previous;
      previous = set;
      differ += set != c.next_set();
    }
    for (int n : count) EXPECT_NEAR(n, 1000, 150);  // every set, about evenly
    EXPECT_GT(repeats, 500);                          // not a cycle: the same set twice in a row too
    EXPECT_GT(differ, 7000);                          // another seed, another order
  });
}

TEST(Problem, PoisonAndBadDefinitions) {
  std::vector<float> out(64);
  std::memset(out.data(), 0xA5, out.size() * 4);
  const BufferSpec spec{"c", DType::F32, 64};
  EXPECT_TRUE(problem::all_poisoned(out.data(), spec, 0xA5));
  out[63] = 0;
  EXPECT_FALSE(problem::all_poisoned(out.data(), spec, 0xA5));
  with_point([](State& s) {
    Problem one_draw = add_problem(1, false);
    EXPECT_THROW((void)PointData(one_draw, Shape(s), "problem: ", 1), UsageError);
    Problem no_reference = add_problem(2, false);
    no_reference.reference = nullptr;
    EXPECT_THROW((void)PointData(no_reference, Shape(s), "problem: ", 1), UsageError);
    Problem empty = add_problem(2, false);
    empty.outputs = [](const Shape&) { return std::vector<BufferSpec>{{"c", DType::F32, 0}}; };
    EXPECT_THROW((void)PointData(empty, Shape(s), "problem: ", 1), UsageError);
  });
  EXPECT_THROW((Buffer(out.data(), spec).as<double>()), std::invalid_argument);
}

TEST(Problem, SubmissionRefusedOrAcceptedThroughTheEngine) {
  std::deque<BenchmarkDef> defs(2);
  const Problem p = add_problem(3, true);
  defs[0].name = "honest";
  defs[0].fn = [&](State& s) {
    detail::run_problem(s, p, CpuSubmission([](Buffers in, Buffers out) {
                          for (std::int64_t i = 0; i < 64; ++i)
                            out[0].as<float>()[i] = in[0].as<const float>()[i] + in[1].as<const float>()[i];
                        }));
  };
  defs[1].name = "first_only";  // the right answer for the first inputs it saw, copied after
  defs[1].fn = [&](State& s) {
    auto seen = std::make_shared<std::vector<float>>();
    detail::run_problem(s, p, CpuSubmission([seen](Buffers in, Buffers out) {
                          if (seen->empty())
                            for (std::int64_t i = 0; i < 64; ++i)
                              seen->push_back(in[0].as<const float>()[i] + in[1].as<const float>()[i]);
                          std::memcpy(out[0].data(), seen->data(), 64 * sizeof(float));
                        }));
  };
  RunConfig c;
  c.min_samples = 5;
  c.max_seconds = 0.05;
  std::map<std::string, PointResult> out;
  run_points("test", plan_points(defs), c, [&](const PointResult& r) { out[r.name] = r; });
  EXPECT_EQ(out["honest"].status, PointStatus::Ok) << out["honest"].reason;
  const auto& info = out["honest"].backend_info["problem"];
  EXPECT_GE(info["calls_checked"].get<std::int64_t>(), out["honest"].number * static_cast<std::int64_t>(out["honest"].samples.size()));
  EXPECT_EQ(out["first_only"].status, PointStatus::Failed);
  EXPECT_EQ(out["first_only"].reason.rfind("problem: wrong output from call", 0), 0u) << out["first_only"].reason;
  EXPECT_NE(out["first_only"].reason.find("answer to other inputs"), std::string::npos);
}

TEST(Problem, FirstOutputsKeepEachSetsFirstFingerprint) {
  problem::FirstOutputs first(3);
  EXPECT_EQ(first.differs(0, 1, 0xAA), 0);  // each set's first call sets its fingerprint
  EXPECT_EQ(first.differs(2, 2, 0xBB), 0);
  EXPECT_EQ(first.compared(), 0);
  EXPECT_EQ(first.differs(0, 3, 0xAA), 0);  // the same bits
  EXPECT_EQ(first.differs(2, 4, 0xAA), 2);  // set 2's first call was call 2: another set's bits do not count
  EXPECT_EQ(first.differs(0, 5, 0xAB), 1);  // set 0 differs from its first call
  EXPECT_EQ(first.differs(0, 6, 0xAA), 0);  // the first call's fingerprint is kept, not the latest
  EXPECT_EQ(first.differs(1, 7, 0xAB), 0);  // set 1 seen first now
  EXPECT_EQ(first.compared(), 4);
  EXPECT_THROW((void)first.differs(3, 8, 0), std::out_of_range);
}

TEST(Problem, AcceptedOutputsKeptPerSetAndBounded) {
  problem::AcceptedOutputs accepted(2);
  EXPECT_FALSE(accepted.has(0, 5));
  EXPECT_FALSE(accepted.any(0));
  accepted.add(0, 5);
  EXPECT_TRUE(accepted.any(0));
  EXPECT_FALSE(accepted.any(1));
  EXPECT_TRUE(accepted.has(0, 5));
  EXPECT_FALSE(accepted.has(1, 5));  // another set's
  const std::uint64_t per_set = problem::AcceptedOutputs::kPerSet;
  for (std::uint64_t h = 100; h < 100 + 2 * per_set; ++h) accepted.add(1, h);
  EXPECT_TRUE(accepted.has(1, 100 + per_set - 1));
  EXPECT_FALSE(accepted.has(1, 100 + per_set));  // beyond the bound: compared again each time
  EXPECT_THROW((void)accepted.has(2, 0), std::out_of_range);
}

TEST(Problem, RingCopiesGoFirstToSetsNotYetAcceptedThenByDraw) {
  // A ring that holds a whole batch: every call gets its own copy.
  problem::RingCopies whole(7, 4, 4);
  for (std::int64_t k = 0; k < 4; ++k) EXPECT_EQ(whole.take(0, true), k);
  EXPECT_EQ(whole.take(0, true), -1);  // no fifth copy
  // 4 copies for 32 calls: the first call on each set nothing was accepted for takes one, in turn.
  problem::RingCopies short_ring(7, 4, 32);
  EXPECT_EQ(short_ring.take(0, false), 0);
  EXPECT_EQ(short_ring.take(1, false), 1);
  short_ring.new_batch();
  EXPECT_EQ(short_ring.take(1, false), 0);  // a new batch starts the copies over
  // Once accepted, the calls are drawn: at most 4 a batch, 4 in 32 on average, never the same ones.
  std::int64_t copied = 0, batches_differ = 0;
  std::vector<bool> previous;
  for (int batch = 0; batch < 1000; ++batch) {
    short_ring.new_batch();
    std::vector<bool> got;
    std::int64_t in_batch = 0;
    for (int k = 0; k < 32; ++k) {
      const std::int64_t c = short_ring.take(k % 2, true);
      got.push_back(c >= 0);
      if (c >= 0) EXPECT_EQ(c, in_batch++);
    }
    EXPECT_LE(in_batch, 4);
    copied += in_batch;
    batches_differ += got != previous;
    previous = got;
  }
  EXPECT_GT(copied, 2500);  // min(4, Binomial(32, 1/8)) is about 3.1 a batch
  EXPECT_LT(copied, 3600);
  EXPECT_GT(batches_differ, 900);
}

TEST(Problem, SpotChecksDrawEveryCandidateAndPauseOverTheirShare) {
  problem::SpotChecks spots(12345, 0.1);
  const std::vector<std::int64_t> calls{2, 5, 7, 11};
  std::map<std::int64_t, int> seen;
  for (int i = 0; i < 400; ++i) ++seen[spots.draw(calls, 1.0 + i)];
  ASSERT_EQ(seen.size(), calls.size());  // only the candidates, each of them
  for (const auto& [call, times] : seen) {
    EXPECT_GE(times, 60) << call;  // about 100 each
    EXPECT_LE(times, 140) << call;
  }
  EXPECT_EQ(spots.draw({}, 100), -1);  // no call with a copy
  spots.spent(5.0);
  EXPECT_EQ(spots.draw(calls, 40.0), -1);  // 5 s of checks in 40 s: over a tenth, paused
  EXPECT_NE(spots.draw(calls, 60.0), -1);  // under it again
  // The draw follows the key: two keys, two orders (a submission without the key cannot predict it).
  problem::SpotChecks a(1, 1.0), b(2, 1.0);
  std::vector<std::int64_t> from_a, from_b;
  for (int i = 0; i < 32; ++i) {
    from_a.push_back(a.draw(calls, 1.0));
    from_b.push_back(b.draw(calls, 1.0));
  }
  EXPECT_NE(from_a, from_b);
}

TEST(Problem, NonDeterministicReasonNamesTheCallsAndThePoison) {
  const std::string plain = problem::nondeterministic_reason("problem: ", 12, 4, 3, 0);
  EXPECT_EQ(plain.rfind("problem: non-deterministic output: call 12 on input set 4 differs bit for bit from call 3 "
                        "on the same set",
                        0),
            0u)
      << plain;
  EXPECT_EQ(plain.find("poison"), std::string::npos) << plain;
  const std::string unwritten = problem::nondeterministic_reason("untrusted: ", 9, 0, 2, 5);
  EXPECT_EQ(unwritten.rfind("untrusted: non-deterministic output: call 9 on input set 0", 0), 0u) << unwritten;
  EXPECT_NE(unwritten.find("5 of its elements still hold this call's poison"), std::string::npos) << unwritten;
  std::vector<float> out(64, 1.0f);
  std::memset(out.data() + 10, 0x35, 3 * sizeof(float));
  EXPECT_EQ(problem::poisoned_count(out.data(), {"c", DType::F32, 64}, 0x35), 3);
  EXPECT_EQ(problem::poisoned_count(out.data(), {"c", DType::F32, 64}, 0x37), 0);
}

namespace {

// add_problem's answer; on every other call the last bit of each nonzero element raised (within
// the tolerance's rtol of 1e-6: the values are below 2000).
CpuSubmission jitter() {
  auto calls = std::make_shared<std::int64_t>(0);
  return [calls](Buffers in, Buffers out) {
    const bool odd = (++*calls & 1) != 0;
    for (std::int64_t i = 0; i < 64; ++i) {
      float c = in[0].as<const float>()[i] + in[1].as<const float>()[i];
      if (odd && c != 0) c = std::nextafter(c, std::numeric_limits<float>::infinity());
      out[0].as<float>()[i] = c;
    }
  };
}

CpuSubmission honest_add() {
  return [](Buffers in, Buffers out) {
    for (std::int64_t i = 0; i < 64; ++i) out[0].as<float>()[i] = in[0].as<const float>()[i] + in[1].as<const float>()[i];
  };
}

// Each (name, problem, submission) as a point of its own; the results by name.
std::map<std::string, PointResult> run_submissions(const std::vector<std::tuple<std::string, Problem, CpuSubmission>>& subs) {
  std::deque<BenchmarkDef> defs(subs.size());
  for (std::size_t i = 0; i < subs.size(); ++i) {
    defs[i].name = std::get<0>(subs[i]);
    defs[i].fn = [&sub = subs[i]](State& s) { detail::run_problem(s, std::get<1>(sub), std::get<2>(sub)); };
  }
  RunConfig c;
  c.min_samples = 5;
  c.max_seconds = 0.05;
  std::map<std::string, PointResult> out;
  run_points("test", plan_points(defs), c, [&](const PointResult& r) { out[r.name] = r; });
  return out;
}

}  // namespace

TEST(Problem, DeterministicProblemRefusesOutputsThatDependOnTheCall) {
  Problem strict = add_problem(3, true);
  strict.deterministic = true;
  const Problem loose = add_problem(3, true);
  auto out = run_submissions({{"honest", strict, honest_add()},
                              {"jitter", strict, jitter()},
                              {"jitter_allowed", loose, jitter()}});
  EXPECT_EQ(out["honest"].status, PointStatus::Ok) << out["honest"].reason;
  const auto& info = out["honest"].backend_info["problem"];
  EXPECT_TRUE(info["deterministic"].get<bool>());
  // Every call after each set's first is compared (9 sets).
  EXPECT_EQ(info["calls_compared_bit_for_bit"].get<std::int64_t>(), info["calls_checked"].get<std::int64_t>() - 9);
  EXPECT_EQ(out["jitter"].status, PointStatus::Failed);
  EXPECT_EQ(out["jitter"].reason.rfind("problem: non-deterministic output: call ", 0), 0u) << out["jitter"].reason;
  EXPECT_NE(out["jitter"].reason.find("differs bit for bit from call"), std::string::npos);
  EXPECT_GE(out["jitter"].backend_info["problem"]["calls_compared_bit_for_bit"].get<std::int64_t>(), 1);
  // Without the flag the same submission is within the tolerance, so accepted.
  EXPECT_EQ(out["jitter_allowed"].status, PointStatus::Ok) << out["jitter_allowed"].reason;
  EXPECT_FALSE(out["jitter_allowed"].backend_info["problem"]["deterministic"].get<bool>());
  EXPECT_FALSE(out["jitter_allowed"].backend_info["problem"].contains("calls_compared_bit_for_bit"));
}

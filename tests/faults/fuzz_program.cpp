// Seeded random inputs for the program-side parsers that read what a user or a benchmark author
// wrote: the --axis override parser (and applying it), the --filter regex against point names,
// and the JSON writers fed random bytes in names, reasons and values. Each test runs for
// PITOT_FUZZ_SECONDS (default 6) from PITOT_FUZZ_SEED (default fixed, so a failure reproduces);
// a failing input is printed with its bytes spelled out (PITOT_FUZZ_TRACE=1 prints each filter
// before it is matched, to find one that hangs).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <pitot/benchmark.hpp>

#include "core/engine.hpp"
#include "core/point_filter.hpp"
#include "core/result.hpp"
#include "core/text.hpp"
#include "asv/write.hpp"
#include "program/options.hpp"

namespace pitot {
namespace {

using nlohmann::json;

double fuzz_seconds() {
  const char* s = std::getenv("PITOT_FUZZ_SECONDS");
  return s ? std::atof(s) : 6.0;
}

std::uint64_t fuzz_seed() {
  const char* s = std::getenv("PITOT_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261201;
}

// Runs body(rng) until the time is spent; returns the number of iterations.
template <class Body>
long fuzz_for(const char* what, Body&& body) {
  std::mt19937_64 rng(fuzz_seed());
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(fuzz_seconds());
  long n = 0;
  while (std::chrono::steady_clock::now() < end && !::testing::Test::HasFailure()) {
    for (int k = 0; k < 64; ++k) body(rng);
    n += 64;
  }
  std::printf("%s: %ld inputs from seed %llu\n", what, n, static_cast<unsigned long long>(fuzz_seed()));
  return n;
}

// Random text: structural characters of the parsers, digits, words they know, valid multi-byte
// UTF-8, and arbitrary bytes (lone continuation bytes, truncated sequences, 0xFF, NUL).
std::string random_text(std::mt19937_64& rng, std::size_t max_len, const std::string& alphabet) {
  static const char* const words[] = {"nan", "inf", "-inf", "1e308", "1e999", "2^", "2^62", "2^63", "0x10",
                                      "-0", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xC3", "\xE2\x82",
                                      "\xED\xA0\x80", "\xC0\xAF", "\xF4\x90\x80\x80", "\xFF", "\x80"};
  std::uniform_int_distribution<std::size_t> len(0, max_len);
  std::string out;
  const std::size_t n = len(rng);
  while (out.size() < n) {
    switch (rng() % 4) {
      case 0: out += words[rng() % std::size(words)]; break;
      case 1: out += static_cast<char>(rng() % 256); break;
      default: out += alphabet[rng() % alphabet.size()];
    }
  }
  return out;
}

std::string spelled(const std::string& s) { return escape_non_utf8(s); }

// The oracle for is_utf8: nlohmann's strict dump throws exactly on text that is not UTF-8.
bool strict_dump_accepts(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

bool parses(const std::string& text) {
  try {
    const json j = json::parse(text);
    return !j.is_discarded();
  } catch (const json::exception&) {
    return false;
  }
}

std::deque<BenchmarkDef> sample_defs() {
  std::deque<BenchmarkDef> defs(2);
  defs[0].name = "alpha";
  defs[0].axes = {{"n", AxisKind::Int, {std::int64_t{1}}}, {"bytes", AxisKind::Pow2, {std::int64_t{1024}}}, {"x", AxisKind::Float, {0.5}}, {"s", AxisKind::String, {std::string("a")}}};
  defs[1].name = "beta";
  defs[1].axes = {{"n", AxisKind::Int, {std::int64_t{2}}}, {"s", AxisKind::String, {std::string("b")}}};
  return defs;
}

TEST(Utf8, KnownCases) {
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("plain"));
  EXPECT_TRUE(is_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_utf8("\xFF"));
  EXPECT_FALSE(is_utf8("\xC3"));              // truncated
  EXPECT_FALSE(is_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(is_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(is_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_EQ(escape_non_utf8("a\xFF"
                            "b\xC3"),
            "a\\xFFb\\xC3");
  EXPECT_EQ(json_text(json("bad \xFF")), "\"bad \xEF\xBF\xBD\"");
}

TEST(Utf8, NamesAsvCannotStore) {
  EXPECT_EQ(benchmark_name_problem("gemm_bf16"), "");
  EXPECT_NE(benchmark_name_problem(""), "");
  EXPECT_NE(benchmark_name_problem("fn.items_per_second"), "");
  EXPECT_NE(benchmark_name_problem("a/b"), "");
  EXPECT_NE(benchmark_name_problem("a\nb"), "");
  EXPECT_NE(benchmark_name_problem("bad\xFF"), "");
  EXPECT_EQ(asv_name_length_problem("prog", std::string(kMaxAsvNameBytes - 5, 'x')), "");
  EXPECT_NE(asv_name_length_problem("prog", std::string(kMaxAsvNameBytes - 4, 'x')), "");
  // A benchmark that names its own key (asv's benchmark_name): the key alone counts, not the program.
  const std::string own(kMaxAsvNameBytes, 'k');
  EXPECT_EQ(asv_name_length_problem("a_long_program_name", own, own), "");
  EXPECT_NE(asv_name_length_problem("p", own + "k", own + "k").find("benchmark_name"), std::string::npos);
}

TEST(Filter, NestedRepetitionRefused) {
  for (const char* bad : {".**", "gemm**", "(a*)*", "(.*)+x", "(a|b)+", "((a)+)*", "a{1001}", "a{2,99999}", "(?:a+)*",
                          "[ab]+*", "(x{2})*"})
    EXPECT_NE(point_filter_problem(bad), "") << bad;
  for (const char* good : {"gemm.*n=1024", "sort_ints\\[n=(500|5000)\\]", "(ab)*", "a*?b", "x{2,3}", "(a*)?",
                           "[*+]*", "\\(.*\\)", "(a|b)", "^copy\\[", "a{1000}"})
    EXPECT_EQ(point_filter_problem(good), "") << good;
  EXPECT_THROW(compile_point_filter<UsageError>(".**"), UsageError);
}

// The UTF-8 check agrees with nlohmann's, and the escaped form is always UTF-8.
TEST(Fuzz, Utf8CheckAgreesWithJsonLibrary) {
  fuzz_for("utf8", [](std::mt19937_64& rng) {
    const std::string s = random_text(rng, 24, "ab\x80\xBF\xC2\xDF\xE0\xED\xF0\xF4");
    ASSERT_EQ(is_utf8(s), strict_dump_accepts(s)) << spelled(s);
    ASSERT_TRUE(is_utf8(escape_non_utf8(s))) << spelled(s);
    if (is_utf8(s)) {
      ASSERT_EQ(escape_non_utf8(s), s);
    }
    const std::string text = json_text(json(s));
    ASSERT_TRUE(is_utf8(text)) << spelled(s);
    ASSERT_TRUE(parses(text)) << spelled(s);
  });
}

// --axis TEXT: parsed and applied, or refused with a UsageError; nothing else. What it lets
// through is storable: finite floats, UTF-8 strings, powers of two.
TEST(Fuzz, AxisOverride) {
  fuzz_for("axis", [](std::mt19937_64& rng) {
    std::string text = random_text(rng, 32, "nxsbytesalphabeta=,:=,:0123456789.-+e^");
    if (rng() % 2) text = std::string(rng() % 2 ? "s=" : "x=") + text;
    program::AxisOverride o;
    try {
      o = program::parse_axis_override(text);
    } catch (const UsageError&) {
      return;
    } catch (const std::exception& e) {
      FAIL() << "parse_axis_override threw " << e.what() << " on '" << spelled(text) << "'";
    }
    auto defs = sample_defs();
    try {
      program::apply_axis_overrides(defs, {o});
    } catch (const UsageError& e) {
      ASSERT_TRUE(std::string(e.what()).find("--axis") != std::string::npos) << e.what();
      return;
    } catch (const std::exception& e) {
      FAIL() << "apply_axis_overrides threw " << e.what() << " on '" << spelled(text) << "'";
    }
    for (const auto& d : defs)
      for (const auto& a : d.axes) {
        ASSERT_EQ(axis_problem(a), "") << spelled(text);
        for (const auto& v : a.values)
          if (a.kind == AxisKind::Pow2) {
            const auto p = std::get<std::int64_t>(v);
            ASSERT_TRUE(p > 0 && (p & (p - 1)) == 0) << spelled(text);
          }
        const std::string listed = json_text(to_json(a));
        ASSERT_TRUE(parses(listed)) << spelled(text);
      }
    for (const auto& p : plan_points(defs)) ASSERT_TRUE(is_utf8(p.name)) << spelled(text);
  });
}

// --filter TEXT against point names holding any storable value: compiled or refused with a
// UsageError; matching throws nothing but std::regex_error (main turns that into a usage error).
TEST(Fuzz, FilterAgainstPointNames) {
  fuzz_for("filter", [](std::mt19937_64& rng) {
    const std::string text = random_text(rng, 12, "ab=[]()*+?|^$.\\{}0123456789,-dsw");
    std::optional<std::regex> filter;
    try {
      filter = compile_point_filter<UsageError>(text);
    } catch (const UsageError& e) {
      ASSERT_TRUE(std::string(e.what()).find("--filter") != std::string::npos);
      return;
    } catch (const std::exception& e) {
      FAIL() << "compile_point_filter threw " << e.what() << " on '" << spelled(text) << "'";
    }
    BenchmarkDef def;
    def.name = "bench";
    Axis s{"s", AxisKind::String, {}};
    for (int k = 0; k < 3; ++k) {
      std::string v = random_text(rng, 12, "ab=[],");
      if (is_utf8(v)) s.values.emplace_back(v);
    }
    if (s.values.empty()) s.values.emplace_back(std::string("a"));
    def.axes = {s, Axis{"x", AxisKind::Float, {0.25, 1e300}}};
    std::deque<BenchmarkDef> defs{def};
    if (std::getenv("PITOT_FUZZ_TRACE")) std::fprintf(stderr, "filter '%s'\n", spelled(text).c_str());
    for (const auto& p : plan_points(defs)) {
      try {
        if (filter) (void)std::regex_search(p.name, *filter);
      } catch (const std::regex_error&) {
      } catch (const std::exception& e) {
        FAIL() << "matching '" << spelled(text) << "' threw " << e.what();
      }
    }
  });
}

// The JSON writers never throw on the bytes a benchmark supplies, and write UTF-8 JSON.
TEST(Fuzz, JsonWritersTakeAnyBytes) {
  const auto dir = std::filesystem::temp_directory_path() / ("pitot-fuzz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  long written = 0;
  fuzz_for("json", [&](std::mt19937_64& rng) {
    const std::string alphabet = "ab \"\\\n\t{}[]:,.";
    PointResult p;
    p.program = "prog";
    p.benchmark = "bench";
    p.name = "bench[s=" + random_text(rng, 16, alphabet) + "]";
    p.reason = random_text(rng, 64, alphabet);
    p.status = rng() % 2 ? PointStatus::Failed : PointStatus::Skipped;
    p.values = {AxisValue{random_text(rng, 16, alphabet)}};
    p.index = {0};
    p.stop_reason = random_text(rng, 8, alphabet);
    p.backend_info[random_text(rng, 8, alphabet)] = random_text(rng, 8, alphabet);
    p.tracks.push_back({random_text(rng, 8, alphabet), random_text(rng, 8, alphabet), 1.0});
    std::string line;
    PointResult point;
    ASSERT_NO_THROW(line = json_text(to_json(p))) << spelled(p.reason);
    ASSERT_TRUE(is_utf8(line));
    ASSERT_EQ(line.find('\n'), std::string::npos);  // one line on the result channel
    ASSERT_TRUE(parses(line));
    ASSERT_NO_THROW(point = point_from_json(json::parse(line)));
    std::string python_text;
    ASSERT_NO_THROW(python_text = dump_python_json(to_json(p)));

    BenchmarkInfo b;
    b.program = "prog";
    b.name = "bench";
    b.version = random_text(rng, 8, alphabet);
    b.code = random_text(rng, 32, alphabet);
    b.axes = {Axis{random_text(rng, 8, alphabet), AxisKind::String, {p.values[0]}}};
    std::string listed;
    ASSERT_NO_THROW(listed = json_text(to_json(b), 2));
    ASSERT_TRUE(parses(listed));
    // The asv writer, now and then (it writes three files).
    if (rng() % 64 == 0) {
      AsvRun run;
      run.machine = "box";
      run.env_name = "env";
      run.commit_hash = std::string(40, 'a');
      run.machine_facts["cpu"] = random_text(rng, 16, alphabet);
      try {
        write_asv(dir, run, {b}, {p});
        ++written;
      } catch (const AsvError&) {
      } catch (const std::exception& e) {
        FAIL() << "write_asv threw " << e.what() << " on version '" << spelled(b.version) << "'";
      }
      std::ifstream in(dir / "box" / ("aaaaaaaa-env.json"));
      std::stringstream text;
      text << in.rdbuf();
      ASSERT_TRUE(is_utf8(text.str()));
      json doc;
      ASSERT_NO_THROW(doc = parse_python_json(text.str()));
    }
  });
  std::filesystem::remove_all(dir);
  EXPECT_GT(written, 0);
}

}  // namespace
}  // namespace pitot

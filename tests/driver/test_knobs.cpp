// The pass-through knobs (src/core/knobs.hpp) at both ends: every knob of the table is a flag of a
// benchmark program and of `pitot run` and `pitot ab`, with the same bounds: a value at a bound
// is taken by both, a value just past it refused by both (a program throws UsageError, its exit
// 2; pitot's parser a CLI11 ParseError, its exit 2), a program keeps the value where the table
// says, and pitot run hands the text on to its programs unchanged. Also: no flag is declared by
// hand at both ends beside the table, and docs/program-cli.md names every knob.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/knobs.hpp"
#include "driver/commands.hpp"
#include "driver/run/steps.hpp"
#include "program/cli_hints.hpp"
#include "program/options.hpp"

namespace {

using namespace pitot;
using Kind = KnobBounds::Kind;

// Values a knob must take, and values just past its bounds that both ends must refuse.
struct Probe {
  std::vector<std::string> taken, refused;
};

std::string number(double v) { return fmt::format("{}", v); }
std::string whole(double v) { return fmt::format("{}", static_cast<long long>(v)); }

Probe probe(const KnobBounds& b) {
  switch (b.kind) {
    // (--max-time must not be below --min-time's default, 0.05, nor --min-time above --max-time's, 2.)
    case Kind::Positive: return {{"0.05", "2"}, {"0", "-0.001", "nan", "inf", "x"}};
    case Kind::NonNegative: return {{"0", "0.5"}, {"-0.001", "nan", "inf", "x"}};
    case Kind::Within: return {{number(b.lo), number(b.hi)}, {number(b.lo - 0.001), number(b.hi + 0.001), "nan", "x"}};
    case Kind::Integer: return {{whole(b.lo), whole(b.hi)}, {whole(b.lo - 1), whole(b.hi + 1), whole(b.lo) + ".5", "x"}};
    case Kind::Seed:
      return {{"0", "7", "18446744073709551615"}, {"-1", "18446744073709551616", "1.5", "1e3", "0x10", "x"}};
    case Kind::Flag: return {};  // no value (TEST(Knobs, AFlagKnobTakesNoValue))
  }
  return {};
}

// ---- a program ----------------------------------------------------------------------------

std::optional<program::Options> parse_program(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return program::parse_options(static_cast<int>(argv.size()), argv.data(), "prog");
}

// The value a program keeps for a knob, as a double (a seed as its own type, compared apart).
double kept(const program::Options& o, const Knob& k) {
  return std::visit(
      [&](auto field) -> double {
        using Field = decltype(field);
        if constexpr (std::is_same_v<Field, double RunConfig::*> || std::is_same_v<Field, int RunConfig::*> ||
                      std::is_same_v<Field, std::uint64_t RunConfig::*>)
          return static_cast<double>(o.run.*field);
        else
          return static_cast<double>(o.device.*field);
      },
      k.field);
}

// The long flags a program's --help lists.
std::set<std::string> program_flags() {
  testing::internal::CaptureStdout();
  EXPECT_FALSE(parse_program({"--help"}));
  std::istringstream help(testing::internal::GetCapturedStdout());
  std::set<std::string> flags;
  for (std::string word; help >> word;)
    if (word.rfind("--", 0) == 0 && word.size() > 2) flags.insert(word.substr(0, word.find_first_of(",=[).;:")));
  return flags;
}

// ---- the driver ---------------------------------------------------------------------------

// pitot with its commands; parsing runs nothing: the root's parse-complete callback, which CLI11
// calls once every value is parsed and checked and before any command's callback, stops there.
// (The commands' callbacks stay: they own the options that parsing writes into.)
struct Pitot {
  struct Parsed {};
  CLI::App app{"pitot"};
  Pitot() {
    driver::run::add_run_command(app);
    driver::ab::add_ab_command(app);
    app.parse_complete_callback([] { throw Parsed{}; });
    app.require_subcommand(1);
  }
  // Throws CLI::ParseError (pitot's exit 2) for a value its parser refuses.
  void parse(std::vector<std::string> args) {
    args.insert(args.begin(), "pitot");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const Parsed&) {
      return;
    }
    throw std::logic_error("pitot's parser went past its parse-complete callback");
  }
};

std::vector<std::string> command(const std::string& name, const std::string& flag, const std::string& value) {
  if (name == "ab") return {"ab", "base", "head", flag, value};
  return {"run", flag, value};
}

TEST(Knobs, TheTableIsWhole) {
  std::set<std::string> flags;
  for (const Knob& k : knobs()) {
    EXPECT_TRUE(flags.insert(k.flag).second) << k.flag << " twice";
    EXPECT_FALSE(std::string(k.help).empty()) << k.flag;
  }
  for (const char* flag : {"--warmup", "--min-samples", "--min-time", "--max-time", "--max-samples", "--ci-target",
                           "--batch-time", "--min-sample-time", "--seed", "--graph-launches", "--throttle-ratio",
                           "--energy", "--cool-to", "--cool-timeout", "--untrusted"})
    EXPECT_TRUE(flags.count(flag)) << flag << " is not in the table";
}

TEST(Knobs, ABoundIsTheSameInAProgramAndInPitot) {
  for (const Knob& k : knobs()) {
    if (k.flag_only()) continue;  // no value, no bound
    const Probe p = probe(k.bounds);
    for (const std::string& v : p.taken) {
      SCOPED_TRACE(std::string(k.flag) + " " + v);
      std::optional<program::Options> o;
      EXPECT_NO_THROW(o = parse_program({k.flag, v}));
      if (o) {
        if (k.bounds.kind == Kind::Seed)
          EXPECT_EQ(o->run.seed, std::strtoull(v.c_str(), nullptr, 10));
        else
          EXPECT_DOUBLE_EQ(kept(*o, k), std::strtod(v.c_str(), nullptr));
      }
      for (const char* name : {"run", "ab"}) {
        Pitot pitot;
        EXPECT_NO_THROW(pitot.parse(command(name, k.flag, v))) << "pitot " << name;
      }
    }
    for (const std::string& v : p.refused) {
      SCOPED_TRACE(std::string(k.flag) + " " + v);
      EXPECT_THROW(parse_program({k.flag, v}), UsageError);
      for (const char* name : {"run", "ab"}) {
        Pitot pitot;
        EXPECT_THROW(pitot.parse(command(name, k.flag, v)), CLI::ParseError) << "pitot " << name;
      }
    }
  }
}

// A flag knob (--untrusted): off unless given, on in a program that gets it, and passed on by
// pitot run alone, without a value.
TEST(Knobs, AFlagKnobTakesNoValue) {
  for (const Knob& k : knobs()) {
    if (!k.flag_only()) continue;
    SCOPED_TRACE(k.flag);
    const auto off = parse_program({});
    const auto on = parse_program({k.flag});
    ASSERT_TRUE(off && on);
    EXPECT_EQ(kept(*off, k), 0);
    EXPECT_EQ(kept(*on, k), 1);
    for (const char* name : {"run", "ab"}) {
      Pitot pitot;
      std::vector<std::string> args = command(name, k.flag, "");
      args.pop_back();
      EXPECT_NO_THROW(pitot.parse(args)) << "pitot " << name;
    }
    CLI::App app{"run"};
    auto o = std::make_shared<driver::run::RunOptions>();
    driver::run::add_program_options(&app, o);
    std::vector<std::string> args = {"run", k.flag, "--warmup", "0.5"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ASSERT_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data()));
    const auto settings = driver::run::runner_settings(*o, std::nullopt);
    const auto& passed = settings.program_args;
    const auto at = std::find(passed.begin(), passed.end(), k.flag);
    ASSERT_NE(at, passed.end()) << k.flag << " is not passed on";
    if (at + 1 != passed.end()) {
      EXPECT_EQ((at + 1)->rfind("--", 0), 0u) << "a value follows " << k.flag;
    }
    EXPECT_EQ(settings.untrusted, std::string(k.flag) == "--untrusted");
  }
}

TEST(Knobs, PitotRunPassesTheTextOnUnchanged) {
  for (const Knob& k : knobs()) {
    if (k.flag_only()) continue;  // TEST(Knobs, AFlagKnobTakesNoValue)
    const std::string v = probe(k.bounds).taken.back();
    CLI::App app{"run"};
    auto o = std::make_shared<driver::run::RunOptions>();
    driver::run::add_program_options(&app, o);
    std::vector<std::string> args = {"run", k.flag, v};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ASSERT_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data())) << k.flag;
    const auto passed = driver::run::runner_settings(*o, std::nullopt).program_args;
    const auto at = std::find(passed.begin(), passed.end(), k.flag);
    ASSERT_NE(at, passed.end()) << k.flag << " is not passed on";
    ASSERT_NE(at + 1, passed.end());
    EXPECT_EQ(*(at + 1), v) << k.flag;
  }
}

// A flag both command lines take is the table's, or one each end handles itself: a knob added by
// hand at both ends (and so free to disagree again) fails here.
TEST(Knobs, NoKnobIsDeclaredTwiceBesideTheTable) {
  Pitot pitot;
  std::set<std::string> run_flags;
  for (const CLI::App* sub : pitot.app.get_subcommands([](const CLI::App* s) { return s->get_name() == "run"; }))
    for (const std::string& f : cli::long_flags(*sub)) run_flags.insert(f);
  ASSERT_FALSE(run_flags.empty());
  const std::set<std::string> in_program = program_flags();
  ASSERT_TRUE(in_program.count("--warmup")) << "the program's --help was not read";
  std::set<std::string> allowed = {
      "--help", "--timing", "--clock",    // parsed into their enums by the cli helpers at both ends
      "--filter", "--axis", "--shard",    // the points: pitot run selects them, then names them by id
      "--interleave", "--no-interleave",  // pitot run's schedule of children (kMaxInterleave)
      "--processes", "--json",            // pitot run's own (different meanings)
      "--asv-dir", "--machine", "--commit", "--env"};  // the database: pitot run writes it
  for (const Knob& k : knobs()) allowed.insert(k.flag);
  for (const std::string& f : run_flags) {
    if (in_program.count(f)) {
      EXPECT_TRUE(allowed.count(f)) << f << " is declared in a program and in pitot run by hand";
    }
  }
  for (const Knob& k : knobs()) {
    EXPECT_TRUE(run_flags.count(k.flag)) << k.flag;
    EXPECT_TRUE(in_program.count(k.flag)) << k.flag;
  }
}

TEST(Knobs, TheProgramPageNamesEveryKnob) {
  std::ifstream page(PITOT_PROGRAM_CLI_DOC);
  ASSERT_TRUE(page) << PITOT_PROGRAM_CLI_DOC;
  std::stringstream text;
  text << page.rdbuf();
  for (const Knob& k : knobs())
    EXPECT_NE(text.str().find(std::string("`") + k.flag + (k.flag_only() ? "`" : " ")), std::string::npos)
        << k.flag << " is not in docs/program-cli.md";
}

}  // namespace

// pitot ab BASE HEAD: two builds measured on one machine, their processes alternated (ABBA...),
// and more processes only for the points still undecided (and for a change's next look, to
// confirm it), until each is slower, faster or unchanged or the budget is spent. The wing that
// composes the two others: run's steps start the programs and record the results, compare's
// statistics decide. docs/compare.md, "pitot ab".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/point_filter.hpp"
#include "driver/ab/plan.hpp"
#include "driver/ab/schedule.hpp"
#include "driver/common/command.hpp"
#include "driver/common/files.hpp"
#include "driver/compare/compare.hpp"
#include "driver/run/costs.hpp"
#include "driver/run/estimate.hpp"
#include "driver/run/steps.hpp"
#include "program/cli_hints.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace pitot::driver::ab {

namespace {

using run::RunOptions;

struct AbOptions {
  std::string base, head;               // build folders, or program files / folders
  std::string base_commit, head_commit;  // where each side's rows go in the asv database
  int first_processes = kFirstLook, max_processes = 12;  // even: balanced ABBA rounds (ab/schedule.hpp)
  double budget_seconds = 0;  // 0: no time budget
  std::string threshold = "1%";
  double confidence = 0.999;
  std::string json_dir;  // base.json and head.json, as pitot run --json writes them
  std::string output;    // the report in its format, atomically
  bool markdown = false, json = false;
  bool no_pooling = false;  // each point's process spread alone
  bool by_time = false;     // GPU points by their time, not at the nominal clock (--by-time)
};

// One side: its options, programs, points and where its results go.
struct Side {
  const char* name;
  RunOptions options;
  std::vector<ProgramInfo> programs;
  std::vector<ProgramFailure> failed;  // programs that could not be listed (their points are lost)
  run::Database db;
  std::unique_ptr<run::Sink> sink;
};

// A BASE or HEAD argument: a build folder (it holds pitot-manifest.json) or programs.
void point_at(RunOptions& o, const std::string& arg) {
  if (fs::is_regular_file(fs::path(arg) / "pitot-manifest.json")) o.build_dir = arg;
  else o.inputs = {arg};
}

// The points both sides hold, by program and point name: only those are measured and compared.
struct Shared {
  // per program pair (base index, head index): the point names both hold
  std::vector<std::pair<std::size_t, std::size_t>> programs;
  std::vector<std::set<std::string>> points;
  std::vector<std::string> notes;  // programs or points on one side only
};

Shared shared_points(const Side& base, const Side& head, const std::string& filter) {
  const std::optional<std::regex> re = compile_point_filter<InputError>(filter);
  Shared s;
  for (std::size_t i = 0; i < base.programs.size(); ++i) {
    const auto& b = base.programs[i];
    auto h = std::find_if(head.programs.begin(), head.programs.end(),
                          [&](const ProgramInfo& p) { return p.program == b.program; });
    if (h == head.programs.end()) {
      s.notes.push_back(fmt::format("{}: in base only, not measured", b.program));
      continue;
    }
    std::set<std::string> names;
    for (const auto& p : h->points) names.insert(p.name);
    std::set<std::string> both;
    for (const auto& p : b.points)
      if (names.count(p.name) && (!re || std::regex_search(p.name, *re))) both.insert(p.name);
    if (both.empty()) continue;
    s.programs.emplace_back(i, static_cast<std::size_t>(h - head.programs.begin()));
    s.points.push_back(std::move(both));
  }
  for (const auto& h : head.programs)
    if (std::none_of(base.programs.begin(), base.programs.end(), [&](const ProgramInfo& p) { return p.program == h.program; }))
      s.notes.push_back(fmt::format("{}: in head only, not measured", h.program));
  if (s.programs.empty())
    throw InputError("base and head share no point (same program and point names): nothing to compare");
  return s;
}

std::vector<const PlannedPoint*> planned(const ProgramInfo& program, const std::set<std::string>& names) {
  std::vector<const PlannedPoint*> out;
  for (const auto& p : program.points)
    if (names.count(p.name)) out.push_back(&p);
  return out;
}

// Compare's key of every shared point (asv's name: values as Python reprs), back to the program
// pair and the point's name.
std::map<std::string, std::pair<std::size_t, std::string>> points_by_key(const Side& base, const Shared& shared) {
  std::map<std::string, std::pair<std::size_t, std::string>> out;
  for (std::size_t k = 0; k < shared.programs.size(); ++k) {
    const ProgramInfo& program = base.programs[shared.programs[k].first];
    for (const PlannedPoint* p : planned(program, shared.points[k]))
      out[compare::point_key(program.benchmarks.at(p->benchmark), p->values)] = {k, p->name};
  }
  return out;
}

// The side's results so far, per-process medians kept.
compare::PitotSide results_of(const Side& side, const std::string& label) {
  compare::PitotSide out{label, {}, side.sink->snapshot()};
  for (const auto& p : side.programs) out.benchmarks.insert(out.benchmarks.end(), p.benchmarks.begin(), p.benchmarks.end());
  return out;
}

// One process of one program of one side, for the points still to run, its cost measured.
void run_process(Side& side, std::size_t program, const std::set<std::string>& names, run::CostMeter& costs) {
  const auto points = planned(side.programs[program], names);
  if (points.empty()) return;
  run::SinkOutput out(*side.sink, side.db.run_for(program, std::nullopt), side.programs[program],
                      run::where_of(side.programs[program], std::nullopt) + " [" + side.name + "]");
  costs.run(run::runner_settings(side.options, std::nullopt), side.programs[program], points, out, interrupted());
}

// The prepared database of one side: its rows under its own commit (nothing without one).
run::Database side_database(RunOptions& o, const std::string& commit, const std::vector<ProgramInfo>& programs) {
  if (commit.empty()) o.no_asv = true;
  o.commit = commit;
  if (!o.no_asv) o.config = run::run_config_path(o);
  return run::prepare_database(o, programs, {std::nullopt});
}

// ab's options checked, as compare's method (each look's share of the error rates set as it looks).
compare::MethodOptions checked_method(const AbOptions& a) {
  compare::MethodOptions method;
  method.threshold = compare::parse_threshold(a.threshold);
  method.confidence = a.confidence;
  method.pool_noise = !a.no_pooling;
  method.per_clock = !a.by_time;
  // ab's verdicts rest on the processes' medians, at least 2 a side at any look, so one sample a
  // process is enough: compare's floor of 5 samples a side kept a point whose one sample outlasts
  // the lean --max-time (a GEMM of 10 ms or more) undecided until the third look (63 of 1,000 at
  // the first look of the sixth whole-suite run; docs/results/whole-suite-ab.md).
  method.min_samples = 2;
  compare::check_confidence(method);
  if (a.max_processes < a.first_processes)
    throw InputError(fmt::format("--max-processes {} is below --processes {}", a.max_processes, a.first_processes));
  if (a.base_commit.empty() != a.head_commit.empty())
    throw InputError("give both --base-commit and --head-commit (each side's rows go to its commit), or neither");
  return method;
}

// Both sides' programs, listed.
void list_sides(Side& base, Side& head, const AbOptions& a) {
  point_at(base.options, a.base);
  point_at(head.options, a.head);
  for (Side* s : {&base, &head}) {
    s->options.filter.clear();  // the filter picks shared points below, by name
    try {
      run::Programs listing = run::list_programs(s->options);
      s->programs = std::move(listing.listed);
      s->failed = std::move(listing.failed);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", s->name, e.what()));
    }
  }
}

// One round of the shared points (a process of every program, both sides), from the cost file.
AbEstimate estimate(const Side& base, const Side& head, const Shared& shared, const AbOptions& a,
                    const run::CostBook& book) {
  run::Work work_base, work_head;
  for (std::size_t k = 0; k < shared.programs.size(); ++k) {
    const auto [ib, ih] = shared.programs[k];
    work_base.emplace_back(&base.programs[ib], planned(base.programs[ib], shared.points[k]));
    work_head.emplace_back(&head.programs[ih], planned(head.programs[ih], shared.points[k]));
  }
  AbEstimate e;
  e.round = run::estimate_round(book, run::cost_knobs(base.options), work_base, base.options);
  e.round += run::estimate_round(book, run::cost_knobs(head.options), work_head, head.options);
  e.first = a.first_processes;
  e.max = a.max_processes;
  return e;
}

// The looks, run in turn, each for the points still undecided, until every point is decided, the
// processes are spent, or the next step would pass --budget.
struct Outcome {
  compare::Report report;
  int done = 0;  // processes a side
  bool out_of_budget = false;
  Kept kept;  // the calls kept from look to look (ab/schedule.hpp); to_confirm at the end: unconfirmed
};

Outcome run_looks(Side& base, Side& head, const Shared& shared, const std::vector<int>& looks,
                  const compare::MethodOptions& method, const AbOptions& a, const std::function<double()>& elapsed,
                  run::CostMeter& costs) {
  std::vector<std::set<std::string>> to_run = shared.points;  // by program: the points its next process runs
  const auto point_of = points_by_key(base, shared);
  const std::vector<double> shares = look_shares(looks.size());
  Outcome out;
  Kept& kept = out.kept;
  auto to_run_count = [&] {
    std::size_t n = 0;
    for (const auto& names : to_run) n += names.size();
    return n;
  };
  for (std::size_t look = 0; look < looks.size(); ++look) {
    const double step_start = elapsed();
    const int step_first = out.done;
    const std::size_t step_points = to_run_count();
    for (; out.done < looks[look] && !interrupted(); ++out.done) {
      // ABBA: each side goes first in every other round, so a drift that grows through a round
      // weighs on both sides alike.
      for (std::size_t k = 0; k < shared.programs.size() && !interrupted(); ++k) {
        const auto [ib, ih] = shared.programs[k];
        Side& first = out.done % 2 == 0 ? base : head;
        run_process(first, &first == &base ? ib : ih, to_run[k], costs);
        Side& second = &first == &base ? head : base;
        run_process(second, &second == &base ? ib : ih, to_run[k], costs);
      }
    }
    compare::MethodOptions this_look = method;
    this_look.look_share = shares[look];
    out.report = compare::compare_pitot(results_of(base, "base " + a.base), results_of(head, "head " + a.head), this_look);
    keep_verdicts(out.report, kept, !interrupted());
    // The next step runs the points still undecided and the changes this look called first.
    for (auto& names : to_run) names.clear();
    for (const auto& row : out.report.rows)
      if (row.comparison.verdict == compare::Verdict::Inconclusive || kept.to_confirm.count(row.base.key) > 0)
        if (auto it = point_of.find(row.base.key); it != point_of.end())
          to_run[it->second.first].insert(it->second.second);
    if (to_run_count() == 0 || interrupted()) break;
    // The next step's cost, from this one's: its rounds at this step's cost per round and point,
    // for the points it would run. Stop before it would pass the budget.
    if (a.budget_seconds > 0 && look + 1 < looks.size() && out.done > step_first && step_points > 0) {
      const double per_round_point =
          (elapsed() - step_start) / (out.done - step_first) / static_cast<double>(step_points);
      const double next = per_round_point * (looks[look + 1] - out.done) * static_cast<double>(to_run_count());
      if (elapsed() + next > a.budget_seconds) {
        out.out_of_budget = true;
        break;
      }
    }
  }
  return out;
}

// The report in its format, --json-dir's files, and the exit code.
int report_outcome(Side& base, Side& head, Outcome& out, const compare::MethodOptions& method, const AbOptions& a,
                   double seconds) {
  const std::string why = interrupted()       ? std::string("the run was interrupted")
                          : out.out_of_budget ? fmt::format("the time budget (--budget {:g}) ran out", a.budget_seconds)
                                              : fmt::format("the process budget (--max-processes {}) ran out",
                                                            a.max_processes);
  const std::string summary = undecided_summary(out.report, why);
  for (auto& row : out.report.rows) {
    if (row.comparison.verdict == compare::Verdict::Inconclusive)
      row.comparison.note = undecided_note(row.comparison, method, why);
    else if (out.kept.to_confirm.count(row.base.key) > 0)
      row.comparison.note = unconfirmed_note(row.comparison, why);
  }
  if (!a.json_dir.empty()) {
    fs::create_directories(a.json_dir);
    for (Side* s : {&base, &head}) {
      auto results = s->sink->snapshot();
      run::write_json_report((fs::path(a.json_dir) / (std::string(s->name) + ".json")).string(),
                              run::Programs{s->programs, s->failed}, results, s->options.sandbox_said);
    }
  }
  for (Side* s : {&base, &head})
    if (s->sink->fatal()) throw InputError(fmt::format("the asv database refused the {} results: {}", s->name,
                                                       s->sink->fatal_message()));
  const compare::Report& report = out.report;
  const compare::Format format = a.markdown ? compare::Format::Markdown
                                 : a.json   ? compare::Format::Json
                                            : compare::Format::Table;
  std::string text = compare::report_text(report, format, a.output, false, false);
  // ab shows the table on stdout even when the file holds it.
  if (format == compare::Format::Table && !a.output.empty()) text = compare::render_table(report, false, false) + text;
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (!interrupted()) std::fputs(summary.c_str(), stderr);
  std::fprintf(stderr, "pitot ab: %d process%s a side, %.0f s\n", out.done, out.done == 1 ? "" : "es", seconds);
  if (interrupted()) return kFailed;
  // A head program that cannot even be listed fails all its points: as a point newly failing.
  for (const auto& f : head.failed)
    std::fprintf(stderr, "pitot ab: head program %s could not be listed: its points were not compared\n",
                 f.ref.path.string().c_str());
  const int code = compare::report_exit_code(report);
  return head.failed.empty() || code != kOk ? code : kFailed;
}

int ab_command(RunOptions options, const AbOptions& a) {
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const compare::MethodOptions method = checked_method(a);
  apply_lean_limits(options.passthrough);

  const CatchInterrupts catching;  // Ctrl-C stops the children and keeps what finished
  run::check_device_settings(options);
  options.sandbox_said = settle_sandbox(options.sandbox, options.untrusted(), "ab");  // before the listing
  Side base{"base", options, {}, {}, {}, {}}, head{"head", options, {}, {}, {}, {}};
  list_sides(base, head, a);
  const Shared shared_set = shared_points(base, head, options.filter);

  // The cost, said before it is spent; the first look cut to what fits in the budget.
  const run::CostBook book(run::CostBook::default_path());
  if (!book.note().empty()) std::fprintf(stderr, "pitot ab: note: %s\n", book.note().c_str());
  const AbEstimate cost = estimate(base, head, shared_set, a, book);
  if (options.estimate_only) {
    std::printf("pitot ab: estimate: %s\n", cost.text().c_str());
    return kOk;  // nothing runs, nothing is written
  }
  const int first = first_look_within(cost, a.budget_seconds > 0 ? a.budget_seconds - elapsed() : 0);
  const std::vector<int> looks = look_schedule(first, std::max(first, a.max_processes));

  base.db = side_database(base.options, a.base_commit, base.programs);
  head.db = side_database(head.options, a.head_commit, head.programs);
  std::size_t total = 0;
  for (const auto& names : shared_set.points) total += names.size();
  const bool live = options.progress == run::ProgressMode::Live ||
                    (options.progress == run::ProgressMode::Auto && isatty(STDERR_FILENO));
  Progress progress(options.progress == run::ProgressMode::None ? nullptr : stderr, live,
                    total * 2 * static_cast<std::size_t>(a.max_processes));
  for (Side* s : {&base, &head})
    s->sink = std::make_unique<run::Sink>(progress, s->db.dir, s->options.env.empty(), /*pool=*/true);
  progress.note("pitot ab: estimate: " + cost.text());
  if (first < a.first_processes)
    progress.note(fmt::format("pitot ab: the first look ({} processes a side, about {}) would pass --budget {:g}: it "
                              "gets {} a side, what fits (at least 2)",
                              a.first_processes, run::duration_text(cost.first_look()), a.budget_seconds, first));
  progress.note(fmt::format("pitot ab: {} points, base {} against head {}; {} processes a side, then more for "
                            "undecided points at {} (at most {}){}",
                            total, a.base, a.head, first, fmt::join(looks, ", "), looks.back(),
                            a.budget_seconds > 0 ? fmt::format(", within {:g} s", a.budget_seconds) : ""));
  for (const auto& n : shared_set.notes) progress.note("pitot ab: " + n);

  run::CostMeter costs(run::CostBook::default_path(), run::cost_knobs(options));
  Outcome out = run_looks(base, head, shared_set, looks, method, a, elapsed, costs);
  progress.finish();
  if (const std::string note = costs.save(); !note.empty()) std::fprintf(stderr, "pitot ab: note: %s\n", note.c_str());
  return report_outcome(base, head, out, method, a, elapsed());
}

void setup(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "ab",
      "Measure two builds on this machine, alternating their processes, adding processes only where a point is "
      "undecided, and give the verdict of pitot compare. Exit code: 0 no confirmed regression, 1 a point slower "
      "or newly failing, 2 input error.");
  auto o = std::make_shared<RunOptions>();
  auto a = std::make_shared<AbOptions>();
  cmd->add_option("base", a->base, "base: a build folder (with pitot-manifest.json), a program, or a folder of programs")
      ->required();
  cmd->add_option("head", a->head, "head: the same kind as base")->required();
  run::add_program_options(cmd, o);
  cmd->add_option("--ranks", o->ranks,
                  "Processes of a multi-rank program on each side, one per GPU, timed together (default: one per "
                  "GPU; docs/ranks.md)")
      ->check(CLI::Range(1, 1024));
  cmd->footer("Each process samples lean by default, " + lean_limits_text() +
              ": the verdict pools per-process medians across processes, so a process needs a median, not a "
              "narrow interval of its own (pitot run's defaults buy that, at about twice the time). Give any of "
              "these to override it. docs/compare.md, \"pitot ab\".");
  cmd->add_option("--processes", a->first_processes, "Processes a side before the first look (even: each side goes first equally often)")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  cmd->add_option("--max-processes", a->max_processes, "Processes a side at most, for points still undecided")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  cmd->add_option("--budget", a->budget_seconds,
                  "Seconds the whole comparison may take (0: no limit): the first look is cut to the rounds that fit "
                  "(at least 2), and ab stops at a look before a step that would pass it (see --estimate)")
      ->check(cli::non_negative());
  cmd->add_option("--threshold", a->threshold, "Minimum change that counts, as 1% or 0.01")->capture_default_str();
  cmd->add_option("--confidence", a->confidence, "Confidence of each point's slower/faster verdict over all looks")
      ->capture_default_str();
  run::add_database_options(cmd, o);
  auto by_time = cmd->add_flag(
      "--by-time", a->by_time,
      "Compare GPU points by their time. Without it they are compared at the card's nominal clock (each "
      "sample scaled by the SM clock measured over it, as far as the benchmark's time follows the clock, "
      "fitted from the processes), which leaves out the clock a power cap gives each process; where the "
      "sides' clocks sit surely or far apart, by time (docs/compare.md, \"Per clock\")");
  // Per clock became ab's default; the flag that asked for it stays accepted.
  cmd->add_flag("--per-clock")
      ->description("The default: GPU points at the nominal clock (see --by-time)")
      ->excludes(by_time);
  cmd->add_flag("--no-pooling", a->no_pooling,
                "Each point's process spread alone, not moderated by its program's other points");
  cmd->add_option("--base-commit", a->base_commit, "Commit the base rows go to in the asv database");
  cmd->add_option("--head-commit", a->head_commit, "Commit the head rows go to (with --base-commit; without both, no asv rows)");
  cmd->add_option("--json-dir", a->json_dir, "Write base.json and head.json (pitot run --json) into this folder");
  auto md = cmd->add_flag("--markdown", a->markdown, "Print the report as markdown (for a pull-request comment)");
  cmd->add_flag("--json", a->json, "Print the report as JSON")->excludes(md);
  cmd->add_option("-o,--output", a->output, "Write the report to this file; the table still goes to stdout");
  cmd->callback([o, a] { run_guarded("ab", [&] { return ab_command(*o, *a); }); });
}

}  // namespace

void add_ab_command(CLI::App& root) { setup(root); }

}  // namespace pitot::driver::ab

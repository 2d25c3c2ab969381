// pitot compare BASE HEAD: which points got slower or faster between two runs, with confidence.
#include <iostream>
#include <map>

#include <unistd.h>

#include "driver/common/command.hpp"
#include "driver/compare/compare.hpp"

namespace pitot::driver::compare {
namespace {

void setup_compare(CLI::App& root) {
  auto options = std::make_shared<CompareOptions>();
  auto threshold = std::make_shared<std::string>("2%");
  auto noise_prior = std::make_shared<std::string>("2%");
  auto markdown = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  auto color = std::make_shared<std::string>("auto");
  CLI::App* cmd = root.add_subcommand(
      "compare",
      "Compare two runs point by point: slower, faster, unchanged or inconclusive, with a confidence interval. "
      "BASE and HEAD are commits in an asv results database, two asv results files, or two pitot --json files. "
      "Exit code: 0 no confirmed regression, 1 a point slower or newly failing, 2 input error.");
  cmd->add_option("base", options->base, "base: commit (hash prefix or git revision), asv results file, or pitot JSON")
      ->required();
  cmd->add_option("head", options->head, "head: the same kind as base")->required();
  cmd->add_option("--results-dir,--asv-dir", options->results_dir,
                  "asv results folder (default: results_dir of the config, else ./asv-results)");
  cmd->add_option("--config", options->config,
                  "asv.conf.json giving results_dir and the git repository (default: ./asv.conf.json, else ./asv-results/asv.conf.json, as pitot run)");
  cmd->add_option("--machine", options->machine, "machine folder in the results database, when it holds several");
  cmd->add_option("--env", options->env, "environment name, when a commit has results for several");
  cmd->add_option("--threshold", *threshold, "minimum change that counts, as 2% or 0.02 (default 2%)");
  cmd->add_option("--confidence", options->method.confidence,
                  "two-sided confidence of each point's interval, for slower and faster (default 0.999)");
  cmd->add_option("--min-samples", options->method.min_samples,
                  "fewer samples than this on a side gives 'inconclusive' (default 5)");
  cmd->add_option("--noise-prior", *noise_prior,
                  "run-to-run noise assumed between processes when a side has one process and the point no "
                  "history, as a standard deviation: 2% (default) or 0 (off)");
  cmd->add_option("--look-share", options->method.look_share,
                  "for a sequential plan of your own: the share of both error rates this comparison spends, "
                  "the shares of all its looks summing to 1 (default 1; pitot ab sets it per look)")
      ->check(CLI::Range(1e-6, 1.0));
  cmd->add_flag("--no-pooling", [options](std::int64_t) { options->method.pool_noise = false; },
                "each point's process spread alone, not moderated by its program's other points");
  cmd->add_flag("--per-clock", [options](std::int64_t) { options->method.per_clock = true; },
                "compare GPU points by their time at the card's nominal clock (each sample scaled by the SM clock "
                "measured over it, as far as the benchmark's time follows the clock, fitted from the processes): "
                "the clock a power cap gives a process is left out; where the sides' clocks sit surely or far "
                "apart, by time (docs/compare.md, \"Per clock\")");
  cmd->add_option("--history", options->history,
                  "recent commits of the database a point's run-to-run noise is learned from (default 10, 0: none)")
      ->check(CLI::Range(0, 1000));
  auto md = cmd->add_flag("--markdown", *markdown, "print markdown (for a pull-request comment)");
  cmd->add_flag("--json", *json, "print JSON")->excludes(md);
  cmd->add_option("-o,--output", options->output,
                  "write the markdown or JSON (or table) to this file; the table still goes to stdout");
  cmd->add_flag("--only-changed", options->only_changed, "show only points found slower or faster");
  cmd->add_option("--color", *color, "colour the table: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([=] {
    // run_compare reports its own input errors; the guard is for the threshold.
    run_guarded("compare", [&] {
      options->method.threshold = parse_threshold(*threshold);
      try {
        options->method.noise_prior = parse_threshold(*noise_prior);
      } catch (const InputError&) {
        throw InputError("--noise-prior " + *noise_prior + ": expected a percentage like 2%, or 0 (off)");
      }
      options->format = *markdown ? Format::Markdown : *json ? Format::Json
                                                             : Format::Table;
      static const std::map<std::string, Color> colors = {
          {"auto", Color::Auto}, {"always", Color::Always}, {"never", Color::Never}};
      options->color = colors.at(*color);
      return run_compare(*options, std::cout, std::cerr, ::isatty(STDOUT_FILENO) == 1);
    });
  });
}

}  // namespace

void add_compare_command(CLI::App& root) { setup_compare(root); }

}  // namespace pitot::driver::compare

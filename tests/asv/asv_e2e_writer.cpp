// Writes a small asv database with pitot's writer, as a benchmark program would, for the
// end-to-end check with the real asv (asv_e2e.sh). Usage:
//   asv_e2e_writer RESULTS_DIR REPO REV SLOWDOWN
// SLOWDOWN multiplies every time, so two commits differ in a way `asv compare` must see.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "asv_test_util.hpp"
#include "asv/write.hpp"
#include "asv/env.hpp"
#include "host/machine.hpp"

using namespace pitot;
using namespace pitot::testing;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: asv_e2e_writer RESULTS_DIR REPO REV SLOWDOWN\n");
    return 2;
  }
  const std::string results = argv[1], repo = argv[2], rev = argv[3];
  const double slow = std::atof(argv[4]);
  auto commit = git_commit(repo, rev);
  if (!commit) {
    std::fprintf(stderr, "asv_e2e_writer: %s is not a commit in %s\n", rev.c_str(), repo.c_str());
    return 2;
  }
  AsvRun run;
  run.machine_facts = host_facts();
  run.machine = machine_name_from_cpu(run.machine_facts["cpu"]);
  run.commit_hash = commit->hash;
  run.commit_date_ms = commit->date_ms;
  run.env_name = build_env_name();
  run.requirements = build_requirements();

  auto sort = make_benchmark("bench_e2e", "sort_ints",
                             {Axis{"n", AxisKind::Int, {std::int64_t{1000}, std::int64_t{100000}}},
                              Axis{"algo", AxisKind::String, {std::string("std::sort"), std::string("it's stable")}}});
  auto kinds = make_benchmark("bench_e2e", "kinds",
                              {Axis{"x", AxisKind::Float, {0.5, 1e-7}},
                               Axis{"size", AxisKind::Pow2, {std::int64_t{1024}, std::int64_t{1048576}}}});
  auto plain = make_benchmark("bench_other", "plain", {});

  std::vector<PointResult> first = {
      ok_point(sort, 0, 2e-5 * slow, 10, 1000),
      ok_point(sort, 1, 3e-5 * slow, 3, 1000),  // < 8 samples: ±Infinity CI ends
      ok_point(kinds, 0, 1e-6 * slow, 12),
      ok_point(kinds, 3, 4e-3 * slow, 8),
  };
  std::vector<PointResult> second = {
      other_point(sort, 2, PointStatus::Skipped),
      slow > 1 ? other_point(sort, 3, PointStatus::Failed) : ok_point(sort, 3, 5e-3, 9, 100000),
      other_point(kinds, 1, PointStatus::Failed),
      other_point(kinds, 2, PointStatus::Skipped),
      ok_point(plain, 0, 1e-3 * slow, 20),
  };
  second.back().tracks = throughput_tracks(0, 1e6, 2e6, second.back().stats->median);
  try {
    // Two writes, like two shards of one run: the second must not erase the first.
    write_asv(results, run, {sort, kinds}, first);
    write_asv(results, run, {sort, kinds, plain}, second);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asv_e2e_writer: %s\n", e.what());
    return 2;
  }
  std::printf("wrote %s/%s for %s\n", results.c_str(), run.machine.c_str(), commit->hash.c_str());
  return 0;
}

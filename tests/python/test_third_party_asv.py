"""A real, third-party asv suite: recorded by the real asv for one commit and by `pitot run` for
the next, one history (issue 22, its first CI check).

third_party/asv/benchmark/ is asv's own test benchmark folder (BSD 3-clause; what was taken and
trimmed is in third_party/asv/README.md): a package with a relative import and a sub-package,
setup_cache (one writing a file its benchmarks read), parameters, and the time, timeraw, track,
mem and peakmem kinds, in pure Python. In a temporary git repository holding it and an
asv.conf.json:
- the benchmarks, their params, versions, types, units and code are asv_runner's own
  (`python -m pitot --list --json` of each module beside asv's discovery);
- the real asv 0.6.6 (`asv run --python=same --quick`) records the first commit, `pitot run
  asv.conf.json` the second, with no flag (issue 32: the machine asv recorded in
  ~/.asv-machine.json, and the config's matrix requirements in the params): the same keys,
  params and versions in both results files, every benchmark measured by both, the
  deterministic ones (track_, mem_) equal;
- `asv publish` loads both, and its graphs (html/graphs/...) hold one line per benchmark with
  both commits on it, each value the one its results file holds;
- neither run leaves a file in the checkout (setup_cache writes in a folder of its own); both
  run as on a fresh machine, writing bytecode (PYTHONDONTWRITEBYTECODE unset), which the
  project's .gitignore keeps out of `git status` as any Python project's does.

Uses the helpers of test_asv_suite.py (asv 0.6.6 installed from PyPI when missing). Environment:
PITOT_DRIVER.
"""

import json
import math
import os
import shutil
import sys
import tempfile
import unittest

from test_asv_suite import FAST, asv_view, ensure_asv, git, load, pitot_view, run

HERE = os.path.dirname(os.path.abspath(__file__))
VENDORED = os.path.join(HERE, "third_party", "asv")
SUITE = os.path.join(VENDORED, "benchmark")
CONF = {
    "version": 1,
    "project": "asvtest",
    "project_url": "https://example.invalid/asvtest",
    "show_commit_url": "https://example.invalid/asvtest/commit/",
    "repo": ".",
    "dvcs": "git",
    "branches": ["main"],
    "environment_type": "existing",
    "benchmark_dir": "benchmark",
    "results_dir": "results",
    "html_dir": "html",
    # asv run --python=same records these in its rows' params ("numpy": ""); pitot's rows must too,
    # or asv's graph path and pitot's differ (numpy-null). Neither installs them.
    "matrix": {"req": {"numpy": "", "pandas": ""}},
}
# What the vendored suite holds: 35 benchmarks of the five kinds (README.md says what was left out).
KINDS = {"time": 11, "timeraw": 3, "track": 18, "mem": 2, "peakmem": 1}
# Values that do not depend on the machine: asv's and pitot's must be these.
EXACT = {
    "cache_examples.track_cache_foo": 42,  # its setup_cache's file, read where the benchmark runs
    "cache_examples.track_cache_bar": 12,
    "cache_examples.track_my_cache_foo": 0,  # another setup_cache: that file is not here
    "cache_examples.ClassLevelSetup.track_example": 500,
    "cache_examples.ClassLevelCacheTimeoutSuccess.track_success": 0,
    "params_examples.ParamSuite.track_value": [1, 2, 3],
    "params_examples.track_param_selection": [4, 6, 5, 7],
    "params_examples.track_param": [42, 42],
    "params_examples.track_bytes": 1000000,
    "params_examples.mem_param": [136, 136, 216, 216],
    "mem_examples.mem_list": 2096,
    "named.track_custom_pretty_name": 42,
    "custom.track_method": 0,  # benchmark_name: asv's key is that name alone, without the module
    "time_secondary.track_value": 42,
}


def values(row):
    """A results row's values, as a list (asv's first column: one value per point, None when the
    point has none)."""
    return [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in (row[0] or [None])]


class ThirdPartySuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ensure_asv()
        cls.driver = os.environ["PITOT_DRIVER"]
        cls.tmp = tempfile.mkdtemp(prefix="pitot-third-party-asv-")
        cls.repo = repo = os.path.join(cls.tmp, "project")
        shutil.copytree(SUITE, os.path.join(repo, "benchmark"), ignore=shutil.ignore_patterns("__pycache__"))
        with open(os.path.join(repo, "asv.conf.json"), "w") as f:
            json.dump(CONF, f, indent=4)
        with open(os.path.join(repo, ".gitignore"), "w") as f:
            f.write("__pycache__/\n")
        git(repo, "init", "-q")
        git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "one")
        cls.first = git(repo, "rev-parse", "HEAD")
        env = dict(os.environ, PITOT_PYTHON=sys.executable, HOME=os.path.join(cls.tmp, "home"))  # ~/.asv-machine.json
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a fresh machine writes bytecode (CI's may not)
        os.makedirs(env["HOME"])
        cls.env = env
        asv = cls.asv = [sys.executable, "-m", "asv"]
        run(asv + ["machine", "--yes"], cwd=repo, env=env, check_rc=0)
        cls.machine = [k for k in load(os.path.join(env["HOME"], ".asv-machine.json")) if k != "version"][0]
        run(asv + ["run", "--python=same", "--quick", "--set-commit-hash", cls.first], cwd=repo, env=env, check_rc=0)
        cls.after_asv = git(repo, "status", "--porcelain", "--untracked-files=all")
        with open(os.path.join(repo, "README"), "w") as f:
            f.write("the next commit\n")
        git(repo, "add", "README")
        git(repo, "commit", "-q", "-m", "two")
        cls.second = git(repo, "rev-parse", "HEAD")
        # No --machine: pitot continues the machine asv recorded in ~/.asv-machine.json.
        cls.pitot = run([cls.driver, "run", "asv.conf.json", *FAST, "--progress", "plain",
                         "--json", os.path.join(cls.tmp, "run.json")], cwd=repo, env=env)
        cls.after_pitot = git(repo, "status", "--porcelain", "--untracked-files=all")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def results(self):
        folder = os.path.join(self.repo, "results", self.machine)
        files = sorted(f for f in os.listdir(folder) if f != "machine.json")
        self.assertEqual(len(files), 2, files)
        by_commit = {f[:8]: load(os.path.join(folder, f)) for f in files}
        self.assertEqual(sorted(by_commit), sorted([self.first[:8], self.second[:8]]))
        return by_commit[self.first[:8]], by_commit[self.second[:8]]

    def test_pitot_ran_every_point(self):
        self.assertEqual(self.pitot.returncode, 0, self.pitot.stdout + self.pitot.stderr)
        points = load(os.path.join(self.tmp, "run.json"))["points"]
        by_status = {}
        for p in points:
            by_status.setdefault(p["status"], []).append(f"{p['program']}.{p['name']}")
        # time_skip's setup raises NotImplementedError for n > 2000, as under asv; all else ran.
        self.assertEqual(by_status.get("skipped"), ["params_examples.time_skip[param1=3000]"], by_status)
        self.assertEqual(sorted(by_status), ["ok", "skipped"], by_status)

    def test_benchmarks_are_asvs(self):
        asv, pitot = asv_view(SUITE), pitot_view(SUITE)
        kinds = {}
        for b in asv.values():
            kinds[b["type"]] = kinds.get(b["type"], 0) + 1
        self.assertEqual(sum(KINDS.values()), len(asv), sorted(asv))
        self.assertEqual(kinds, {"time": KINDS["time"] + KINDS["timeraw"], "track": KINDS["track"],
                                 "memory": KINDS["mem"], "peakmemory": KINDS["peakmem"]})
        self.assertEqual(sorted(pitot), sorted(asv))
        for name in asv:
            self.assertEqual(pitot[name], asv[name], name)
        for name in ("timeraw_examples.TimerawSuite.timeraw_count",
                     "subdir.time_subdir.time_foo",  # the sub-package
                     "time_secondary.TimeSecondary.time_factorial"):  # the module with the relative import
            self.assertIn(name, pitot)
        self.assertEqual(pitot["params_examples.track_param"]["params"],
                         [["<class 'benchmark.params_examples.ClassOne'>", "<class 'benchmark.params_examples.ClassTwo'>"]])
        self.assertEqual(pitot["params_examples.FunctionParamSuite.time_func"]["params"],
                         [["<function track_param>", "<function FunctionParamSuite.<lambda>>"]])
        self.assertEqual(pitot["params_examples.track_bytes"]["unit"], "bytes")

    def test_same_keys_params_versions_in_both_results(self):
        asv_run, pitot_run = self.results()
        names = sorted(asv_view(SUITE))
        self.assertEqual(sorted(asv_run["results"]), names)
        self.assertEqual(sorted(pitot_run["results"]), names)
        self.assertEqual(pitot_run["params"], asv_run["params"])  # one graph line, not two
        self.assertEqual((asv_run["params"]["numpy"], asv_run["params"]["os"]), ("", load(
            os.path.join(self.env["HOME"], ".asv-machine.json"))[self.machine]["os"]))  # the matrix; asv's own os
        self.assertEqual(pitot_run["result_columns"][:3], asv_run["result_columns"][:3])
        for name, row in asv_run["results"].items():
            self.assertEqual(pitot_run["results"][name][1:3], row[1:3], name)  # params and version

    def test_both_measured_the_same_things(self):
        asv_run, pitot_run = self.results()
        for name in asv_run["results"]:
            a, p = values(asv_run["results"][name]), values(pitot_run["results"][name])
            self.assertEqual(len(a), len(p), name)
            for i, (x, y) in enumerate(zip(a, p)):
                if name == "params_examples.time_skip" and i == 2:  # n=3000: skipped by both
                    self.assertEqual((x, y), (None, None))
                    continue
                self.assertIsNotNone(x, f"asv has no value for {name}[{i}]")
                self.assertIsNotNone(y, f"pitot has no value for {name}[{i}]")
                if name.split(".")[-1].startswith(("time", "peakmem")):  # and timeraw_
                    self.assertGreater(x, 0, name)
                    self.assertGreater(y, 0, name)
        for name, expected in EXACT.items():
            expected = expected if isinstance(expected, list) else [expected]
            self.assertEqual(values(asv_run["results"][name]), expected, f"asv: {name}")
            self.assertEqual(values(pitot_run["results"][name]), expected, f"pitot: {name}")
        # A fresh interpreter's peak RSS under both: megabytes, and the list of 2^20 items in it.
        for run_ in (asv_run, pitot_run):
            self.assertGreater(values(run_["results"]["peakmem_examples.peakmem_list"])[0], 8 * 2**20)

    def test_checkout_left_clean(self):
        # asv runs setup_cache in a temporary folder; pitot must too (track_cache_foo's writes data.txt).
        self.assertIn("results/", self.after_pitot)
        for status in (self.after_asv, self.after_pitot):
            stray = [line for line in status.splitlines() if not line[3:].startswith(("results/", "html/"))]
            self.assertEqual(stray, [])

    def test_asv_publish_draws_one_graph_per_benchmark_with_both_commits(self):
        asv_run, pitot_run = self.results()
        run(self.asv + ["publish"], cwd=self.repo, env=self.env, check_rc=0)
        html = os.path.join(self.repo, "html")
        index = load(os.path.join(html, "index.json"))
        revision = {h[:8]: int(r) for r, h in index["revision_to_hash"].items()}
        self.assertEqual(sorted(revision), sorted([self.first[:8], self.second[:8]]))
        self.assertEqual(sorted(index["benchmarks"]), sorted(asv_run["results"]))
        graphs = {}
        for folder, _, files in os.walk(os.path.join(html, "graphs")):
            if "summary" in os.path.relpath(folder, html).split(os.sep):
                continue
            for f in files:
                if f != "summary.json":  # asv's own, beside the benchmarks' graphs
                    graphs.setdefault(f[:-len(".json")], []).append(os.path.join(folder, f))
        self.assertEqual(sorted(graphs), sorted(asv_run["results"]))
        for name in graphs:
            self.assertEqual(len(graphs[name]), 1, (name, graphs[name]))  # one line of history
            points = dict((r, v) for r, v in load(graphs[name][0]))
            self.assertEqual(sorted(points), sorted(revision.values()), (name, points))  # both commits
            for commit, run_ in ((self.first[:8], asv_run), (self.second[:8], pitot_run)):
                drawn = points[revision[commit]]
                drawn = drawn if isinstance(drawn, list) else [drawn]
                stored = values(run_["results"][name])
                self.assertEqual(len(drawn), len(stored), name)
                for i, (d, s) in enumerate(zip(drawn, stored)):
                    if s is None:  # only time_skip's n=3000, skipped by both: the line is unbroken
                        self.assertEqual((name, i), ("params_examples.time_skip", 2), commit)
                        self.assertIsNone(d, name)
                    else:
                        self.assertAlmostEqual(d, s, delta=abs(s) * 1e-9, msg=(name, commit))


if __name__ == "__main__":
    unittest.main(verbosity=2)

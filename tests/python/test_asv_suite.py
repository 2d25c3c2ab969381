"""An asv suite run unchanged by pitot, next to the real asv (issue 22).

asv_suite/ is a small suite written in asv's own style for this test: an asv.conf.json whose
benchmark_dir is a package with relative imports and a sub-package, setup_cache, params (ints,
strings, booleans, None, a float) and the time, timeraw, track, mem and peakmem kinds.
- Names, params, versions, types, units and code of every benchmark are asv_runner's own (asv's
  discovery run in a child process, beside `python -m pitot --list --json`), also after a method
  changes.
- History: the real asv (`asv run --python=same --quick`) records one commit, `pitot run
  asv.conf.json` the next; asv publish draws one graph per benchmark holding both commits. The
  same when asv makes its own virtualenv (asv.conf.json's usual `environment_type`, with a
  matrix requirement).
- The kinds measure what asv measures; asv's timing attributes are honoured.
- bench_returns_seconds.py (the seed suite's style): the returned seconds are the samples, and
  the file's `__main__` block, which imports a module that is not here, never runs.

asv 0.6.6 (with asv_runner and pympler) is installed from PyPI into this interpreter's
environment when it is missing; when that fails the test fails. Environment: PITOT_DRIVER.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "asv_suite")
RETURNS = os.path.join(HERE, "bench_returns_seconds.py")
FAST = ["--max-time", "0.02", "--min-time", "0.005", "--warmup", "0"]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}

# asv's own view of a benchmark folder, printed as JSON by a child (asv_runner's discovery).
ASV_VIEW = """
import json, os, sys
from asv_runner.discovery import disc_benchmarks
root = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(root))
print(json.dumps({b.name: {"version": b.version, "params": b.params, "param_names": b.param_names,
                           "type": b.type, "unit": b.unit, "code": b.code} for b in disc_benchmarks(root)}))
"""


def run(args, cwd=None, env=None, check_rc=None, timeout=600):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check_rc is not None and p.returncode != check_rc:
        raise AssertionError(f"{args} exited {p.returncode}, expected {check_rc}\nstdout:\n{p.stdout[-4000:]}\n"
                             f"stderr:\n{p.stderr[-4000:]}")
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def ensure_asv():
    try:
        import asv  # noqa: F401
        import pympler  # noqa: F401
    except ImportError:
        run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "asv==0.6.6"], check_rc=0)
        importlib.invalidate_caches()  # pympler, imported by a test of this process


def git(repo, *args):
    return run(["git", "-C", repo, "-c", "commit.gpgsign=false", *args], env=dict(os.environ, **GIT_ENV),
               check_rc=0).stdout.strip()


def new_repo(path):
    """The folder `path` (a copy of the suite) made a git repository of its own, one commit;
    returns the commit."""
    git(path, "init", "-q")
    git(path, "symbolic-ref", "HEAD", "refs/heads/main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "one")
    return git(path, "rev-parse", "HEAD")


def pitot_view(benchmarks):
    """The suite as pitot lists it: every module of the folder by `python -m pitot --list --json`."""
    found = {}
    for folder, _, files in os.walk(benchmarks):
        for f in sorted(files):
            path = os.path.join(folder, f)
            if not f.endswith(".py") or path == os.path.join(benchmarks, "__init__.py"):
                continue
            doc = json.loads(run([sys.executable, "-m", "pitot", "--root", benchmarks, path, "--list", "--json", "-"],
                                 check_rc=0).stdout)
            for b in doc["benchmarks"]:
                found[b.get("asv_key") or f"{doc['program']}.{b['name']}"] = {
                    "version": b["version"], "params": [a["values"] for a in b["axes"]],
                    "param_names": [a["name"] for a in b["axes"]], "type": b["type"], "unit": b["unit"],
                    "code": b["code"]}
    return found


def asv_view(benchmarks):
    return json.loads(run([sys.executable, "-c", ASV_VIEW, benchmarks], check_rc=0).stdout)


def points_of(path):
    return {p["name"]: p for p in load(path)["points"]}


class AsvSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ensure_asv()
        cls.driver = os.environ["PITOT_DRIVER"]
        cls.env = dict(os.environ, PITOT_PYTHON=sys.executable)

    def test_names_params_versions_are_asvs(self):
        benchmarks = os.path.join(SUITE, "benchmarks")
        asv, pitot = asv_view(benchmarks), pitot_view(benchmarks)
        self.assertEqual(len(asv), 11, sorted(asv))
        self.assertEqual(sorted(pitot), sorted(asv))
        for name in asv:
            self.assertEqual(pitot[name], asv[name], name)
        # Spot checks of what the equality covers.
        self.assertIn("nested.bench_text.Case.time_format", pitot)
        self.assertEqual(pitot["nested.bench_text.Case.time_format"]["params"], [["True", "False"], ["None", "1.5"]])
        self.assertEqual(pitot["bench_lists.Sizes.track_length"]["unit"], "floats")
        self.assertEqual(pitot["bench_lists.Sizes.peakmem_list"]["type"], "peakmemory")

    def test_a_changed_method_changes_its_version_as_asv(self):
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "s")
            shutil.copytree(SUITE, copy)
            benchmarks = os.path.join(copy, "benchmarks")
            before = pitot_view(benchmarks)
            path = os.path.join(benchmarks, "bench_lists.py")
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace("        min(self.data)\n", "        min(self.data, default=0)\n"))
            after, asv = pitot_view(benchmarks), asv_view(benchmarks)
        changed = sorted(k for k in after if after[k]["version"] != before[k]["version"])
        self.assertEqual(changed, ["bench_lists.TimeSort.time_min"])
        self.assertEqual(after["bench_lists.TimeSort.time_min"]["version"], asv["bench_lists.TimeSort.time_min"]["version"])

    def test_pitot_list_shows_asvs_names(self):
        p = run([self.driver, "list", os.path.join(SUITE, "asv.conf.json")], env=self.env, check_rc=0)
        for name in asv_view(os.path.join(SUITE, "benchmarks")):
            self.assertIn(name, p.stdout)

    def test_asv_then_pitot_one_graph_per_benchmark(self):
        self.asv_then_pitot({}, ["--python=same"])

    def test_history_of_asvs_own_virtualenv_goes_on(self):
        """asv's usual setup: it makes a virtualenv per Python version and matrix entry, and its
        rows carry `python` as the version and each requirement. pitot runs in its own
        interpreter and writes those params, so the history goes on in the same graphs."""
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        p = self.asv_then_pitot({"environment_type": "virtualenv", "pythons": [version],
                                 "matrix": {"req": {"pympler": [""]}},  # asv's mem_ needs it in its env
                                 "build_command": [], "install_command": [], "uninstall_command": []}, [])
        self.assertNotIn("note:", p.stderr)  # the params are asv's, nothing to say

    def asv_then_pitot(self, conf, asv_args):
        """The real asv records the first commit (asv.conf.json updated with `conf`), pitot run
        the second; both results files and asv publish's graphs are checked. Returns pitot's run."""
        with tempfile.TemporaryDirectory() as d:
            repo = os.path.join(d, "suite")
            shutil.copytree(SUITE, repo)
            conf_path = os.path.join(repo, "asv.conf.json")
            with open(conf_path) as f:
                lines = f.read().splitlines(keepends=True)
            comments = [line for line in lines if line.startswith("//")]  # asv reads json5; kept
            whole = dict(json.loads("".join(line for line in lines if line not in comments)), **conf)
            with open(conf_path, "w") as f:
                f.write("".join(comments) + json.dumps(whole, indent=4) + "\n")
            first = new_repo(repo)
            env = dict(self.env, HOME=os.path.join(d, "home"))  # asv's ~/.asv-machine.json
            os.makedirs(env["HOME"])
            asv = [sys.executable, "-m", "asv"]
            run(asv + ["machine", "--yes"], cwd=repo, env=env, check_rc=0)
            machine = [k for k in load(os.path.join(env["HOME"], ".asv-machine.json")) if k != "version"][0]
            run(asv + ["run", *asv_args, "--quick", "--set-commit-hash", first], cwd=repo, env=env, check_rc=0)
            with open(os.path.join(repo, "README"), "w") as f:
                f.write("the next commit\n")
            git(repo, "add", "README")
            git(repo, "commit", "-q", "-m", "two")
            second = git(repo, "rev-parse", "HEAD")
            p = run([self.driver, "run", "asv.conf.json", "--machine", machine, *FAST, "--progress", "plain",
                     "--json", os.path.join(d, "run.json")], cwd=repo, env=env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

            results = os.path.join(repo, "results", machine)
            files = sorted(f for f in os.listdir(results) if f != "machine.json")
            self.assertEqual(len(files), 2, files)
            by_commit = {f[:8]: load(os.path.join(results, f)) for f in files}
            asv_run, pitot_run = by_commit[first[:8]], by_commit[second[:8]]
            self.assertEqual(files[[f[:8] for f in files].index(second[:8])],
                             f"{second[:8]}-python{sys.version_info[0]}.{sys.version_info[1]}.json")
            self.assertEqual(sorted(pitot_run["results"]), sorted(asv_run["results"]))
            self.assertEqual(pitot_run["params"], asv_run["params"])  # one graph line, not two
            for name, row in asv_run["results"].items():
                self.assertEqual(pitot_run["results"][name][1:3], row[1:3], name)  # params and version

            run(asv + ["publish"], cwd=repo, env=env, check_rc=0)
            graphs = {}
            for folder, _, names in os.walk(os.path.join(repo, "html", "graphs")):
                if "summary" in folder.split(os.sep):
                    continue
                for f in names:
                    if f != "summary.json":  # asv's own, beside the benchmarks' graphs
                        graphs.setdefault(f[:-len(".json")], []).append(os.path.join(folder, f))
            benchmarks = [k for k in load(os.path.join(repo, "results", "benchmarks.json")) if k != "version"]
            self.assertEqual(sorted(graphs), sorted(benchmarks))
            for name in benchmarks:
                self.assertEqual(len(graphs[name]), 1, (name, graphs[name]))  # one line of history
                points = load(graphs[name][0])
                self.assertEqual(len(points), 2, (name, points))  # both commits on it
                self.assertTrue(all(v is not None for _, v in points), (name, points))
        return p

    def test_kinds_measure_what_asv_measures(self):
        from pympler.asizeof import asizeof
        import random
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            run([self.driver, "run", os.path.join(SUITE, "benchmarks"), "--no-asv", *FAST, "--json", out,
                 "--progress", "plain"], env=self.env, check_rc=0)
            points = points_of(out)
        self.assertEqual(len(points), 25)
        track = points["Sizes.track_length[n=100]"]
        self.assertEqual((track["samples"], track["unit"], track["backend"]), ([100.0], "floats", "value"))
        self.assertEqual(points["Lookup.track_entries[kind='hit']"]["samples"], [500.0])  # setup_cache's table
        rng = random.Random(1)
        data = [rng.random() for _ in range(10)]
        self.assertEqual(points["Sizes.mem_list[n=10]"]["samples"],
                         [float(asizeof([data, list(data)]) - asizeof([data, data]))])
        self.assertEqual(points["Sizes.mem_list[n=10]"]["unit"], "bytes")
        peak = points["Sizes.peakmem_list[n=100]"]["samples"]
        self.assertEqual(len(peak), 1)
        self.assertGreater(peak[0], 5e6)  # a whole interpreter's resident memory
        skipped = points["TimeSort.time_min[n=1000,order='sorted']"]
        self.assertEqual(skipped["status"], "skipped")
        self.assertIn("NotImplementedError: sorted input of 1000", skipped["reason"])
        raw = points["timeraw_import_json"]
        self.assertEqual(raw["status"], "ok")
        self.assertGreater(min(raw["samples"]), 1e-3)  # a fresh interpreter per sample

    def test_timing_attributes(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench_attrs.py")
            with open(path, "w") as f:
                f.write("class Counted:\n"
                        "    repeat = 3\n"
                        "    number = 7\n"
                        "    warmup_time = 0\n"
                        "    def time_noop(self):\n"
                        "        pass\n"
                        "class Limited:\n"
                        "    repeat = (1, 4, 10.0)\n"
                        "    def time_noop(self):\n"
                        "        pass\n"
                        "class Long:\n"
                        "    warmup_time = 0.3\n"
                        "    sample_time = 0.004\n"
                        "    timeout = 12\n"
                        "    def time_noop(self):\n"
                        "        pass\n")
            out = os.path.join(d, "out.json")
            run([sys.executable, "-m", "pitot", path, "--json", out, "--quiet", "--max-time", "0.1", "--warmup", "0"],
                check_rc=0)
            points = points_of(out)
            listed = json.loads(run([sys.executable, "-m", "pitot", path, "--list", "--json", "-"], check_rc=0).stdout)
        counted = points["Counted.time_noop"]
        self.assertEqual((len(counted["samples"]), counted["number"], counted["stop_reason"]), (3, 7, "samples"))
        self.assertLessEqual(len(points["Limited.time_noop"]["samples"]), 4)
        long = points["Long.time_noop"]
        self.assertGreaterEqual(long["duration"], 0.3)  # warmup_time, not --warmup 0
        # Each sample lasts about sample_time (4 ms), not pitot's 100 us.
        self.assertGreaterEqual(long["number"] * long["stats"]["min"], 0.003)
        self.assertEqual([b["timeout"] for b in listed["benchmarks"] if b["name"] == "Long.time_noop"], [12])

    def test_a_broken_module_costs_only_its_points(self):
        """Issue 32: a module that raises on import and one with a syntax error, beside the suite's
        good modules. `pitot run path/asv.conf.json`, started outside any git repository, writes
        the good modules' rows where the config says under its repo's commit, names the two in
        --json and on stderr, exits 1; the real asv publishes the results."""
        with tempfile.TemporaryDirectory() as d:
            repo = os.path.join(d, "suite")
            shutil.copytree(SUITE, repo)
            with open(os.path.join(repo, "benchmarks", "bench_raises.py"), "w") as f:
                f.write("import not_an_installed_dependency  # noqa: F401\n\n\ndef time_never():\n    pass\n")
            with open(os.path.join(repo, "benchmarks", "bench_syntax.py"), "w") as f:
                f.write("def time_x(:\n    pass\n")
            commit = new_repo(repo)
            elsewhere = os.path.join(d, "elsewhere")  # no git repository here nor above (a temporary folder)
            os.makedirs(elsewhere)
            out = os.path.join(d, "run.json")
            p = run([self.driver, "run", os.path.join("..", "suite", "asv.conf.json"), "--machine", "testbox", *FAST,
                     "--progress", "plain", "--json", out], cwd=elsewhere, env=self.env)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            doc = load(out)
            failed = {f["program"]: f for f in doc["programs_failed"]}
            self.assertEqual(sorted(failed), ["bench_raises", "bench_syntax"], doc["programs_failed"])
            self.assertIn("ModuleNotFoundError", failed["bench_raises"]["reason"])
            self.assertIn("SyntaxError", failed["bench_syntax"]["reason"])
            self.assertTrue(failed["bench_syntax"]["path"].endswith(os.path.join("benchmarks", "bench_syntax.py")))
            said = [line for line in p.stderr.splitlines() if "FAILED" in line]
            self.assertEqual(len(said), 2, p.stderr)
            self.assertTrue(any("bench_raises.py" in line for line in said), said)
            self.assertTrue(any("bench_syntax.py" in line for line in said), said)
            self.assertEqual(len(doc["points"]), 25)
            self.assertFalse([pt["name"] for pt in doc["points"] if pt["status"] == "failed"])
            results = os.path.join(repo, "results", "testbox")
            files = [f for f in os.listdir(results) if f != "machine.json"]
            self.assertEqual(len(files), 1, files)
            self.assertTrue(files[0].startswith(commit[:8]), files)
            rows = load(os.path.join(results, files[0]))["results"]
            self.assertEqual(sorted(rows), sorted(asv_view(os.path.join(SUITE, "benchmarks"))))
            self.assertEqual(os.listdir(elsewhere), [])  # nothing written where it started
            run([sys.executable, "-m", "asv", "publish"], cwd=repo, env=dict(self.env, HOME=d), check_rc=0)
            self.assertTrue(os.path.isfile(os.path.join(repo, "html", "graphs", "summary", "bench_lists.Sizes.track_length.json")))

    def test_a_config_given_is_the_config_used(self):
        """Issue 32: `pitot run path/asv.conf.json` started in another git repository writes where
        that config says, under its repo's commit; two different configs are refused."""
        with tempfile.TemporaryDirectory() as d:
            repo = os.path.join(d, "suite")
            shutil.copytree(SUITE, repo)
            commit = new_repo(repo)
            other = os.path.join(d, "other")
            os.makedirs(other)
            with open(os.path.join(other, "README"), "w") as f:
                f.write("another project\n")
            new_repo(other)
            conf = os.path.join(repo, "asv.conf.json")
            p = run([self.driver, "run", conf, "--machine", "testbox", "--filter", "track_length", *FAST], cwd=other,
                    env=self.env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            files = [f for f in os.listdir(os.path.join(repo, "results", "testbox")) if f != "machine.json"]
            self.assertEqual(len(files), 1, files)
            self.assertTrue(files[0].startswith(commit[:8]), files)
            self.assertFalse(os.path.exists(os.path.join(other, "asv-results")))
            # --config naming the same file (or its folder) is the same config.
            p = run([self.driver, "run", conf, "--config", repo, "--machine", "testbox", "--filter", "track_length",
                     *FAST], cwd=other, env=self.env, check_rc=0)
            second = os.path.join(d, "second.json")
            shutil.copy(conf, second)
            for extra in ([second], ["--config", second]):
                p = run([self.driver, "run", conf, *extra, "--machine", "testbox"], cwd=other, env=self.env, check_rc=2)
                self.assertIn("second.json", p.stderr)
                self.assertIn("one", p.stderr)

    def test_bad_inputs_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            conf = os.path.join(d, "asv.conf.json")
            with open(conf, "w") as f:
                json.dump({"version": 1, "benchmark_dir": "nowhere"}, f)
            p = run([self.driver, "run", conf, "--no-asv"], env=self.env, check_rc=2)
            self.assertIn("benchmark_dir", p.stderr)
            os.makedirs(os.path.join(d, "empty"))
            p = run([self.driver, "run", os.path.join(d, "empty"), "--no-asv"], env=self.env, check_rc=2)
            self.assertIn("no Python module", p.stderr)
            broken = os.path.join(d, "bench_broken.py")
            with open(broken, "w") as f:
                f.write("def time_x(:\n")
            p = run([self.driver, "run", broken, "--no-asv"], env=self.env, check_rc=2)
            self.assertIn("SyntaxError", p.stderr)
            p = run([sys.executable, "-m", "pitot", broken, "--list"], check_rc=2)
            self.assertIn("cannot import", p.stderr)
            p = run([sys.executable, "-m", "pitot", os.path.join(d, "missing.py")], check_rc=2)
            self.assertIn("no such file", p.stderr)


class ReturnedSeconds(unittest.TestCase):
    def test_returned_seconds_are_the_samples(self):
        with tempfile.TemporaryDirectory() as d:
            log, out = os.path.join(d, "log"), os.path.join(d, "out.json")
            env = dict(os.environ, PITOT_PYTHON=sys.executable, PITOT_TEST_LOG=log)
            run([os.environ["PITOT_DRIVER"], "run", RETURNS, "--no-asv", *FAST, "--json", out, "--progress", "plain"],
                env=env, check_rc=0)
            points = points_of(out)
            with open(log) as f:
                lines = [line.split() for line in f]
        self.assertEqual(sorted(points), ["BenchClocked.time_forward[scale=1]", "BenchClocked.time_forward[scale=3]"])
        for scale in (1, 3):
            point = points[f"BenchClocked.time_forward[scale={scale}]"]
            returned = [float(v) for name, v in lines if name == f"forward-{scale}"]
            self.assertEqual(point["backend"], "manual")
            self.assertGreaterEqual(len(point["samples"]), 5)
            # Every sample is a returned value, in order, the last calls of the point (warm-up and
            # the one call that found the function returns seconds come before them).
            self.assertEqual(point["samples"], returned[-len(point["samples"]):])
            self.assertEqual(point["number"], 1)

    def test_main_block_never_runs(self):
        # Run as a script the file fails in its __main__ block (the suite's runner is not here) ...
        p = run([sys.executable, RETURNS], env=dict(os.environ, PITOT_TEST_LOG=os.devnull))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("No module named 'driver'", p.stderr)
        # ... imported, it lists its benchmark under asv's name.
        doc = json.loads(run([sys.executable, "-m", "pitot", RETURNS, "--list", "--json", "-"], check_rc=0).stdout)
        self.assertEqual(doc["program"], "bench_returns_seconds")
        self.assertEqual([b["name"] for b in doc["benchmarks"]], ["BenchClocked.time_forward"])

    def test_device_timing_skips_the_methods_waits(self):
        """Opted in to the device clock, a self-timed method's waits on its events return at once
        while pitot times it (so its launches queue behind pitot's blocker), and only then."""
        import types
        from pitot import _asv

        calls = []

        class EventBase:
            def query(self):
                calls.append("query")
                return False

        class Event(EventBase):  # torch.cuda.Event: synchronize and elapsed_time of its own
            def synchronize(self):
                calls.append("synchronize")

            def elapsed_time(self, end):
                calls.append("elapsed_time")
                return 7.0

        def synchronize(device=None):
            calls.append("cuda.synchronize")

        torch = types.ModuleType("torch")
        torch.cuda = types.SimpleNamespace(Event=Event, synchronize=synchronize, Stream=int)  # no Stream.synchronize: left alone
        saved = sys.modules.get("torch")
        sys.modules["torch"] = torch
        try:
            def self_timed():
                start, end = Event(), Event()
                torch.cuda.synchronize()
                end.synchronize()
                return start.elapsed_time(end), end.query()

            self.assertEqual(self_timed(), (7.0, False))
            self.assertEqual(calls, ["cuda.synchronize", "synchronize", "elapsed_time", "query"])
            calls.clear()
            with _asv.host_waits_skipped():
                self.assertEqual(self_timed(), (0.0, True))
            self.assertEqual(calls, [])
            self.assertEqual(self_timed(), (7.0, False))  # restored, the inherited query too
            self.assertNotIn("query", Event.__dict__)
            self.assertEqual(calls, ["cuda.synchronize", "synchronize", "elapsed_time", "query"])
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved


if __name__ == "__main__":
    unittest.main(verbosity=2)

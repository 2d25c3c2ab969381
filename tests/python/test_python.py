"""Benchmarks written in Python, on pitot's engine (python/): both styles of definition, the
program's command line and exit codes, and `pitot run` on a Python file writing an asv database
that the real asv loads. Run by python_tests.sh with the interpreter pitot was pip-installed into.

Environment: PITOT_DRIVER (the pitot executable), PITOT_ASV_CHECK (scripts/asv-check),
PITOT_ASV_PYTHON (the interpreter that runs asv-check).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
STYLES = os.path.join(HERE, "bench_styles.py")
PLAIN = os.path.join(HERE, "bench_asv_plain.py")
FAST = ["--max-time", "0.02", "--min-time", "0.005", "--warmup", "0", "--quiet"]


def tracks(point):
    return [t["name"] for t in point.get("tracks", [])]


def load(path):
    with open(path) as f:
        return json.load(f)


def track_table():
    """The one table of tracks, name -> unit, as src/core/tracks.hpp and tracks.cpp spell it."""
    core = os.path.join(HERE, "..", "..", "src", "core")
    with open(os.path.join(core, "tracks.hpp")) as f:
        names = dict(re.findall(r'inline constexpr std::string_view (k\w+) = "([^"]+)";', f.read()))
    with open(os.path.join(core, "tracks.cpp")) as f:
        units = re.findall(r'TrackKind\{track::(k\w+), "([^"]*)"', f.read())
    return {names[k]: unit for k, unit in units}


def run(args, cwd=None, env=None, check_rc=None):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check_rc is not None and p.returncode != check_rc:
        raise AssertionError(f"{args} exited {p.returncode}, expected {check_rc}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def git_repo(path):
    os.makedirs(path, exist_ok=True)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid")
    subprocess.run(["git", "init", "-q", path], check=True)
    subprocess.run(["git", "-C", path, "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    subprocess.run(["git", "-C", path, "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", "one"],
                   check=True, env=env)
    return subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


class Program(unittest.TestCase):
    """A Python file run as a program: the C++ programs' flags and exit codes."""

    def test_module_is_the_engine(self):
        import pitot
        import pitot._engine as engine
        self.assertTrue(engine.__file__.endswith(".so"), engine.__file__)
        self.assertIsInstance(pitot.has_cuda, bool)

    def test_list_json(self):
        p = run([sys.executable, STYLES, "--list", "--json", "-"], check_rc=0)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["program"], "bench_styles")
        names = [b["name"] for b in doc["benchmarks"]]
        # asv's names for asv's classes (Class.method), asv's reprs for their params.
        self.assertEqual(names, ["sort_floats", "scaled_sum", "divide_by_zero", "Lists.time_max", "Lists.time_sum"])
        scaled = doc["benchmarks"][1]
        self.assertEqual([(a["name"], a["kind"]) for a in scaled["axes"]],
                         [("n", "pow2"), ("alpha", "float"), ("dtype", "string")])
        self.assertEqual(scaled["axes"][0]["values"], [16, 64])
        self.assertEqual(scaled["axes"][2]["values"], ["<class 'int'>", "<class 'float'>"])
        self.assertEqual(scaled["version"], "3")
        self.assertEqual(scaled["timeout"], 30)
        self.assertEqual(doc["benchmarks"][3]["timeout"], 20)
        self.assertEqual(doc["benchmarks"][3]["axes"][1]["values"], ["'list'", "'tuple'"])
        self.assertEqual(doc["benchmarks"][3]["axes"][0]["values"], ["100", "1000"])
        self.assertEqual(len(doc["points"]), 4 + 8 + 1 + 4 + 4)
        self.assertEqual(doc["points"][0]["name"], "sort_floats[n=200,order=random]")
        self.assertTrue(doc["build"]["env_build_type"].startswith("python3."), doc["build"])

    def test_run_both_styles(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            # divide_by_zero fails: exit 1, every other point still reported.
            run([sys.executable, STYLES, *FAST, "--json", out], check_rc=1)
            points = {p["name"]: p for p in load(out)["points"]}
        self.assertEqual(len(points), 21)
        ok = points["sort_floats[n=2000,order=sorted]"]
        self.assertEqual(ok["status"], "ok")
        self.assertEqual(ok["backend"], "cpu")
        self.assertGreater(len(ok["samples"]), 0)
        self.assertIn("items_per_second", tracks(ok))
        self.assertEqual(points["scaled_sum[n=2^4,alpha=2.0,dtype=<class 'int'>]"]["status"], "skipped")
        self.assertEqual(points["scaled_sum[n=2^4,alpha=2.0,dtype=<class 'int'>]"]["reason"], "alpha=2 is not written yet")
        self.assertIn("tflops", tracks(points["scaled_sum[n=2^6,alpha=0.5,dtype=<class 'float'>]"]))
        failed = points["divide_by_zero"]
        self.assertEqual(failed["status"], "failed")
        self.assertEqual(failed["reason"], "ZeroDivisionError: division by zero")
        # asv style: setup's NotImplementedError skips, work_* gives the counters.
        skipped = points["Lists.time_sum[n=1000,container='tuple']"]
        self.assertEqual(skipped["status"], "skipped")
        self.assertIn("NotImplementedError: tuples of 1000", skipped["reason"])
        sums = points["Lists.time_sum[n=1000,container='list']"]
        self.assertEqual(sums["status"], "ok")
        self.assertIn("gbytes_per_second", tracks(sums))
        self.assertIn("tflops", tracks(sums))
        self.assertNotIn("tflops", tracks(points["Lists.time_max[n=1000,container='list']"]))

    def test_tracks_are_the_table_of_core(self):
        """The package's tracks are the engine's, with the names and units of src/core/tracks.hpp."""
        table = track_table()
        self.assertIn("items_per_second", table)
        self.assertEqual(table["gbytes_per_second"], "GB/s")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            run([sys.executable, STYLES, *FAST, "--filter", "sort_floats|scaled_sum|Lists", "--json", out], check_rc=0)
            seen = {(t["name"], t["unit"]) for p in load(out)["points"] for t in p.get("tracks", [])}
        self.assertEqual({n for n, _ in seen}, {"items_per_second", "tflops", "gbytes_per_second"})
        for name, unit in seen:
            self.assertEqual(table.get(name), unit, f"track {name} ({unit}) is not in core's table as such")

    def test_filter_axis_and_exit_codes(self):
        p = run([sys.executable, STYLES, *FAST, "--filter", "^sort_floats", "--axis", "sort_floats:n=50", "--json", "-"],
                check_rc=0)
        names = sorted(p["name"] for p in json.loads(p.stdout[p.stdout.index("{"):])["points"])
        self.assertEqual(names, ["sort_floats[n=50,order=random]", "sort_floats[n=50,order=sorted]"])
        bad = run([sys.executable, STYLES, "--no-such-flag"], check_rc=2)
        self.assertIn("--no-such-flag", bad.stderr)
        none = run([sys.executable, STYLES, "--filter", "nothing-matches"], check_rc=2)
        self.assertIn("no point matches", none.stderr)
        run([sys.executable, STYLES, "--axis", "n=not-a-number", "--list"], check_rc=2)
        run([sys.executable, STYLES, "--help"], check_rc=0)

    def test_processes_runs_the_file_again(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            run([sys.executable, STYLES, *FAST, "--filter", r"^sort_floats\[n=200,order=sorted", "--processes", "2",
                 "--json", out], check_rc=0)
            (point,) = load(out)["points"]
        self.assertEqual(len(point["process_medians"]), 2)

    def test_plain_asv_module_with_python_m_pitot(self):
        p = run([sys.executable, "-m", "pitot", PLAIN, "--list", "--json", "-"], check_rc=0)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["program"], "bench_asv_plain")
        self.assertEqual([b["name"] for b in doc["benchmarks"]], ["TimeDict.time_keys", "time_range_sum"])
        self.assertEqual(doc["benchmarks"][0]["axes"][0]["name"], "size")
        run([sys.executable, "-m", "pitot", PLAIN, *FAST], check_rc=0)

    def test_registration_errors_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bench_bad.py")
            with open(bad, "w") as f:
                f.write("import pitot\n"
                        "@pitot.benchmark(axes={'n': []})\n"
                        "def empty_axis(state):\n    pass\n"
                        "@pitot.benchmark(name='fn.tflops')\n"
                        "def dotted(state):\n    pass\n"
                        "pitot.main()\n")
            p = run([sys.executable, bad, "--list"], check_rc=2)
        self.assertIn("axis 'n' has no values", p.stderr)
        # A '.' is allowed (asv's Class.method), but not before a track's name: fn's tflops track.
        self.assertIn("'fn.tflops' has a '.' before 'tflops'", p.stderr)

    def test_gpu_benchmark_without_gpu_is_skipped_with_reason(self):
        import pitot
        if pitot.has_cuda and os.path.exists("/dev/nvidia0"):
            self.skipTest("a GPU is here: this checks the machine without one")
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "bench_gpu.py")
            with open(f, "w") as out:
                out.write("import pitot\n"
                          "@pitot.benchmark(axes={'n': [1, 2]}, device='cuda')\n"
                          "def launch(state):\n    state.exec(lambda: None)\n"
                          "pitot.main()\n")
            p = run([sys.executable, f, *FAST, "--json", "-"], check_rc=0 if pitot.has_cuda else 1)
        points = json.loads(p.stdout[p.stdout.index("{"):])["points"]
        if pitot.has_cuda:  # the program skips GPU points, saying why, as a C++ program does
            self.assertEqual({q["status"] for q in points}, {"skipped"})
        else:
            self.assertEqual({q["status"] for q in points}, {"failed"})
            self.assertIn("without its CUDA backend", points[0]["reason"])


class ReadmeExample(unittest.TestCase):
    """README.md's "Benchmarks in Python" example, extracted as tests/docs does, runs as written."""

    def test_readme_example(self):
        root = os.path.dirname(os.path.dirname(HERE))
        with tempfile.TemporaryDirectory() as d:
            run([sys.executable, os.path.join(root, "tests", "docs", "extract_blocks.py"),
                 os.path.join(root, "README.md"), d], check_rc=0)
            example = os.path.join(d, "bench_sort.py")
            self.assertTrue(os.path.isfile(example), "README lost its tagged Python example")
            listed = json.loads(run([sys.executable, example, "--list", "--json", "-"], check_rc=0).stdout)
            self.assertEqual([b["name"] for b in listed["benchmarks"]], ["sort_floats", "Sums.time_sum"])
            p = run([sys.executable, example, *FAST, "--axis", "n=1000", "--json", "-"], check_rc=0)
            points = json.loads(p.stdout[p.stdout.index("{"):])["points"]
        self.assertEqual({q["status"] for q in points}, {"ok"})
        self.assertEqual(len(points), 3)


class ExampleSuite(unittest.TestCase):
    """benchmarks/python: every file lists its grid, and without torch or a GPU skips with why."""

    def test_suite_files_list_and_skip_cleanly(self):
        folder = os.path.join(os.path.dirname(os.path.dirname(HERE)), "benchmarks", "python")
        files = sorted(f for f in os.listdir(folder) if f.startswith("bench_") and f.endswith(".py"))
        self.assertEqual(files, ["bench_torch_attention.py", "bench_torch_cast.py", "bench_torch_copy.py",
                                 "bench_torch_gemm.py", "bench_torch_norm.py"])
        counts = {}
        for f in files:
            path = os.path.join(folder, f)
            doc = json.loads(run([sys.executable, path, "--list", "--json", "-"], check_rc=0).stdout)
            counts[f] = len(doc["points"])
            try:
                import torch  # noqa: F401
                has_torch = True
            except ImportError:
                has_torch = False
            if has_torch:
                continue
            p = run([sys.executable, path, *FAST, "--points", "0", "--json", "-"], check_rc=0)
            (point,) = json.loads(p.stdout[p.stdout.index("{"):])["points"]
            self.assertEqual(point["status"], "skipped", point)
        # The transformer grid: bench_gemm's shapes (4 models x tp 1, 8 x 4 layers x 2 M x 2 passes).
        self.assertEqual(counts["bench_torch_gemm.py"], 2 * 4 * 2 * 4 * 2 * 2)
        self.assertEqual(counts["bench_torch_copy.py"], 6)

        # The folder as one input: its files import their siblings (`import shapes`), as they do
        # when named one by one (on the H200 `pitot list benchmarks/python` failed on that).
        p = run([os.environ["PITOT_DRIVER"], "list", folder, "--json"], env=dict(os.environ, PITOT_PYTHON=sys.executable),
                check_rc=0)
        listed = json.loads(p.stdout)
        self.assertEqual(sum(len(prog["points"]) for prog in listed["programs"]), sum(counts.values()), p.stdout[:2000])


class Driver(unittest.TestCase):
    """`pitot run` on a Python file, next to the asv database the real asv reads."""

    def test_pitot_run_python_file_into_asv(self):
        driver = os.environ["PITOT_DRIVER"]
        with tempfile.TemporaryDirectory() as d:
            repo = os.path.join(d, "repo")
            commit = git_repo(repo)
            with open(os.path.join(d, "asv.conf.json"), "w") as f:
                json.dump({"version": 1, "project": "py", "project_url": "https://example.invalid/py",
                           "show_commit_url": "https://example.invalid/py/commit/", "repo": "repo", "dvcs": "git",
                           "branches": ["main"], "environment_type": "existing", "results_dir": "results",
                           "html_dir": "html"}, f)
            env = dict(os.environ, PITOT_PYTHON=sys.executable)
            out = os.path.join(d, "run.json")
            p = run([driver, "run", STYLES, "--asv-dir", os.path.join(d, "results"), "--machine", "pybox",
                     "--max-time", "0.02", "--min-time", "0.005", "--warmup", "0", "--json", out,
                     "--progress", "plain"], cwd=repo, env=env)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # divide_by_zero fails, the rest runs
            points = {q["name"]: q for q in load(out)["points"]}
            self.assertEqual(len(points), 21)
            self.assertEqual(points["divide_by_zero"]["status"], "failed")
            self.assertEqual(points["Lists.time_sum[n=100,container='list']"]["status"], "ok")
            machine = os.path.join(d, "results", "pybox")
            files = [f for f in os.listdir(machine) if f.startswith(commit[:8])]
            self.assertEqual(len(files), 1, os.listdir(machine))
            # The env names the interpreter only: not the compiler, CUDA or HIP pitot was built with.
            self.assertEqual(files[0], f"{commit[:8]}-python{sys.version_info[0]}.{sys.version_info[1]}.json")
            result = load(os.path.join(machine, files[0]))
            self.assertIn("bench_styles.sort_floats", result["results"])
            self.assertIn("bench_styles.Lists.time_sum", result["results"])
            # asv's `python` parameter: the interpreter's path, as asv records an existing env.
            self.assertEqual(result["params"]["python"], os.path.abspath(sys.executable))
            self.assertEqual(result["python"], os.path.abspath(sys.executable))
            self.assertNotIn("compiler", result["params"])
            # A Python file that is not there, and one that is not a pitot program: input errors.
            run([driver, "run", os.path.join(d, "missing.py"), "--no-asv"], cwd=repo, env=env, check_rc=2)
            check = run([os.environ.get("PITOT_ASV_PYTHON", "python3"), os.environ["PITOT_ASV_CHECK"], "--strict", d],
                        cwd=d)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

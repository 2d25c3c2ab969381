"""Python submissions to a Python problem (python/pitot/_problem.py over the C++ harness), CPU:
`pitot run bench_problems.py --untrusted --json FILE` (the driver's cross-check applies) accepts
the honest submission with every timed call checked and refuses each attack with the harness's
reason; an exception in a submission fails only its point, and a broken reference says so.

Environment: PITOT_DRIVER (the pitot executable).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "bench_problems.py")


class PythonSubmissions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "results.json")
            args = [os.environ["PITOT_DRIVER"], "run", BENCH, "--untrusted", "--no-asv", "--json", out,
                    "--max-time", "0.2"]
            cls.proc = subprocess.run(args, capture_output=True, text=True, timeout=300,
                                      env=dict(os.environ, PITOT_PYTHON=sys.executable), cwd=d)
            with open(out) as f:
                cls.doc = json.load(f)
        cls.points = {p["name"]: p for p in cls.doc["points"]}

    def point(self, name):
        self.assertIn(name, self.points, f"{name} not run; stderr:\n{self.proc.stderr[-3000:]}")
        return self.points[name]

    def refused(self, name, *texts):
        p = self.point(name)
        self.assertEqual(p["status"], "failed", p)
        reason = p.get("reason", "")
        self.assertTrue(any(t in reason for t in texts), f"{name}: {reason!r} has none of {texts}")
        return reason

    def test_exit_code_says_some_failed(self):
        self.assertEqual(self.proc.returncode, 1, self.proc.stderr[-3000:])

    def test_honest_accepted_every_call_checked(self):
        for n in (64, 256):
            p = self.point(f"honest[n={n}]")
            self.assertEqual(p["status"], "ok", p)
            info = p["backend_info"]["problem"]
            self.assertEqual(info["name"], "fma")
            self.assertEqual([b["name"] for b in info["inputs"]], ["a", "b"])
            timed = p["number"] * len(p["samples"])  # calls per sample x samples, warm-up aside
            self.assertGreaterEqual(info["calls_checked"], timed, info)
            self.assertGreater(info["calls_checked"], 0)

    def test_cached_by_input_refused(self):
        for n in (64, 256):
            self.refused(f"cached_by_input[n={n}]", "untrusted: wrong output")

    def test_work_skipped_after_three_calls_refused(self):
        for n in (64, 256):
            self.refused(f"lazy_after_3[n={n}]", "untrusted: output not written", "untrusted: wrong output")

    def test_jitter_within_tolerance_refused_when_deterministic(self):
        for n in (64, 256):
            self.refused(f"jittery[n={n}]", "untrusted: non-deterministic output")

    def test_exception_fails_only_its_point(self):
        self.assertEqual(self.point("raises[n=64]")["status"], "ok")
        self.assertEqual(self.refused("raises[n=256]", "ValueError"), "ValueError: no kernel for n > 64")

    def test_views_released_after_their_call(self):
        self.assertEqual(self.point("reads_kept_view[n=64]")["status"], "ok", self.point("reads_kept_view[n=64]"))

    def test_reference_raising_says_so(self):
        reason = self.refused("broken_reference[n=64]", "reference raised")
        self.assertIn("problem fma_broken: its reference raised KeyError", reason)


class AnotherThread(unittest.TestCase):
    """Each point's checker is forked while another Python thread is busy: before the harness
    took the GIL around the fork, the checker waited for a GIL no thread of its would give back,
    and the point hung until its timeout (20 s here)."""

    def test_checker_forked_beside_a_busy_thread(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "results.json")
            p = subprocess.run([os.environ["PITOT_DRIVER"], "run", os.path.join(HERE, "bench_problems_thread.py"),
                                "--untrusted", "--no-asv", "--json", out, "--max-time", "0.1", "--timeout", "20"],
                               capture_output=True, text=True, timeout=200,
                               env=dict(os.environ, PITOT_PYTHON=sys.executable), cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            with open(out) as f:
                points = json.load(f)["points"]
        self.assertEqual([(q["name"], q["status"], q.get("reason", "")) for q in points],
                         [(f"honest_beside_a_thread[n={n}]", "ok", "") for n in (64, 128, 192, 256)])


class ProgramCommandLine(unittest.TestCase):
    """`python -m pitot FILE` takes --untrusted as `pitot run` does; without it the checks still
    run and the reasons start `problem: `."""

    def run_program(self, *extra):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            p = subprocess.run([sys.executable, "-m", "pitot", BENCH, "--filter", "honest|cached", "--json", out,
                                "--max-time", "0.1", "--quiet", *extra], capture_output=True, text=True, timeout=120)
            with open(out) as f:
                return p, {q["name"]: q for q in json.load(f)["points"]}

    def test_untrusted(self):
        p, points = self.run_program("--untrusted")
        self.assertEqual(p.returncode, 1, p.stderr[-2000:])
        self.assertEqual(points["honest[n=64]"]["status"], "ok")
        self.assertTrue(points["cached_by_input[n=64]"]["reason"].startswith("untrusted: wrong output"))

    def test_trusted_still_checked(self):
        _, points = self.run_program()
        self.assertEqual(points["honest[n=256]"]["status"], "ok")
        self.assertTrue(points["cached_by_input[n=256]"]["reason"].startswith("problem: wrong output"))


class InProcess(unittest.TestCase):
    def test_api(self):
        import pitot
        self.assertTrue(pitot.Tolerance().exact)
        self.assertFalse(pitot.Tolerance(atol=1e-3).exact)
        self.assertTrue(pitot.Tolerance.bit_exact().exact)
        with self.assertRaises(ValueError):
            pitot.Buffer("x", "f16", 4)
        v = pitot.DeviceView(1 << 20, 8, "<f4", 7).__cuda_array_interface__
        self.assertEqual((v["version"], v["shape"], v["stream"], v["data"]), (3, (8,), 7, (1 << 20, False)))


if __name__ == "__main__":
    unittest.main(verbosity=2)

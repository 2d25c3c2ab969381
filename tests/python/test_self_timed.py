"""Self-timed time_* methods (python/pitot/_self_timed.py): pitot sees a method reading CUDA
events and says so once, records which convention timed each point, and `--self-timed device`
(on the program's command line, through `pitot run`, or as "pitot_self_timed" in asv.conf.json)
moves only those methods to the device clock. CPU-only: the stand-in torch of bench_self_timed.py,
and a module without CUDA, where the device clock is refused with its reason (the path taken).

Environment: PITOT_DRIVER (the pitot executable; the driver's tests are skipped without it).
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "bench_self_timed.py")
FAST = ["--max-time", "0.02", "--min-time", "0.005", "--warmup", "0", "--quiet"]
NOTE = "times itself with CUDA events"


def run(args, check_rc=None, env=None, cwd=None):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)
    if check_rc is not None and p.returncode != check_rc:
        raise AssertionError(f"{args} exited {p.returncode}, expected {check_rc}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def by_name(doc):
    return {p["benchmark"].split(".")[-1]: p for p in doc["points"]}


class Decide(unittest.TestCase):
    """One call decides, in-process, with a stand-in torch."""

    def setUp(self):
        from pitot import _self_timed
        self.st = _self_timed
        self.saved_mode, self.saved_torch = _self_timed.mode(), sys.modules.get("torch")
        _self_timed._noted.clear()

        class Event:
            def elapsed_time(self, end):
                return 0.5  # ms

        self.Event = Event
        sys.modules["torch"] = types.SimpleNamespace(cuda=types.SimpleNamespace(Event=Event))

    def tearDown(self):
        self.st.set_mode(self.saved_mode)
        if self.saved_torch is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = self.saved_torch

    def decide(self, call, declared=None):
        ticks = iter([0.0, 1.0])  # the call lasts 1 s
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            got = self.st.decide("S.time_x", call, declared, lambda: next(ticks))
        return got, err.getvalue()

    def test_events_read_are_seen_and_said_once(self):
        events = lambda: self.Event().elapsed_time(self.Event()) / 1e3  # noqa: E731
        (got, err) = self.decide(events)
        self.assertEqual(got, ("returned-seconds", True))
        self.assertIn("S.time_x " + NOTE, err)
        self.assertIn("--self-timed device", err)
        self.assertIn('"pitot_self_timed": "device"', err)
        self.assertEqual(self.decide(events), (("returned-seconds", True), ""))  # once per benchmark
        self.assertEqual(self.Event.__dict__["elapsed_time"](None, None), 0.5)  # restored
        self.st.set_mode("device")
        self.assertEqual(self.decide(events)[0], ("device", True))

    def test_a_deciding_call_reads_its_events_while_another_thread_skips_waits(self):
        """Interleaved points run in threads of their own: one point's deciding call must read its
        events for real while another point's device-timed block skips them (the H200 run that
        found this: three of four norm points went to the host clock)."""
        events = lambda: self.Event().elapsed_time(self.Event()) / 1e3  # noqa: E731
        inside, leave, seen = threading.Event(), threading.Event(), []

        def timed_point():
            with self.st.host_waits_skipped():
                seen.append(events())  # the stand-in: 0.0
                inside.set()
                leave.wait(10)

        other = threading.Thread(target=timed_point)
        other.start()
        self.assertTrue(inside.wait(10))
        self.st.set_mode("device")
        self.assertEqual(self.decide(events)[0], ("device", True))  # 0.5 ms read, not 0.0
        self.assertEqual(events(), 0.5e-3)
        leave.set()
        other.join(10)
        self.assertEqual(seen, [0.0])
        self.assertEqual(self.Event.__dict__["elapsed_time"](None, None), 0.5)  # restored after both

    def test_cpu_methods_keep_their_path_under_the_switch(self):
        self.st.set_mode("device")
        self.assertEqual(self.decide(lambda: 0.25), (("returned-seconds", False), ""))
        self.assertEqual(self.decide(lambda: None), (("host", False), ""))
        self.assertEqual(self.decide(lambda: 0.25, declared=False), (("host", False), ""))
        # Events read but no seconds returned (a method that checks its own time): host clock.
        self.assertEqual(self.decide(lambda: self.Event().elapsed_time(self.Event()) and None)[0], ("host", False))

    def test_option_parsing(self):
        take = self.st.take_option
        self.assertEqual(take(["--json", "x", "--self-timed", "device"]), ("device", ["--json", "x"]))
        self.assertEqual(take(["--self-timed=returned", "--list"]), ("returned", ["--list"]))
        self.assertEqual(take(["--list"]), (None, ["--list"]))
        with self.assertRaises(ValueError):
            take(["--self-timed"])
        with self.assertRaisesRegex(ValueError, "choose returned .* or device"):
            self.st.set_mode("kernel")


@unittest.skipIf(__import__("pitot").has_cuda, "the device path is checked here on a module without CUDA")
class Program(unittest.TestCase):
    """python -m pitot FILE: the note, the recorded convention, and the switch's path."""

    def points(self, *flags, launcher=()):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            p = run([sys.executable, "-m", "pitot", *launcher, BENCH, *FAST, *flags, "--json", out])
            with open(out) as f:
                return p, by_name(json.load(f))

    def test_default_is_returned_seconds_with_a_note(self):
        p, points = self.points()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.count(NOTE), 1, p.stderr)
        self.assertIn("SelfTimed.time_events " + NOTE, p.stderr)
        info = {k: (v["status"], v["backend_info"].get("convention"), v["backend_info"].get("self_timed"))
                for k, v in points.items()}
        self.assertEqual(info, {"time_events": ("ok", "returned-seconds", "cuda-events"),
                                "time_host_seconds": ("ok", "returned-seconds", None),
                                "time_plain": ("ok", "host", None)})

    def test_switch_takes_the_device_path_for_the_events_method_only(self):
        for how in (dict(flags=["--self-timed", "device"]), dict(launcher=["--self-timed", "device"])):
            p, points = self.points(*how.get("flags", []), launcher=how.get("launcher", ()))
            self.assertEqual(p.returncode, 1, p.stderr)  # the device clock is refused here: a failed point
            events = points["time_events"]
            self.assertEqual((events["status"], events["backend_info"]["convention"]), ("failed", "device"))
            self.assertIn("--self-timed device", events["reason"])
            self.assertIn("without its CUDA backend", events["reason"])
            self.assertEqual(points["time_host_seconds"]["backend_info"]["convention"], "returned-seconds")
            self.assertEqual(points["time_host_seconds"]["status"], "ok")
            self.assertEqual(points["time_plain"]["backend_info"]["convention"], "host")

    def test_switch_reaches_each_process(self):
        p, points = self.points("--self-timed", "device", "--processes", "2", "--filter", "time_events")
        self.assertEqual(points["time_events"]["backend_info"]["convention"], "device", p.stderr)

    def test_bad_value_is_refused(self):
        for launcher, flags in (([], ["--self-timed", "kernel"]), (["--self-timed", "kernel"], [])):
            p = run([sys.executable, "-m", "pitot", *launcher, BENCH, *flags, "--list"], check_rc=2)
            self.assertIn("--self-timed 'kernel': choose returned", p.stderr)


@unittest.skipIf(__import__("pitot").has_cuda, "the device path is checked here on a module without CUDA")
@unittest.skipUnless(os.environ.get("PITOT_DRIVER"), "PITOT_DRIVER is not set")
class Driver(unittest.TestCase):
    """pitot run: --self-timed and asv.conf.json's "pitot_self_timed" reach the Python program."""

    def run_suite(self, config_value=None, flags=(), check_rc=None):
        with tempfile.TemporaryDirectory() as d:
            bench = os.path.join(d, "benchmarks")
            os.makedirs(bench)
            with open(BENCH) as src, open(os.path.join(bench, "bench_self_timed.py"), "w") as dst:
                dst.write(src.read())
            conf = {"version": 1, "project": "t", "repo": ".", "benchmark_dir": "benchmarks"}
            if config_value is not None:
                conf["pitot_self_timed"] = config_value
            with open(os.path.join(d, "asv.conf.json"), "w") as f:
                json.dump(conf, f)
            out = os.path.join(d, "out.json")
            p = run([os.environ["PITOT_DRIVER"], "run", "asv.conf.json", "--no-asv", *FAST[:-1], *flags,
                     "--json", out], env=dict(os.environ, PITOT_PYTHON=sys.executable), cwd=d, check_rc=check_rc)
            if not os.path.exists(out):
                return p, None
            with open(out) as f:
                return p, by_name(json.load(f))

    def convention(self, points):
        return points["time_events"]["backend_info"]["convention"]

    def test_default_and_note(self):
        p, points = self.run_suite()
        self.assertEqual(self.convention(points), "returned-seconds")
        self.assertIn(NOTE, p.stderr)  # the driver says what the program saw

    def test_from_the_command_line_and_the_config(self):
        self.assertEqual(self.convention(self.run_suite(flags=["--self-timed", "device"])[1]), "device")
        self.assertEqual(self.convention(self.run_suite(config_value="device")[1]), "device")
        # The command line wins over the config.
        self.assertEqual(self.convention(self.run_suite("device", ["--self-timed", "returned"])[1]), "returned-seconds")

    def test_bad_values_are_refused(self):
        p, _ = self.run_suite(flags=["--self-timed", "kernel"], check_rc=2)
        self.assertIn("--self-timed", p.stderr)
        p, _ = self.run_suite(config_value="kernel", check_rc=2)
        self.assertIn('"pitot_self_timed"', p.stderr)
        self.assertIn("give \"returned\"", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

"""Multi-rank Python benchmarks (issue 36; python/pitot, docs/ranks.md), CPU:
`pitot run bench_ranks.py --ranks 2` runs the multi_rank benchmark in two processes that see their
rank and world size, keeps the slowest rank's sample and names the straggler; run alone (one
process) the same benchmark is an ordinary point. torch.distributed's group (gloo) over the ranks
where torch is installed; skipped with the reason where it is not.

Environment: PITOT_DRIVER (the pitot executable).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "bench_ranks.py")


def run(args, folder, ranks_folder):
    out = os.path.join(folder, "results.json")
    proc = subprocess.run([os.environ["PITOT_DRIVER"], "run", BENCH, "--no-asv", "--json", out, "--max-time", "0.3"] + args,
                          capture_output=True, text=True, timeout=300, cwd=folder,
                          env=dict(os.environ, PITOT_PYTHON=sys.executable, PITOT_TEST_RANKS=ranks_folder))
    with open(out) as f:
        return proc, {p["name"]: p for p in json.load(f)["points"]}


class PythonRanks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.ranks_folder = os.path.join(cls.tmp.name, "ranks")
        os.makedirs(cls.ranks_folder)
        cls.proc, cls.points = run(["--ranks", "2"], cls.tmp.name, cls.ranks_folder)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_rank_ran_and_knew_its_place(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-3000:])
        seen = {}
        for name in os.listdir(self.ranks_folder):
            with open(os.path.join(self.ranks_folder, name)) as f:
                seen[name] = f.read()
        self.assertEqual(seen, {"rank0": "0 2 0", "rank1": "1 2 1"})

    def test_the_slowest_rank_is_kept_and_named(self):
        p = self.points["by_rank"]
        self.assertEqual(p["status"], "ok", p.get("reason"))
        ranks = p["backend_info"]["ranks"]
        self.assertEqual(ranks["world_size"], 2)
        self.assertEqual(ranks["straggler"], 1)
        # Rank 1 spins 3 ms a call, rank 0 1 ms: the kept median is rank 1's.
        self.assertGreater(p["stats"]["median"], 2.5e-3, p["stats"])

    def test_alone_it_is_an_ordinary_point(self):
        with tempfile.TemporaryDirectory() as d:
            proc, points = run(["--filter", "^by_rank$"], d, d)
        p = points["by_rank"]
        self.assertEqual(p["status"], "ok", p.get("reason"))
        self.assertNotIn("ranks", p["backend_info"])
        self.assertLess(p["stats"]["median"], 2e-3, "alone, rank 0 of 1 spins 1 ms")
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])

    def test_torch_group_over_the_ranks(self):
        p = self.points["all_reduce"]
        try:
            import torch  # noqa: F401
        except ImportError:
            self.assertEqual(p["status"], "skipped", p)
            self.assertIn("torch is not installed", p.get("reason", ""))
            self.skipTest("torch is not installed here")
        self.assertEqual(p["status"], "ok", p.get("reason"))
        self.assertEqual(p["backend_info"]["ranks"]["world_size"], 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)

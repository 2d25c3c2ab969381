"""Multi-rank Python benchmarks (docs/ranks.md), for test_ranks.py. CPU only.

by_rank: rank 1 spins 3 ms a call, the others 1 ms, so the kept sample (the slowest rank's)
is the 3 ms one and rank 1 the straggler; each rank writes its rank and world size to
PITOT_TEST_RANKS (a folder) so the test sees that every rank ran.
all_reduce: torch.distributed's group over the same ranks (gloo), an all-reduce of ones timed; the
sum checked before timing. Skipped with the reason where torch is not installed.
"""
import os
import sys
import time

import pitot


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pitot.benchmark(multi_rank=True)
def by_rank(state):
    folder = os.environ.get("PITOT_TEST_RANKS")
    if folder:
        with open(os.path.join(folder, f"rank{state.rank}"), "w") as f:
            f.write(f"{state.rank} {state.world_size} {state.local_rank}")
    seconds = 3e-3 if state.rank == 1 else 1e-3
    state.exec(lambda: spin(seconds))


@pitot.benchmark(multi_rank=True)
def all_reduce(state):
    try:
        import torch
        import torch.distributed as dist
    except ImportError as e:
        state.skip(f"torch is not installed ({e})")
        return
    pitot.torch_process_group(state)
    x = torch.ones(1024)
    dist.all_reduce(x)
    if x[0].item() != state.world_size:
        raise AssertionError(f"all_reduce of ones over {state.world_size} ranks gave {x[0].item()}")
    state.exec(lambda: dist.all_reduce(x))


if __name__ == "__main__":
    sys.exit(pitot.main())

"""torch.distributed over a multi-rank point's ranks (docs/ranks.md): the default process group,
made on the first call from pitot's own group of ranks, so that a Python benchmark's collectives
run in the same world pitot times.

pitot's ranks meet at MASTER_ADDR:MASTER_PORT (set by `pitot run --ranks N` and by torchrun; under
mpirun or srun export them). torch's group gets a port of its own, chosen by rank 0 and sent to
the others through pitot's group, so it never collides with pitot's (or with torchrun's store).
"""
from __future__ import annotations

import os
import socket

from . import _GPU_DEVICES


def _free_port() -> int:
    """A port free on this host now (rank 0's: where the others connect)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def torch_process_group(state, backend: str | None = None, timeout_seconds: float = 60.0):
    """torch.distributed's default process group over the ranks of ``state``'s point; every rank
    must call it at the same place of the same point (the first call makes the group, later calls
    return it). backend: "nccl" for a device="cuda" benchmark (on the rank's own GPU,
    state.local_rank), "gloo" otherwise. timeout_seconds bounds torch's collectives too, so a rank
    that dies fails the point instead of hanging the others. A world of one gets a group of one."""
    import datetime

    import torch.distributed as dist

    if dist.is_initialized():
        if dist.get_world_size() != state.world_size or dist.get_rank() != state.rank:
            raise RuntimeError(f"torch.distributed is initialized as rank {dist.get_rank()} of {dist.get_world_size()}, "
                               f"but this point runs as rank {state.rank} of {state.world_size}")
        return dist.group.WORLD
    if backend is None:
        backend = "nccl" if state.device in _GPU_DEVICES else "gloo"
    if backend == "nccl":
        import torch
        torch.cuda.set_device(state.local_rank)
    host = os.environ.get("MASTER_ADDR", "127.0.0.1")
    mine = str(_free_port() if state.rank == 0 else 0).encode()
    port = int(state._s.broadcast_bytes(mine).decode())  # rank 0's, on every rank
    dist.init_process_group(backend, init_method=f"tcp://{host}:{port}", rank=state.rank,
                            world_size=state.world_size, timeout=datetime.timedelta(seconds=timeout_seconds))
    return dist.group.WORLD

"""Issue 36 on a GPU machine: torch.distributed's collectives through NCCL as multi-rank Python
benchmarks (pitot.torch_process_group on a device="cuda" benchmark), timed on the device across
the ranks. Run by lab/ranks/python-nccl-h200.sh; `pitot run THIS --ranks N` or alone (one rank).
The result of each collective is checked once before it is timed."""
import sys

import pitot

SIZES = pitot.pow2(10, 16, 20, 24, 26)  # float32 elements a rank


@pitot.benchmark(device="cuda", multi_rank=True, axes={"elements": SIZES, "op": ["all_reduce", "all_gather", "reduce_scatter"]})
def collective(state):
    import torch
    import torch.distributed as dist

    pitot.torch_process_group(state)  # NCCL on this rank's GPU
    n, w, op = state["elements"], state.world_size, state["op"]
    if op == "all_reduce" and w == 1:
        # NCCL's all-reduce of one rank in place launches nothing: the kernel clock would refuse it.
        state.skip("an all-reduce over one rank does no work on the GPU (NCCL launches nothing)")
        return
    x = torch.full((n,), float(state.rank + 1), device="cuda")
    if op == "all_reduce":
        run = lambda: dist.all_reduce(x)
        expect = lambda: x.fill_(float(state.rank + 1))
    elif op == "all_gather":
        out = torch.empty(n * w, device="cuda")
        run = lambda: dist.all_gather_into_tensor(out, x)
        expect = None
    else:
        big = torch.full((n * w,), float(state.rank + 1), device="cuda")
        run = lambda: dist.reduce_scatter_tensor(x, big)
        expect = None
    run()
    torch.cuda.synchronize()
    want = {"all_reduce": w * (w + 1) / 2, "reduce_scatter": w * (w + 1) / 2}.get(op)
    got = x[0].item() if op != "all_gather" else out[-1].item()
    if op == "all_gather":
        want = float(w)
    if got != want:
        raise AssertionError(f"{op} over {w} ranks gave {got}, not {want}")
    if expect:
        expect()
    state.add_bytes(4 * n * (w if op != "all_reduce" else 1))
    state.exec(run)


if __name__ == "__main__":
    sys.exit(pitot.main())

#!/usr/bin/env python3
"""Issue 15 on the GPU machine: the same ops timed by triton.testing.do_bench and by
torch.utils.benchmark, five times each (the spread of their medians), printed as JSON lines, to sit
beside pitot's medians of the Python suite (lab/python/run-h200.sh pairs them by point name)."""
import json
import statistics
import sys

import torch

sys.path.insert(0, sys.argv[1])  # benchmarks/python
import shapes  # noqa: E402

F = torch.nn.functional


def ops():
    bf16 = torch.bfloat16
    for e in (16, 22, 28):
        src = torch.ones(1 << e, device="cuda")
        dst = torch.empty_like(src)
        yield f"bench_torch_copy.memcpy_d2d[n=2^{e}]", (lambda d=dst, s=src: d.copy_(s))
    n, k = shapes.linear_shape("llama3.1-8b", "gate_up", 1)
    a = torch.randn(2048, k, device="cuda", dtype=bf16)
    w = torch.randn(n, k, device="cuda", dtype=bf16)
    yield "bench_torch_gemm.gemm_bf16[model=llama3.1-8b,tp=1,layer=gate_up,M=2048,pass=fwd]", lambda: F.linear(a, w)
    x = torch.randn(8192, 8192, device="cuda", dtype=bf16)
    g = torch.ones(8192, device="cuda", dtype=bf16)
    yield "bench_torch_norm.rmsnorm[M=8192,hidden=8192,pass=fwd]", lambda: F.rms_norm(x, (8192,), g, 1e-6)
    q = torch.randn(2, 32, 4096, 128, device="cuda", dtype=bf16)
    kv = torch.randn(2, 8, 4096, 128, device="cuda", dtype=bf16)
    yield ("bench_torch_attention.sdpa_causal_gqa[model=llama3.1-8b,seq=4096,pass=fwd]",
           lambda: F.scaled_dot_product_attention(q, kv, kv, is_causal=True, enable_gqa=True))


def main():
    try:
        import triton.testing as tt
    except ImportError:
        tt = None
    import torch.utils.benchmark as tb
    for name, fn in ops():
        fn()
        torch.cuda.synchronize()
        row = {"name": name}
        if tt is not None:
            runs = [tt.do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e-3 for _ in range(5)]
            row["do_bench_medians"] = runs
        runs = []
        for _ in range(5):
            # torch.utils.benchmark synchronizes around its loop: a host-clock time per call.
            m = tb.Timer(stmt="fn(); torch.cuda.synchronize()", globals={"fn": fn, "torch": torch}).blocked_autorange(
                min_run_time=0.3)
            runs.append(m.median)
        row["torch_benchmark_medians"] = runs
        for key in ("do_bench_medians", "torch_benchmark_medians"):
            if key in row:
                v = row[key]
                row[key.replace("medians", "spread")] = (max(v) - min(v)) / statistics.median(v)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

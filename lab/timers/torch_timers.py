#!/usr/bin/env python3
"""Time torch's y.copy_(x) (cudaMemcpyAsync device-to-device) with triton.testing.do_bench and
torch.utils.benchmark: the same copies pitot's bench_copy times. One process is one repeat; each
measurement is one JSON line on stdout: {"tool", "work", "n", "median_s", "wall_s"}."""
import argparse
import json
import time

import torch
import triton
import triton.testing
import torch.utils.benchmark as tub


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exponents", default="16,22,28", help="copy sizes as powers of two (float32 elements)")
    args = parser.parse_args()
    torch.cuda.init()
    for e in (int(x) for x in args.exponents.split(",")):
        n = 1 << e
        x = torch.randn(n, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        copy = lambda: y.copy_(x)  # noqa: E731
        copy()
        torch.cuda.synchronize()

        t0 = time.perf_counter()
        ms = triton.testing.do_bench(copy, return_mode="median")  # defaults: 25 ms warm-up, 100 ms of repeats, 256 MB flush
        wall = time.perf_counter() - t0
        print(json.dumps({"tool": "do_bench", "work": "memcpy_d2d", "n": n, "median_s": ms * 1e-3, "wall_s": wall}), flush=True)

        t0 = time.perf_counter()
        m = tub.Timer(stmt="y.copy_(x)", globals={"x": x, "y": y}).blocked_autorange()  # defaults: 0.2 s
        wall = time.perf_counter() - t0
        print(json.dumps({"tool": "torch.utils.benchmark", "work": "memcpy_d2d", "n": n, "median_s": m.median, "wall_s": wall}), flush=True)
        del x, y
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

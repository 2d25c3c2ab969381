# The plain events loop the returned seconds are held against: the same GEMM, each call between
# two events and waited for, as SeedGemm.time_forward does, 50 warm-up calls then 400; prints the
# median seconds. usage: python events_loop.py
import statistics

import torch

import bench_seed_gemm

bench = bench_seed_gemm.SeedGemm()
bench.setup(2048)
for _ in range(50):
    bench.time_forward(2048)
print(statistics.median(bench.time_forward(2048) for _ in range(400)))

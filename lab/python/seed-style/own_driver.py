# The seed files' own driver convention, for seed_style.sh: each benchmark set up once, 10 calls
# of warm-up, then the median of the seconds 20 calls return. One process; prints
# {"point name": median seconds} as JSON, the names as pitot names the points.
# usage: python own_driver.py
import json
import statistics

import bench_seed_gemm
import bench_seed_norm


def median_of(bench, method, *params):
    bench.setup(*params)
    call = getattr(bench, method)
    for _ in range(10):
        call(*params)
    return statistics.median(call(*params) for _ in range(20))


out = {"SeedGemm.time_forward[M=2048]": median_of(bench_seed_gemm.SeedGemm(), "time_forward", 2048)}
for norm in ("layernorm", "rmsnorm"):
    for hidden in (4096, 8192):
        name = f"SeedNorm.time_forward_backward[norm='{norm}',hidden={hidden}]"
        out[name] = median_of(bench_seed_norm.SeedNorm(), "time_forward_backward", norm, hidden)
print(json.dumps(out))

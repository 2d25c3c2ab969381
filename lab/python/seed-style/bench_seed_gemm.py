# The seed suite's style on a GPU (run by seed_style.sh on a CUDA machine, not in CI): time_*
# records CUDA events around the work, waits for them and returns the seconds, and the file ends by
# handing itself to the suite's own runner, which is not here. SeedGemmDevice opts the same method
# in to pitot's device clock. The shape is bench_torch_gemm's gemm_bf16 llama3.1-8b gate_up tp=1
# M=2048 (C[M,N] = A[M,K] W[N,K]^T, N = 2 x 14336, K = 4096), the same operands.
import torch


class SeedGemm:
    params = [[2048]]
    param_names = ["M"]

    def setup(self, m):
        n, k = 2 * 14336, 4096
        gen = torch.Generator(device="cuda").manual_seed(0)
        self.a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        self.w = (torch.randn(n, k, device="cuda", generator=gen) * k ** -0.5).to(torch.bfloat16)
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def time_forward(self, m):
        self.start.record()
        torch.nn.functional.linear(self.a, self.w)
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) / 1e3


class SeedGemmDevice(SeedGemm):
    pitot_device = "cuda"


if __name__ == "__main__":
    from driver import run_as_main

    run_as_main()

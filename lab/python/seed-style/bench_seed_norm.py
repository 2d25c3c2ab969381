# A seed-style norm (run by seed_style.sh on a CUDA machine, not in CI): the transformer library's
# LayerNorm and RMSNorm forward+backward, shimmed onto PyTorch (torch.nn.functional), timed by the
# method itself with CUDA events around the work as the seed's files do, returning the seconds.
# Shapes: 8192 tokens, hidden 4096 and 8192, BF16.
import torch
import torch.nn.functional as F

TOKENS = 8192


def rms_norm(x, weight, eps):
    if hasattr(F, "rms_norm"):  # torch >= 2.4
        return F.rms_norm(x, (x.shape[-1],), weight, eps)
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps).to(x.dtype) * weight


class SeedNorm:
    params = [["layernorm", "rmsnorm"], [4096, 8192]]
    param_names = ["norm", "hidden"]

    def setup(self, norm, hidden):
        gen = torch.Generator(device="cuda").manual_seed(0)
        bf16 = dict(device="cuda", dtype=torch.bfloat16)
        self.x = torch.randn(TOKENS, hidden, generator=gen, **bf16).requires_grad_()
        self.weight = torch.ones(hidden, **bf16).requires_grad_()
        self.bias = torch.zeros(hidden, **bf16).requires_grad_() if norm == "layernorm" else None
        self.dy = torch.randn(TOKENS, hidden, generator=gen, **bf16)
        self.inputs = [t for t in (self.x, self.weight, self.bias) if t is not None]
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def forward(self, norm, hidden):
        if norm == "layernorm":
            return F.layer_norm(self.x, (hidden,), self.weight, self.bias, 1e-5)
        return rms_norm(self.x, self.weight, 1e-6)

    def time_forward_backward(self, norm, hidden):
        self.start.record()
        y = self.forward(norm, hidden)
        torch.autograd.grad(y, self.inputs, self.dy)
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) / 1e3


if __name__ == "__main__":
    from driver import run_as_main

    run_as_main()

"""RMSNorm and LayerNorm with PyTorch (torch.nn.functional.rms_norm / layer_norm, BF16, with
weights) over the suite's hidden sizes, forward and forward then backward; checked against an
FP32 formula before timing. Bytes: the input read and the output written (and, backward, the
gradient read and the input's gradient written)."""

import pitot

import shapes
from common import check_close, cuda_ready, torch

AXES = {"M": shapes.NORM_ROWS, "hidden": shapes.HIDDEN_SIZES, "pass": shapes.PASSES}
EPS = 1e-6


def reference(kind, x, weight, bias):
    x = x.float()
    if kind == "rmsnorm":
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * weight.float()
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + EPS) * weight.float() + bias.float()


def norm_point(state, kind):
    if not cuda_ready(state):
        return
    m, h = state["M"], state["hidden"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(m, h, device="cuda", dtype=torch.bfloat16, generator=gen)
    weight = (1 + 0.1 * torch.randn(h, device="cuda", generator=gen)).to(torch.bfloat16)
    bias = (0.1 * torch.randn(h, device="cuda", generator=gen)).to(torch.bfloat16)
    F = torch.nn.functional
    if kind == "rmsnorm":
        op = lambda t: F.rms_norm(t, (h,), weight, EPS)  # noqa: E731
    else:
        op = lambda t: F.layer_norm(t, (h,), weight, bias, EPS)  # noqa: E731
    check_close(f"{kind} forward", op(x), reference(kind, x, weight, bias), 2e-2, 3e-2)
    tensor_bytes = 2.0 * m * h  # BF16
    if state["pass"] == "fwd":
        state.add_bytes(2 * tensor_bytes)
        state.exec(lambda: op(x))
        return
    x.requires_grad_(True)
    grad = torch.randn(m, h, device="cuda", dtype=torch.bfloat16, generator=gen)
    xr = x.detach().float().requires_grad_(True)
    (want,) = torch.autograd.grad(reference(kind, xr, weight, bias), xr, grad.float())
    (got,) = torch.autograd.grad(op(x), x, grad)
    check_close(f"{kind} backward (dx)", got, want, 3e-2, 5e-2)
    state.add_bytes(4 * tensor_bytes)
    state.exec(lambda: torch.autograd.grad(op(x), x, grad))


@pitot.benchmark(axes=AXES, device="cuda")
def rmsnorm(state):
    norm_point(state, "rmsnorm")


@pitot.benchmark(axes=AXES, device="cuda")
def layernorm(state):
    norm_point(state, "layernorm")


if __name__ == "__main__":
    pitot.main()

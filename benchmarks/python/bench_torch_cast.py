"""FP8 casts with PyTorch: BF16 rows to float8_e4m3fn with a per-tensor scale (the quantize step
before an FP8 GEMM), and back, over the suite's hidden sizes; the round trip checked against the
input before timing. Bytes: BF16 read plus FP8 written (or the reverse)."""

import pitot

import shapes
from common import check_close, cuda_ready, torch

AXES = {"M": shapes.NORM_ROWS, "hidden": shapes.HIDDEN_SIZES, "direction": ["to_fp8", "from_fp8"]}


@pitot.benchmark(axes=AXES, device="cuda")
def cast_fp8(state):
    if not cuda_ready(state):
        return
    m, h = state["M"], state["hidden"]
    x = torch.randn(m, h, device="cuda", dtype=torch.bfloat16, generator=torch.Generator(device="cuda").manual_seed(0))
    fp8 = torch.float8_e4m3fn
    scale = (torch.finfo(fp8).max / x.abs().max().float()).reshape(())
    inv = 1.0 / scale

    def to_fp8():
        return (x * scale).to(fp8)

    def from_fp8(q):
        return (q.to(torch.bfloat16) * inv).to(torch.bfloat16)

    q = to_fp8()
    check_close("fp8 round trip", from_fp8(q), x, 7e-2, 1e-2)
    state.add_bytes(3.0 * m * h)
    if state["direction"] == "to_fp8":
        state.exec(to_fp8)
    else:
        state.exec(lambda: from_fp8(q))


if __name__ == "__main__":
    pitot.main()

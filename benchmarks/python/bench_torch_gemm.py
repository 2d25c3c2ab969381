"""Linear layers with PyTorch: BF16 (torch.nn.functional.linear) and FP8 (torch._scaled_mm, e4m3
inputs with per-tensor scales, BF16 out) over the Llama/Qwen GEMM shapes of bench_gemm (C++), the
forward alone and forward then backward. Each point checks a slice of its result against an FP32
reference before it is timed. Run alone (python bench_torch_gemm.py --list) or with pitot run."""

import pitot

import shapes
from common import check_close, cuda_ready, fp8_scaled, torch

AXES = {"model": shapes.GEMM_MODELS, "tp": shapes.TENSOR_PARALLEL, "layer": shapes.LINEAR_LAYERS,
        "M": shapes.GEMM_TOKENS, "pass": shapes.PASSES}
CHECK_ROWS = 256  # rows of the result checked against the FP32 reference


def problem(state):
    """(M, N, K), or None with the point skipped."""
    try:
        n, k = shapes.linear_shape(state["model"], state["layer"], state["tp"])
    except ValueError as e:
        state.skip(str(e))
        return None
    if not cuda_ready(state):
        return None
    return state["M"], n, k


@pitot.benchmark(axes=AXES, device="cuda", version="1")
def gemm_bf16(state):
    shape = problem(state)
    if shape is None:
        return
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    w = (torch.randn(n, k, device="cuda", generator=gen) * k ** -0.5).to(torch.bfloat16)
    linear = torch.nn.functional.linear
    check_close("gemm_bf16 forward", linear(a[:CHECK_ROWS], w), a[:CHECK_ROWS].float() @ w.float().T, 2e-2, 5e-2)
    if state["pass"] == "fwd":
        state.add_flops(2.0 * m * n * k)
        state.exec(lambda: linear(a, w))
        return
    a.requires_grad_(True)
    w.requires_grad_(True)
    grad = (torch.randn(m, n, device="cuda", generator=gen) * n ** -0.5).to(torch.bfloat16)

    def fwd_bwd():
        torch.autograd.grad(linear(a, w), (a, w), grad)

    da, _ = torch.autograd.grad(linear(a, w), (a, w), grad)
    check_close("gemm_bf16 backward (dA)", da[:CHECK_ROWS], grad[:CHECK_ROWS].float() @ w.detach().float(), 2e-2, 5e-2)
    state.add_flops(6.0 * m * n * k)
    state.exec(fwd_bwd)


@pitot.benchmark(axes=AXES, device="cuda", version="1")
def gemm_fp8(state):
    shape = problem(state)
    if shape is None:
        return
    m, n, k = shape
    if torch.cuda.get_device_capability() < (8, 9):
        state.skip("FP8 GEMMs need sm_89 or newer")
        return
    gen = torch.Generator(device="cuda").manual_seed(0)
    a, _, a_inv = fp8_scaled(torch.randn(m, k, device="cuda", generator=gen))
    w, _, w_inv = fp8_scaled(torch.randn(n, k, device="cuda", generator=gen) * k ** -0.5)
    mm = torch._scaled_mm
    bf16 = torch.bfloat16
    # _scaled_mm wants A row-major and B column-major: W[N,K] row-major is W^T[K,N] column-major.
    got = mm(a[:CHECK_ROWS], w.t(), scale_a=a_inv, scale_b=w_inv, out_dtype=bf16)
    want = (a[:CHECK_ROWS].float() * a_inv) @ (w.float() * w_inv).T
    check_close("gemm_fp8 forward", got, want, 2e-2, 5e-2)
    if state["pass"] == "fwd":
        state.add_flops(2.0 * m * n * k)
        state.exec(lambda: mm(a, w.t(), scale_a=a_inv, scale_b=w_inv, out_dtype=bf16))
        return
    # Backward as FP8 training recipes run it: the output's gradient in e5m2,
    #   dA[M,K] = dC[M,N] W[N,K]   and   dW[N,K] = dC^T[N,M] A[M,K],
    # with the transposed copies each product needs made here, untimed.
    dc, _, dc_inv = fp8_scaled(torch.randn(m, n, device="cuda", generator=gen) * n ** -0.5, torch.float8_e5m2)
    dc_t = dc.t().contiguous()
    w_t = w.t().contiguous()  # [K,N]: .t() gives W as the column-major [N,K] operand
    a_t = a.t().contiguous()  # [K,M]

    def fwd_bwd():
        mm(a, w.t(), scale_a=a_inv, scale_b=w_inv, out_dtype=bf16)
        mm(dc, w_t.t(), scale_a=dc_inv, scale_b=w_inv, out_dtype=bf16)
        mm(dc_t, a_t.t(), scale_a=dc_inv, scale_b=a_inv, out_dtype=bf16)

    da = mm(dc[:CHECK_ROWS], w_t.t(), scale_a=dc_inv, scale_b=w_inv, out_dtype=bf16)
    check_close("gemm_fp8 backward (dA)", da, (dc[:CHECK_ROWS].float() * dc_inv) @ (w.float() * w_inv), 2e-2, 5e-2)
    state.add_flops(6.0 * m * n * k)
    state.exec(fwd_bwd)


if __name__ == "__main__":
    pitot.main()

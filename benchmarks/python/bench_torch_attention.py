"""Scaled dot-product attention with PyTorch (torch.nn.functional.scaled_dot_product_attention,
BF16, causal, grouped-query heads through enable_gqa) over the dense models' heads and the suite's
sequence lengths, each point holding 8192 tokens; forward and forward then backward. Checked
against an FP32 softmax(QK^T/sqrt(d))V on one sequence and a few heads before timing."""

import math

import pitot

import shapes
from common import check_close, cuda_ready, torch

AXES = {"model": shapes.ATTENTION_MODELS, "seq": shapes.SEQUENCE_LENGTHS, "pass": shapes.PASSES}
CHECK_HEADS = 4


def reference(q, k, v):
    """FP32 causal attention, KV heads repeated for their query groups."""
    groups = q.shape[1] // k.shape[1]
    k = k.float().repeat_interleave(groups, dim=1)
    v = v.float().repeat_interleave(groups, dim=1)
    s = q.float() @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    mask = torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device).tril()
    return torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1) @ v


@pitot.benchmark(axes=AXES, device="cuda")
def sdpa_causal_gqa(state):
    if not cuda_ready(state):
        return
    _, _, q_heads, kv_heads, head_dim = shapes.DENSE_MODELS[state["model"]]
    seq = state["seq"]
    batch = shapes.ATTENTION_TOKENS // seq
    gen = torch.Generator(device="cuda").manual_seed(0)
    bf16 = torch.bfloat16
    q = torch.randn(batch, q_heads, seq, head_dim, device="cuda", dtype=bf16, generator=gen)
    k = torch.randn(batch, kv_heads, seq, head_dim, device="cuda", dtype=bf16, generator=gen)
    v = torch.randn(batch, kv_heads, seq, head_dim, device="cuda", dtype=bf16, generator=gen)
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def attend(q, k, v):
        return sdpa(q, k, v, is_causal=True, enable_gqa=True)

    group = q_heads // kv_heads
    heads = max(1, CHECK_HEADS // group) * group  # whole query groups of the first KV heads
    check_close("sdpa forward", attend(q[:1, :heads], k[:1, :heads // group], v[:1, :heads // group]),
                reference(q[:1, :heads], k[:1, :heads // group], v[:1, :heads // group]), 2e-2, 2e-2)
    # Causal attention: half of the 4 b h s^2 d multiply-adds of QK^T and PV (FlashAttention's count).
    fwd_flops = 4.0 * batch * q_heads * seq * seq * head_dim / 2
    if state["pass"] == "fwd":
        state.add_flops(fwd_flops)
        state.exec(lambda: attend(q, k, v))
        return
    for t in (q, k, v):
        t.requires_grad_(True)
    grad = torch.randn_like(q)
    state.add_flops(3.5 * fwd_flops)  # backward: 2.5x the forward (recomputing the scores)
    state.exec(lambda: torch.autograd.grad(attend(q, k, v), (q, k, v), grad))


if __name__ == "__main__":
    pitot.main()

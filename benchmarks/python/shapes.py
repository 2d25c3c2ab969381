"""The suite's shape table (benchmarks/gpu/common/shapes.cpp), for the Python suite: the same model
names, layers and sizes, so gemm_bf16[model=llama3.1-70b,tp=8,layer=gate_up,M=2048,pass=fwd] is
the same matrix product in bench_gemm (C++) and bench_torch_gemm (Python)."""

# name: (hidden, intermediate, q_heads, kv_heads, head_dim), as each model's config.json gives them.
DENSE_MODELS = {
    "llama3.1-8b": (4096, 14336, 32, 8, 128),
    "llama3.1-70b": (8192, 28672, 64, 8, 128),
    "llama3.1-405b": (16384, 53248, 128, 8, 128),
    "qwen2.5-7b": (3584, 18944, 28, 4, 128),
    "qwen2.5-72b": (8192, 29568, 64, 8, 128),
}
# bench_gemm leaves Qwen2.5-72B out of the GEMMs (its shapes are close to Llama-3.1-70B's).
GEMM_MODELS = [m for m in DENSE_MODELS if m != "qwen2.5-72b"]
LINEAR_LAYERS = ["qkv", "attn_out", "gate_up", "down"]
TENSOR_PARALLEL = [1, 8]
GEMM_TOKENS = [2048, 8192]  # bench_gemm's kDenseTokens
PASSES = ["fwd", "fwd+bwd"]
# Attention: Qwen2.5-72B has Llama-3.1-70B's heads and is left out as a duplicate.
ATTENTION_MODELS = ["llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "qwen2.5-7b"]
SEQUENCE_LENGTHS = [1024, 2048, 4096, 8192]
ATTENTION_TOKENS = 8192  # every attention point holds this many tokens: batch = 8192 / seq
HIDDEN_SIZES = sorted({m[0] for m in DENSE_MODELS.values()})  # 3584, 4096, 8192, 16384
NORM_ROWS = [1024, 8192]


def linear_shape(model: str, layer: str, tp: int):
    """(N, K) of C[M,N] = A[M,K] W[N,K]^T, split by tensor parallelism as Megatron-LM does."""
    hidden, intermediate, q_heads, kv_heads, head_dim = DENSE_MODELS[model]
    if layer == "qkv":
        n, k = (q_heads + 2 * kv_heads) * head_dim, hidden
        split_n = True
    elif layer == "attn_out":
        n, k = hidden, q_heads * head_dim
        split_n = False
    elif layer == "gate_up":
        n, k = 2 * intermediate, hidden
        split_n = True
    elif layer == "down":
        n, k = hidden, intermediate
        split_n = False
    else:
        raise ValueError(f"unknown layer {layer!r} (known: {', '.join(LINEAR_LAYERS)})")
    if split_n:
        if n % tp:
            raise ValueError(f"tp={tp} does not divide N={n} of {model} {layer}")
        return n // tp, k
    if k % tp:
        raise ValueError(f"tp={tp} does not divide K={k} of {model} {layer}")
    return n, k // tp

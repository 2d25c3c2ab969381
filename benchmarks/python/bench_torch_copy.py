"""Device-to-device copies of 2^16, 2^22 and 2^28 floats from Python, the same work as
bench_copy's memcpy_d2d (C++): torch's copy_ (a cudaMemcpyAsync for contiguous tensors of one
dtype) and, with CuPy, cudaMemcpyAsync called on the stream handle pitot passes. Python's added
cost per launch is host time, hidden behind the blocking kernel in cold mode."""

import pitot

from common import cuda_ready, torch

try:
    import cupy
except ImportError:
    cupy = None

AXES = {"n": pitot.pow2(16, 22, 28)}


@pitot.benchmark(axes=AXES, device="cuda")
def memcpy_d2d(state):
    if not cuda_ready(state):
        return
    n = state["n"]
    src = torch.ones(n, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    dst.copy_(src)
    if not torch.equal(dst, src):
        raise AssertionError("copy_ did not copy")
    state.add_bytes(2.0 * n * 4)
    state.exec(lambda: dst.copy_(src))


@pitot.benchmark(axes=AXES, device="cuda")
def memcpy_d2d_handle(state):
    """The stream handle passed to the work: a fn of one argument gets pitot's cudaStream_t."""
    if cupy is None:
        state.skip("cupy is not installed")
        return
    if not cuda_ready(state):
        return
    n = state["n"]
    src = cupy.ones(n, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    memcpy = cupy.cuda.runtime.memcpyAsync
    kind = cupy.cuda.runtime.memcpyDeviceToDevice
    state.add_bytes(2.0 * n * 4)
    state.exec(lambda stream: memcpy(dst.data.ptr, src.data.ptr, n * 4, kind, stream))


if __name__ == "__main__":
    pitot.main()

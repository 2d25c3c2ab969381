"""What the Python suite's files share: finding torch and a GPU (a point is skipped with the reason
when either is missing, so every file lists and imports cleanly on a machine without them), and the
correctness check every point makes before it is timed."""

try:
    import torch
except ImportError:  # listed and skipped without torch
    torch = None


def cuda_ready(state) -> bool:
    """False (and the point skipped, with why) when torch or a CUDA device is missing."""
    if torch is None:
        state.skip("torch is not installed")
        return False
    if not torch.cuda.is_available():
        state.skip("torch finds no CUDA device")
        return False
    return True


def check_close(name, got, want, rtol, atol):
    """Raise (failing the point before it is timed) when got is not within tolerance of want."""
    got = got.float()
    want = want.float()
    if not torch.allclose(got, want, rtol=rtol, atol=atol):
        err = (got - want).abs().max().item()
        scale = want.abs().max().item()
        raise AssertionError(f"{name}: result differs from the reference: max |error| {err:.4g} "
                             f"(max |reference| {scale:.4g}, rtol {rtol}, atol {atol})")


def fp8_scaled(x, dtype=None):
    """x cast to FP8 (e4m3) with a per-tensor scale: (x_fp8, scale as float32 tensor, inverse)."""
    dtype = dtype or torch.float8_e4m3fn
    amax = x.abs().max().float().clamp(min=1e-12)
    scale = torch.finfo(dtype).max / amax
    return (x.float() * scale).to(dtype), scale, (1.0 / scale).float()

"""Shared by the stand-in profilers: argv logging, the wrapped program, failure modes.

FAKE_ARGV_LOG: append {"tool", "argv", "env"} as a JSON line. FAKE_MODE: ok (default), fail (error,
no report), hang (sleep), flood (3 MB on stdout), noreport (runs the program, writes nothing).
FAKE_REPORT_BYTES: size of the report file (random, incompressible).
"""
import json, os, subprocess, sys, time


def log(tool):
    path = os.environ.get("FAKE_ARGV_LOG")
    if path:
        env = {k: v for k, v in os.environ.items() if k.startswith(("CUDA_", "PITOT_", "GPU_", "NVTX_"))}
        with open(path, "a") as f:
            f.write(json.dumps({"tool": tool, "argv": sys.argv, "env": env, "cwd": os.getcwd()}) + "\n")


def mode():
    return os.environ.get("FAKE_MODE", "ok")


def program_after_dashes():
    a = sys.argv
    return a[a.index("--") + 1:] if "--" in a else []


def run_program():
    """Runs the wrapped program with inherited streams; handles the failure modes first."""
    m = mode()
    if m == "hang":
        print("==PROF== Connected to process 4242", file=sys.stderr, flush=True)
        time.sleep(600)
    if m == "fail":
        print("==ERROR== The application returned an error code (11).", file=sys.stderr)
        print("==ERROR== Failed to profile the kernel: UnknownError", file=sys.stderr)
        sys.exit(1)
    if m == "flood":
        line = "progress line that a profiler repeats far too often " * 2 + "\n"
        sys.stdout.write(line * (3_000_000 // len(line)))
        sys.stdout.flush()
    return subprocess.call(program_after_dashes())


def report(path):
    if mode() == "noreport":
        return
    with open(path, "wb") as f:
        f.write(os.urandom(int(os.environ.get("FAKE_REPORT_BYTES", "20000"))))

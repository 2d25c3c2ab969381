"""A Python submission in a program with another Python thread busy all along (for
test_problems.py): each point's checker process is forked while that thread may hold the GIL, and
the checker calls the problem's Python generate and reference. The harness takes the GIL around the
fork as os.fork does, so the checker is not left waiting for it.
"""
import threading

import pitot


def generate(shape, seed, ins):
    for i in range(len(ins[0])):
        ins[0][i] = (seed + 7 * i) % 1000


def reference(shape, ins, expected):
    for i in range(len(expected[0])):
        expected[0][i] = 2 * ins[0][i]


DOUBLE = pitot.Problem(
    name="double", shapes={"n": [64, 128, 192, 256]},
    inputs=lambda shape: [pitot.Buffer("x", "i32", shape["n"])],
    outputs=lambda shape: [pitot.Buffer("y", "i32", shape["n"])],
    generate=generate, reference=reference)


def _busy():
    x = 0
    while True:  # pure Python: holds the GIL but for the interpreter's switches
        x = (x + 1) % 1000003


threading.Thread(target=_busy, daemon=True).start()


@pitot.submission(DOUBLE)
def honest_beside_a_thread(ins, outs):
    for i in range(len(outs[0])):
        outs[0][i] = 2 * ins[0][i]


if __name__ == "__main__":
    pitot.main()

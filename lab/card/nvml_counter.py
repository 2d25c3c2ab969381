#!/usr/bin/env python3
"""How NVML's energy counter and power reading move on this card: polls them as fast as it can
for --seconds and prints the steps (value change, time since the previous change), so the
counter's resolution and update period can be written down (docs/results/card-h200.md).
Usage: nvml_counter.py [--seconds S] [--device N]"""
import argparse
import ctypes
import statistics
import time

from nvml_device import open_device

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float, default=3.0)
parser.add_argument("--device", type=int, default=0)
args = parser.parse_args()

nvml, dev = open_device(args.device)
energy = ctypes.c_ulonglong()
power = ctypes.c_uint()

def read_energy():
    assert nvml.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(energy)) == 0
    return energy.value

def read_power():
    assert nvml.nvmlDeviceGetPowerUsage(dev, ctypes.byref(power)) == 0
    return power.value

def steps(read, seconds):
    """(time, value) at each change, and the number of polls."""
    out, polls = [], 0
    t0 = time.perf_counter()
    last = read()
    while (now := time.perf_counter()) - t0 < seconds:
        v = read()
        polls += 1
        if v != last:
            out.append((now, v - last))
            last = v
    return out, polls

for name, read in (("energy_mJ", read_energy), ("power_mW", read_power)):
    s, polls = steps(read, args.seconds)
    gaps = [b[0] - a[0] for a, b in zip(s, s[1:])]
    deltas = [d for _, d in s]
    if not gaps:
        print(f"{name}: {len(s)} changes in {args.seconds} s ({polls} polls)")
        continue
    print(f"{name}: {len(s)} changes in {args.seconds} s ({polls} polls, {args.seconds / polls * 1e6:.0f} us a poll); "
          f"period median {statistics.median(gaps) * 1e3:.2f} ms (min {min(gaps) * 1e3:.2f}, max {max(gaps) * 1e3:.2f}); "
          f"step median {statistics.median(deltas)} (min {min(deltas)}, max {max(deltas)})")

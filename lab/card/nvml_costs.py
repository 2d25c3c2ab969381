#!/usr/bin/env python3
"""What each NVML query pitot's card reading makes costs on this card (issue 33: a reading took
about 4 ms on an H200 between samples). Calls each query --calls times back to back and prints
the median and the 90th percentile of one call, in microseconds, idle and while a GPU busy loop
runs when torch is there.
Usage: nvml_costs.py [--calls N] [--device N]"""
import argparse
import ctypes
import statistics
import time

from nvml_device import open_device

parser = argparse.ArgumentParser()
parser.add_argument("--calls", type=int, default=200)
parser.add_argument("--device", type=int, default=0)
args = parser.parse_args()

nvml, dev = open_device(args.device)
u = ctypes.c_uint()
ull = ctypes.c_ulonglong()
# The queries of card::Card::read (src/card/card.cpp), in its order.
queries = {
    "sm_clock": lambda: nvml.nvmlDeviceGetClockInfo(dev, 1, ctypes.byref(u)),
    "memory_clock": lambda: nvml.nvmlDeviceGetClockInfo(dev, 2, ctypes.byref(u)),
    "temperature": lambda: nvml.nvmlDeviceGetTemperature(dev, 0, ctypes.byref(u)),
    "power": lambda: nvml.nvmlDeviceGetPowerUsage(dev, ctypes.byref(u)),
    "energy": lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(ull)),
    "clock_reasons": lambda: nvml.nvmlDeviceGetCurrentClocksEventReasons(dev, ctypes.byref(ull)),
}


def measure(label):
    for name, call in queries.items():
        times = []
        for _ in range(args.calls):
            t = time.perf_counter()
            rc = call()
            times.append((time.perf_counter() - t) * 1e6)
        times.sort()
        print(f"{label:5} {name:14} rc {rc}  median {statistics.median(times):8.1f} us  p90 {times[int(0.9 * len(times))]:8.1f} us")


measure("idle")
try:
    import torch
    a = torch.randn(4096, 4096, device="cuda")
    for _ in range(400):  # queue about a second of work
        a = a @ a
        a /= a.norm()
    measure("busy")
    torch.cuda.synchronize()
except Exception as e:  # no torch or no GPU: the idle numbers alone
    print("busy: not measured:", e)

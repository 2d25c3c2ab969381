#!/usr/bin/env python3
"""Read a `pitot run --json` of the bundled GPU suite after issue 16 and print, as Markdown tables:
  1. per op: points by status, median time (min-max), the throughput track (TFLOP/s or GB/s) as
     median and best, and where it sits: % of the DRAM peak (the points' own roofline track,
     `percent_of_peak_bandwidth`) and, for TFLOP/s, % of the card's nominal dense rate (--bf16-peak,
     --fp8-peak; the H200 datasheet's dense figures by default);
  2. GEMM backward against the forward at the same shape: dgrad and wgrad (BF16: from the kernel
     clock's per-kernel means, told apart by cuBLAS's layout letters NN / NT), bwd, fwd+bwd, each
     as TFLOP/s and as a ratio to the forward; the issue's acceptance (within --tolerance of the
     forward) at the shapes whose forward product is at least --big-tflop TFLOP;
  3. the grouped MoE GEMM beside the strided baseline for the same tokens (balanced and skewed);
  4. norm backward and attention backward beside their forward;
  5. the attention matrix (fwd and bwd TFLOP/s per mask / window / dropout / layout / dtype).
Standard library only. Usage: lab/suite/summary.py SUITE.json [--big-tflop 1.0] [--tolerance 0.10]
"""
import argparse
import collections
import json
import re
import statistics
import sys


def parse_name(name):
    """'gemm_bf16[model=a,tp=1]' -> ('gemm_bf16', {'model': 'a', 'tp': '1'})."""
    m = re.match(r"([^\[]+)\[(.*)\]$", name)
    if not m:
        return name, {}
    return m.group(1), dict(kv.split("=", 1) for kv in m.group(2).split(","))


def track(p, name):
    for t in p.get("tracks", []):
        if t["name"] == name:
            return t["value"]
    return None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def us(seconds):
    v = seconds * 1e6
    return f"{v / 1000:.3g} ms" if v >= 1000 else f"{v:.3g} µs"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def load(path):
    doc = json.load(open(path))
    pts = []
    for p in doc["points"]:
        bench, axes = parse_name(p["name"])
        p["_bench"], p["_axes"] = p["program"] + "." + bench, axes
        pts.append(p)
    return pts


def peak_of(bench, axes, bf16_peak, fp8_peak):
    """The nominal dense rate a TFLOP/s point is read against (None for memory-bound ops)."""
    if "fp8" in bench:
        return fp8_peak
    if any(k in bench for k in ("gemm", "moe", "square", "attention")):
        return bf16_peak  # attention's fp16 points too: Hopper's FP16 and BF16 dense rates are equal
    return None


def per_op(pts, bf16_peak, fp8_peak):
    by = collections.defaultdict(list)
    for p in pts:
        key = p["_bench"]
        if "pass" in p["_axes"]:
            key += f" pass={p['_axes']['pass']}"
        by[key].append(p)
    rows = []
    for key in sorted(by):
        ps = by[key]
        ok = [p for p in ps if p["status"] == "ok"]
        st = collections.Counter(p["status"] for p in ps)
        if not ok:
            rows.append([key, len(ps), st["ok"], st["skipped"], st["failed"], "-", "-", "-", "-", "-"])
            continue
        med = [p["stats"]["median"] for p in ok]
        tf = [track(p, "tflops") for p in ok if track(p, "tflops") is not None]
        gb = [track(p, "gbytes_per_second") for p in ok if track(p, "gbytes_per_second") is not None]
        pb = [track(p, "percent_of_peak_bandwidth") for p in ok if track(p, "percent_of_peak_bandwidth") is not None]
        if tf:
            unit, vals = "TFLOP/s", tf
        elif gb:
            unit, vals = "GB/s", gb
        else:
            unit, vals = "", []
        thr = f"{fmt(statistics.median(vals))} / {fmt(max(vals))} {unit}" if vals else "-"
        peak = peak_of(key, {}, bf16_peak, fp8_peak) if tf else None
        pct_c = f"{100 * statistics.median(tf) / peak:.0f} / {100 * max(tf) / peak:.0f}" if peak else "-"
        pct_b = f"{statistics.median(pb):.0f} / {max(pb):.0f}" if pb else "-"
        clocks = collections.Counter(p.get("backend_info", {}).get("clock", "-") for p in ok)
        rows.append([key, len(ps), st["ok"], st["skipped"], st["failed"],
                     f"{us(min(med))} - {us(max(med))}", thr, pct_c, pct_b,
                     ", ".join(f"{c} {n}" for c, n in sorted(clocks.items()))])
    return table(["op", "points", "ok", "skipped", "failed", "median time (min - max)",
                  "throughput median / best", "% of dense peak (median / best)",
                  "% of DRAM peak (median / best)", "clock"], rows)


def kernel_split(p, flops_per_product):
    """BF16 backward: the dgrad (cuBLAS 'NN') and wgrad ('NT') kernels' TFLOP/s from the kernel
    clock's per-kernel mean. None where the layouts do not tell them apart (FP8: all TN)."""
    ks = p.get("backend_info", {}).get("kernel_clock", {}).get("kernels", [])
    got = {}
    for k in ks:
        m = re.search(r"_([TN])([TN])[TN]$", k["name"].split("(")[0])
        if k.get("kind") != "kernel" or not m or k["count_per_launch"] != 1:
            continue
        role = {"NN": "dgrad", "NT": "wgrad", "TN": "fwd"}[m.group(1) + m.group(2)]
        if role in got:
            return None
        got[role] = flops_per_product / k["mean_seconds"] / 1e12
    if "dgrad" in got and "wgrad" in got:
        return got
    return None


def gemm_backward(pts, big_tflop, tolerance):
    shapes = collections.defaultdict(dict)
    for p in pts:
        b = p["_bench"].split(".")[1]
        if not b.startswith("gemm_") or p["status"] != "ok":
            continue
        a = p["_axes"]
        shapes[(b, a["model"], int(a["tp"]), a["layer"], int(a["M"]))][a["pass"]] = p
    out = []
    verdict = []
    for dtype in sorted({k[0] for k in shapes}):
        rows = []
        keys = [k for k in shapes if k[0] == dtype and "fwd" in shapes[k]]
        keys.sort(key=lambda k: -shapes[k]["fwd"]["counters"]["flops"])
        big_ok = big_n = 0
        all_ok = all_n = 0
        misses = []
        faster = []
        for k in keys:
            s = shapes[k]
            fwd_p = s["fwd"]
            prod = fwd_p["counters"]["flops"]
            f = track(fwd_p, "tflops")
            b = track(s["bwd"], "tflops") if "bwd" in s else None
            fb = track(s["fwd+bwd"], "tflops") if "fwd+bwd" in s else None
            split = kernel_split(s["bwd"], prod) if "bwd" in s else None
            worst = min(x for x in (b, fb) if x is not None) / f
            within = worst >= 1 - tolerance
            big = prod >= big_tflop * 1e12
            all_n += 1
            all_ok += within
            if big:
                big_n += 1
                big_ok += within
            if not within:
                misses.append(f"{k[1]} tp {k[2]} {k[3]} M {k[4]} ({worst:.3f})")
            best = max(x for x in (b, fb) if x is not None) / f
            if best > 1 + tolerance:
                faster.append(f"{k[1]} tp {k[2]} {k[3]} M {k[4]} ({best:.2f})")
            rows.append([f"{k[1]} tp{k[2]} {k[3]} M={k[4]}", f"{prod / 1e12:.3g}", fmt(f),
                         f"{fmt(split['dgrad'])} ({split['dgrad'] / f:.2f})" if split else "-",
                         f"{fmt(split['wgrad'])} ({split['wgrad'] / f:.2f})" if split else "-",
                         f"{fmt(b)} ({b / f:.2f})" if b else "-",
                         f"{fmt(fb)} ({fb / f:.2f})" if fb else "-",
                         ("yes" if within else "**no**") + (" (big)" if big else "")])
        out.append(f"### {dtype}: backward against forward (TFLOP/s, ratio to fwd)\n")
        out.append(table(["shape", "fwd TFLOP", "fwd", "dgrad", "wgrad", "bwd", "fwd+bwd",
                          f"within {tolerance:.0%}"], rows))
        verdict.append(f"- {dtype}: bwd and fwd+bwd within {tolerance:.0%} of fwd at {big_ok} of {big_n} "
                       f"shapes with a forward product >= {big_tflop:g} TFLOP; at {all_ok} of {all_n} "
                       f"shapes overall. Misses: {'; '.join(misses) if misses else 'none'}. "
                       f"Backward more than {tolerance:.0%} above the forward (the forward's kernel is the weak one): "
                       f"{'; '.join(faster) if faster else 'none'}.")
    out.append("\n### Acceptance (issue 16: GEMM backward within 10% of forward at the big shapes)\n")
    out.append("\n".join(verdict))
    out.append("(dgrad and wgrad: the kernel clock's mean per kernel, BF16 only; FP8's backward runs both "
               "products in the TN layout and the kernels are not told apart.)")
    return "\n".join(out)


def moe(pts):
    g = {}
    for p in pts:
        b = p["_bench"].split(".")[1]
        if not b.startswith("moe_") or p["status"] != "ok":
            continue
        a = p["_axes"]
        g[(b, a["model"], int(a["ep"]), a["layer"], int(a["M"]), a["routing"], a["impl"])] = p
    rows = []
    ratios = collections.defaultdict(list)
    for k in sorted(g, key=lambda k: (k[1], k[2], k[3], k[4], k[5])):
        if k[0] != "moe_bf16" or k[6] != "grouped":
            continue
        gp, sp = g[k], g.get(k[:6] + ("strided",))
        fp = g.get(("moe_fp8",) + k[1:6] + ("strided",))
        gt, st = track(gp, "tflops"), track(sp, "tflops") if sp else None
        ft = track(fp, "tflops") if fp else None
        ratio = gt / st if st else None
        ratios[k[5]].append(ratio)
        rows.append([k[1], k[2], k[3], k[4], k[5], f"{gp['counters']['flops'] / 1e9:.4g}",
                     f"{fmt(gt)} ({us(gp['stats']['median'])})",
                     f"{fmt(st)} ({us(sp['stats']['median'])})" if sp else "-",
                     f"{ratio:.2f}" if ratio else "-", fmt(ft)])
    out = [table(["model", "ep", "layer", "M", "routing", "GFLOP (routed rows)",
                  "BF16 grouped TFLOP/s (time)", "BF16 strided TFLOP/s (time)", "grouped / strided",
                  "FP8 strided TFLOP/s"], rows)]
    for r, v in sorted(ratios.items()):
        v = [x for x in v if x]
        out.append(f"- {r}: grouped / strided median {statistics.median(v):.2f}, range {min(v):.2f}-{max(v):.2f}, "
                   f"grouped ahead at {sum(x > 1 for x in v)} of {len(v)} points")
    kern = collections.Counter()
    for k, p in g.items():
        for kk in p.get("backend_info", {}).get("kernel_clock", {}).get("kernels", []):
            if kk.get("kind") == "kernel" and "memset" not in kk["name"]:
                kern[(k[0], k[6], re.sub(r"\(.*", "", kk["name"])[:90])] += 1
    out.append("\nKernels the MoE points ran (kernel clock):")
    out += [f"- {b} {i}: `{n}` x {c}" for (b, i, n), c in sorted(kern.items(), key=lambda x: -x[1])[:6]]
    return "\n".join(out)


def fwd_vs_bwd(pts, bench_names, key_axes, unit_track):
    g = collections.defaultdict(dict)
    for p in pts:
        b = p["_bench"].split(".")[1]
        if b not in bench_names or p["status"] != "ok":
            continue
        a = p["_axes"]
        g[(b,) + tuple(a[x] for x in key_axes)][a["pass"]] = p
    rows = []
    ratio = collections.defaultdict(list)
    for k in sorted(g, key=lambda k: tuple(int(x) if x.isdigit() else x for x in k)):
        s = g[k]
        f = track(s["fwd"], unit_track)
        cells = []
        for ps in ("fwd", "bwd", "fwd+bwd"):
            if ps not in s:
                cells.append("-")
                continue
            v = track(s[ps], unit_track)
            pb = track(s[ps], "percent_of_peak_bandwidth")
            pct = f"{pb:.0f}%" if pb is not None else None
            if ps == "fwd":
                cells.append(f"{fmt(v)} ({pct})" if pct else fmt(v))
            else:
                cells.append(f"{fmt(v)} ({v / f:.2f}{'; ' + pct if pct else ''})")
            if ps == "bwd":
                ratio[k[0]].append(v / f)
        clock = "/".join(s[ps].get("backend_info", {}).get("clock", "-") for ps in ("fwd", "bwd") if ps in s)
        rows.append(list(k) + cells + [clock])
    unit = "TFLOP/s" if unit_track == "tflops" else "GB/s"
    pct = "; % of DRAM peak" if unit_track == "gbytes_per_second" else ""
    out = [table(["op"] + list(key_axes) + [f"fwd {unit}{' (% of DRAM peak)' if pct else ''}",
                                            f"bwd (ratio to fwd{pct})", f"fwd+bwd (ratio{pct})", "clock fwd/bwd"], rows)]
    for b, v in sorted(ratio.items()):
        out.append(f"- {b}: bwd / fwd median {statistics.median(v):.2f}, range {min(v):.2f}-{max(v):.2f}")
    return "\n".join(out)


def attention_matrix(pts):
    g = {}
    for p in pts:
        if p["_bench"].split(".")[1] != "attention_matrix":
            continue
        a = p["_axes"]
        g[(a["mask"], int(a["window"]), a["dropout"], a["layout"], a["dtype"], a["pass"])] = p
    base = {ps: g.get(("none", 0, "0.0", "bshd", "bf16", ps)) for ps in ("fwd", "bwd")}
    rows = []
    skipped = collections.Counter()
    for k in sorted(g):
        if k[5] != "fwd":
            continue
        cells = []
        for ps in ("fwd", "bwd"):
            p = g.get(k[:5] + (ps,))
            if p is None:
                cells.append("-")
            elif p["status"] != "ok":
                cells.append(p["status"])
                skipped[p.get("reason", "")] += 1
            else:
                v = track(p, "tflops")
                b = track(base[ps], "tflops") if base[ps] else None
                cells.append(f"{fmt(v)} ({us(p['stats']['median'])}; {v / b:.2f})" if b else fmt(v))
        if all(c == "skipped" for c in cells):
            continue
        rows.append(list(k[:5]) + cells)
    out = [table(["mask", "window", "dropout", "layout", "dtype",
                  "fwd TFLOP/s (time; ratio to none/0/0.0/bshd/bf16)", "bwd TFLOP/s (time; ratio)"], rows)]
    for r, n in skipped.items():
        out.append(f"- skipped: {n} points ({r})")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite_json")
    ap.add_argument("--big-tflop", type=float, default=1.0,
                    help="a GEMM shape is 'big' when its forward product is at least this many TFLOP (default 1)")
    ap.add_argument("--tolerance", type=float, default=0.10, help="backward within this fraction of forward (0.10)")
    ap.add_argument("--bf16-peak", type=float, default=989.4,
                    help="nominal dense BF16/FP16 TFLOP/s (H200 SXM datasheet: 989.4)")
    ap.add_argument("--fp8-peak", type=float, default=1978.9, help="nominal dense FP8 TFLOP/s (H200 SXM: 1978.9)")
    args = ap.parse_args()
    pts = load(args.suite_json)

    st = collections.Counter(p["status"] for p in pts)
    print(f"# Suite summary: {len(pts)} points, " + ", ".join(f"{n} {s}" for s, n in sorted(st.items())))
    reasons = collections.Counter((p["_bench"], p.get("reason", "")) for p in pts if p["status"] != "ok")
    for (b, r), n in sorted(reasons.items()):
        print(f"- {n} x {b}: {r}")
    print(f"\n## Per op (dense peaks: BF16/FP16 {args.bf16_peak:g}, FP8 {args.fp8_peak:g} TFLOP/s; "
          f"DRAM peak from each point's own track)\n")
    print(per_op(pts, args.bf16_peak, args.fp8_peak))
    print("\n## GEMM backward against forward\n")
    print(gemm_backward(pts, args.big_tflop, args.tolerance))
    print("\n## Grouped MoE GEMM beside the strided baseline (same routed tokens)\n")
    print(moe(pts))
    print("\n## Norm backward against forward (GB/s)\n")
    print(fwd_vs_bwd(pts, {"rmsnorm", "layernorm"}, ("M", "hidden"), "gbytes_per_second"))
    print("\n## Attention backward against forward (TFLOP/s)\n")
    print(fwd_vs_bwd(pts, {"attention"}, ("model", "mask", "seq"), "tflops"))
    print("\n## Attention matrix (Llama-3.1-8B heads, seq 4096, batch 2)\n")
    print(attention_matrix(pts))
    return 0


if __name__ == "__main__":
    sys.exit(main())

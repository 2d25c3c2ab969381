#!/usr/bin/env python3
"""Strip per-sample arrays from pitot JSON (and asv results files) under a folder, in place.
Usage: strip.py DIR [--keep-samples GLOB ...] [--asv-samples]"""
import argparse, fnmatch, json, os, sys

POINT_DROP = {"samples", "sample_process", "clock_ratios"}
KC_DROP = {"busy_samples", "event_samples"}

def is_pitot(d):
    return isinstance(d, dict) and isinstance(d.get("points"), list) and "schema_version" not in d

def strip_pitot(d, keep_samples):
    for p in d["points"]:
        for k in list(p):
            if k in POINT_DROP and not (keep_samples and k == "samples"):
                del p[k]
        kc = p.get("backend_info", {}).get("kernel_clock") if isinstance(p.get("backend_info"), dict) else None
        if isinstance(kc, dict):
            for k in KC_DROP:
                kc.pop(k, None)

def strip_asv(d):
    cols = d["result_columns"]
    i = cols.index("samples")
    for k, r in d["results"].items():
        if isinstance(r, list) and len(r) > i:
            r[i] = None

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--keep-samples", nargs="*", default=[])
    ap.add_argument("--asv-samples", action="store_true", help="null the samples column of asv results files")
    a = ap.parse_args()
    for root, _, files in os.walk(a.dir):
        for f in files:
            if not f.endswith(".json"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, a.dir)
            raw = open(path).read()
            try:
                d = json.loads(raw)
            except ValueError:
                print("not JSON, left:", rel, file=sys.stderr); continue
            if is_pitot(d):
                strip_pitot(d, any(fnmatch.fnmatch(rel, g) for g in a.keep_samples))
            elif a.asv_samples and isinstance(d, dict) and "result_columns" in d and "samples" in d["result_columns"]:
                strip_asv(d)
            else:
                continue
            lines = raw.split("\n", 2)
            indent = len(lines[1]) - len(lines[1].lstrip(" ")) if len(lines) > 1 and lines[1].strip() else None
            with open(path, "w") as out:
                json.dump(d, out, indent=indent, ensure_ascii=False)
                if raw.endswith("\n"): out.write("\n")

main()

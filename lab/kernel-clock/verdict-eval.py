#!/usr/bin/env python3
"""Judge `pitot compare` on separate-process runs (lab/kernel-clock/verdict-data.sh's --json files): group the runs
of each side into K-process runs (as `pitot run --processes K` would pool them: samples pooled,
per-process medians kept), compare every ordered pair of groups with the real `pitot compare`,
and count exit codes and verdicts per point. Standard library only.

  lab/kernel-clock/verdict-eval.py --pitot PITOT --k 3 --base 'DIR/spin-1.00-*.json' [--head 'DIR/spin-1.05-*.json']
Without --head the base groups are compared with each other (no change: every "slower" is a
false alarm)."""
import argparse
import collections
import glob
import itertools
import json
import os
import subprocess
import sys
import tempfile


def pool(paths, out):
    """One pitot JSON holding the points of several single-process runs."""
    docs = [json.load(open(p)) for p in paths]
    merged = dict(docs[0])
    points = []
    for i, first in enumerate(docs[0]["points"]):
        p = dict(first)
        same = [d["points"][i] for d in docs]
        if any(q["status"] != "ok" for q in same):
            p["status"] = "failed"
            p["reason"] = "failed in one of the pooled processes"
        else:
            p["samples"] = [s for q in same for s in q["samples"]]
            p["sample_process"] = [k for k, q in enumerate(same) for _ in q["samples"]]
            p["process_medians"] = [q["stats"]["median"] for q in same]
            p.pop("stats", None)  # compare recomputes from the samples
        points.append(p)
    merged["points"] = points
    json.dump(merged, open(out, "w"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pitot", required=True)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--base", required=True)
    ap.add_argument("--head")
    ap.add_argument("--extra", default="", help="more arguments for pitot compare")
    args = ap.parse_args()
    base = sorted(glob.glob(args.base))
    head = sorted(glob.glob(args.head)) if args.head else []
    tmp = tempfile.mkdtemp()

    def groups(paths, tag):
        out = []
        for g in range(len(paths) // args.k):
            path = os.path.join(tmp, f"{tag}-{g}.json")
            pool(paths[g * args.k:(g + 1) * args.k], path)
            out.append(path)
        return out

    b = groups(base, "base")
    pairs = list(itertools.permutations(b, 2)) if not head else list(itertools.product(b, groups(head, "head")))
    codes = collections.Counter()
    verdicts = collections.defaultdict(collections.Counter)
    for x, y in pairs:
        r = subprocess.run([args.pitot, "compare", x, y, "--json"] + args.extra.split(), capture_output=True, text=True)
        codes[r.returncode] += 1
        if r.returncode not in (0, 1):
            print(r.stderr, file=sys.stderr)
            continue
        for p in json.loads(r.stdout)["points"]:
            verdicts[p["name"]][p["verdict"]] += 1
    print(f"K={args.k}: {len(pairs)} ordered pairs; exit codes {dict(codes)}")
    for name, c in sorted(verdicts.items()):
        print(f"  {name}: {dict(c)}")


if __name__ == "__main__":
    main()

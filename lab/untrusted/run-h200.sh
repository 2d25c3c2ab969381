#!/bin/sh
# The untrusted mode's exploit corpus (tests/untrusted/corpus.cu) on a GPU, under pitot run, trusted
# (the default) and with --untrusted: a table of each attack's trusted reading and its untrusted
# verdict and reason (docs/untrusted.md). About a minute.
# Usage: run-h200.sh BIN_DIR OUT_DIR
#   BIN_DIR: a build's folder holding src/driver/pitot and tests/untrusted/programs/untrusted_corpus
#   (ninja pitot untrusted_corpus). OUT_DIR gets trusted.json, untrusted.json and table.md.
set -eu
bin=$1
out=$2
mkdir -p "$out"
pitot=$bin/src/driver/pitot
corpus=$bin/tests/untrusted/programs/untrusted_corpus
for f in "$pitot" "$corpus"; do
  [ -x "$f" ] || { echo "run-h200.sh: $f is missing: build the targets pitot and untrusted_corpus in $bin" >&2; exit 2; }
done
nvidia-smi -L >/dev/null 2>&1 || { echo "run-h200.sh: no NVIDIA GPU here (nvidia-smi -L fails)" >&2; exit 2; }
limits="--no-interleave --min-samples 10 --max-time 0.5 --timeout 60 --progress plain"
# Exit 1 means some point failed: expected under --untrusted.
"$pitot" run "$corpus" $limits --json "$out/trusted.json" --asv-dir "$out/asv-trusted" || true
"$pitot" run "$corpus" $limits --untrusted --json "$out/untrusted.json" --asv-dir "$out/asv-untrusted" || true
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def points(name):
    return {p["name"]: p for p in json.load(open(os.path.join(out, name)))["points"]}
trusted, untrusted = points("trusted.json"), points("untrusted.json")
def reading(p):
    if p is None: return "not reported"
    if p["status"] != "ok": return f"{p['status']}: {p.get('reason', '')}"
    m = p["stats"]["median"]
    tf = [t["value"] for t in p.get("tracks", []) if t["name"] == "tflops"]
    return f"ok, {m * 1e6:.2f} us" + (f", {tf[0]:.0f} TFLOP/s" if tf else "")
rows = ["| attack | trusted reading | untrusted verdict | reason |", "|---|---|---|---|"]
for name in trusted.keys() | untrusted.keys():
    u = untrusted.get(name)
    verdict = "not reported" if u is None else ("accepted" if u["status"] == "ok" else u["status"])
    reason = reading(u) if u is not None and u["status"] == "ok" else (u or {}).get("reason", "")
    rows.append(f"| {name} | {reading(trusted.get(name))} | {verdict} | {reason} |")
text = "\n".join(sorted(rows[2:], key=lambda r: (not r.startswith("| honest"), r)))
text = "\n".join(rows[:2]) + "\n" + text + "\n"
open(os.path.join(out, "table.md"), "w").write(text)
print(text)
PY

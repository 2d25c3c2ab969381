#!/usr/bin/env bash
# The fence (--sandbox require: bubblewrap) on a GPU machine (issue 34, item 3), by hand: can bwrap
# run there at all, and does a fenced program still reach the GPU with the same numbers? Runs a few
# points of bench_copy under --untrusted with the fence required and with it off, alternated.
# usage: lab/untrusted/fence-gpu.sh BIN_DIR BWRAP_DIR OUT_DIR
#   (BWRAP_DIR: a folder with bwrap and the libraries it needs, put first on PATH and
#   LD_LIBRARY_PATH where the machine has no bubblewrap of its own)
set -uo pipefail
bin=$(cd "${1:?usage: fence-gpu.sh BIN_DIR BWRAP_DIR OUT_DIR}" && pwd)
fence=$(cd "${2:?}" && pwd)
out=${3:?}/fence-gpu
mkdir -p "$out"
export PATH="$fence:$PATH" LD_LIBRARY_PATH="$bin:$fence:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; id -u
  echo "bwrap: $(command -v bwrap) $(bwrap --version 2>&1)"
  echo "unprivileged user namespaces: $(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo n/a)," \
    "apparmor_restrict_unprivileged_userns: $(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null || echo n/a)"
  timeout 10 bwrap --unshare-net --unshare-pid --ro-bind / / --dev-bind /dev /dev --proc /proc --cap-drop ALL -- \
    /bin/sh -c 'echo "inside: $(id -u), nvidia nodes: $(ls /dev | grep -c nvidia)"; touch /etc/pitot-fence-probe 2>&1 | tail -1'
  echo "bare bwrap: exit $?"
} >"$out/environment.txt" 2>&1
cat "$out/environment.txt"
for round in 1 2; do
  for sandbox in require off; do
    timeout 60 "$bin/pitot" run "$bin/bench_copy" --filter 'memcpy' --untrusted --sandbox "$sandbox" --no-asv \
      --json "$out/$sandbox-$round.json" >"$out/$sandbox-$round.log" 2>&1
    echo "round $round, --sandbox $sandbox: exit $?"
    grep -i -E 'sandbox|fence|bwrap' "$out/$sandbox-$round.log" | head -3
  done
done | tee "$out/steps.txt"
python3 - "$out" <<'PY' | tee -a "$out/steps.txt"
import glob, json, os, sys
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-[12].json"))):
    mode = os.path.basename(path).split("-")[0]
    for p in json.load(open(path)).get("points", []):
        rows.setdefault(p["name"], {}).setdefault(mode, []).append((p.get("status"), (p.get("stats") or {}).get("median")))
for name, modes in sorted(rows.items()):
    print(name, {m: [(s, "%.4g" % v if v else v) for s, v in r] for m, r in modes.items()})
PY

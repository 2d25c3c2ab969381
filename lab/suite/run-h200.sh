#!/usr/bin/env bash
# Issue 16 in one device call: the new benchmarks' reference checks on a few points each, then the
# whole GPU suite through `pitot run`, everything tarred into one file.
#  1. environment: GPU, driver, the cuBLAS/cuDNN libraries the programs load, missing libraries;
#  2. checks: each new benchmark on a slice of its points with minimal sampling (every point checks
#     its result against the CPU before it is timed; a wrong result fails the point with the error);
#  3. suite: `pitot run` of every program into an asv database and a JSON file, inside a clone of
#     the repository bundle when one is given (so the results land on a real commit), stopped with
#     SIGTERM (the driver keeps what finished) before the device call's limit;
#  4. summaries: points by status and clock (lab/suite/status-summary.py), failures and skips with reasons.
# Usage: lab/suite/run-h200.sh BIN_DIR OUT_DIR [REPO_BUNDLE]
#   BIN_DIR: pitot, libpitot_cupti.so, libcupti.so.13 and the bench_* programs (libzip.so.4 in
#   BIN_DIR/../lib is put on LD_LIBRARY_PATH). Writes OUT_DIR/suite16.tgz.
# Environment: BUDGET_S (seconds for the whole script, default 570), MAX_TIME (a point's sampling
# limit, default 0.5 s as in the first H200 suite run), CHECK_S (seconds for step 2, default 90).
set -uo pipefail
bin=$(cd "${1:?usage: lab/suite/run-h200.sh BIN_DIR OUT_DIR [REPO_BUNDLE]}" && pwd)
out_root=${2:?usage: lab/suite/run-h200.sh BIN_DIR OUT_DIR [REPO_BUNDLE]}
bundle=${3:-}
budget=${BUDGET_S:-570}
max_time=${MAX_TIME:-0.5}
check_s=${CHECK_S:-90}
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }

out="$out_root/suite16"
mkdir -p "$out/checks"
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="$bin:$bin/../lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
programs=(bench_memory bench_norm bench_cast bench_gemm bench_attention bench_copy bench_spin)

# 1. Environment.
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  ls -la /usr/local/cuda/lib*/libcudnn.so* /usr/local/cuda/lib*/libcublas*.so* 2>&1
  for p in "${programs[@]}" pitot; do
    [ -x "$bin/$p" ] || { echo "$p: not in $bin"; continue; }
    missing=$(ldd "$bin/$p" | grep "not found")
    echo "$p: ${missing:-all libraries found}"
  done
} > "$out/environment.txt" 2>&1

# 2. The new benchmarks' reference checks, a slice of each (small and large shapes, every pass).
check() {
  local name=$1 program=$2
  shift 2
  [ -x "$bin/$program" ] || { echo "$name: $program missing" >> "$out/checks/summary.txt"; return; }
  local t=$(( $(left) < check_s ? $(left) : check_s ))
  [ "$t" -gt 20 ] || { echo "$name: no time left" >> "$out/checks/summary.txt"; return; }
  timeout "$t" "$bin/$program" --quiet --warmup 0 --min-samples 2 --min-time 0 --max-time 0.02 \
    --json "$out/checks/$name.json" "$@" > "$out/checks/$name.log" 2>&1
  echo "$name: exit $?" >> "$out/checks/summary.txt"
}
check_start=$(date +%s)
check gemm bench_gemm --filter '^gemm_(bf16|fp8)\[model=llama3\.1-(8b|405b),tp=8,layer=(qkv|gate_up),M=2048'
check moe bench_gemm --filter '^moe_(bf16|fp8)\[model=(deepseek-v2-lite|deepseek-v3),ep=(8|32),layer=gate_up,routing=(balanced|skewed),M=512'
check norm bench_norm --filter 'M=1024,hidden=(3584|16384)'
check attention bench_attention --filter '^attention\[model=(llama3\.1-8b|qwen2\.5-7b),mask=(none|causal),seq=1024'
check matrix bench_attention --filter '^attention_matrix\[.*pass=bwd\]'
echo "checks: $(( $(date +%s) - check_start )) s" >> "$out/checks/summary.txt"

# 3. The whole suite through the driver.
run_dir=$PWD
if [ -n "$bundle" ] && [ -f "$bundle" ]; then
  rm -rf /tmp/suite16-repo && git clone -q "$bundle" /tmp/suite16-repo && run_dir=/tmp/suite16-repo
fi
suite_s=$(( $(left) - 25 ))
asv=(--asv-dir "$out/asv/results" --machine h200)
# Without a repository to name the commit, results go to the JSON file only.
git -C "$run_dir" rev-parse HEAD > /dev/null 2>&1 || asv=(--no-asv)
args=()
for p in "${programs[@]}"; do [ -x "$bin/$p" ] && args+=("$bin/$p"); done
if [ "$suite_s" -gt 30 ]; then
  t=$(date +%s)
  (cd "$run_dir" && timeout -s TERM "$suite_s" "$bin/pitot" run "${args[@]}" "${asv[@]}" \
     --max-time "$max_time" --progress plain --json "$out/suite.json") > "$out/suite.log" 2>&1
  code=$?
  echo "pitot run: exit $code, $(( $(date +%s) - t )) s wall, limit $suite_s s, --max-time $max_time" | tee -a "$out/suite.log"
else
  echo "pitot run: not started, $suite_s s left" > "$out/suite.log"
fi

# 4. Summaries.
if [ -f "$out/suite.json" ]; then
  python3 "$here/lab/suite/status-summary.py" "$out/suite.json" > "$out/summary.txt" 2>&1
  python3 - "$out/suite.json" >> "$out/summary.txt" 2>&1 <<'EOF'
import collections, json, sys
points = json.load(open(sys.argv[1]))["points"]
by = collections.Counter((p["program"], p["name"].split("[")[0], p["status"]) for p in points)
for (program, bench, status), n in sorted(by.items()):
    print(f"{program}.{bench} {status} {n}")
reasons = collections.Counter((p["name"].split("[")[0], p.get("reason", "")[:160]) for p in points if p["status"] == "skipped")
for (bench, reason), n in sorted(reasons.items()):
    print(f"SKIPPED {n} x {bench}: {reason}")
EOF
fi
for f in "$out"/checks/*.json; do
  [ -f "$f" ] && python3 - "$f" >> "$out/checks/summary.txt" 2>&1 <<'EOF'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
points = doc.get("points", doc.get("results", []))
print(sys.argv[1].rsplit("/", 1)[-1], dict(collections.Counter(p.get("status") for p in points)))
for p in points:
    if p.get("status") != "ok":
        print("  ", p.get("status"), p.get("name"), (p.get("reason") or "")[:300])
EOF
done
tar -czf "$out_root/suite16.tgz" -C "$out_root" suite16
echo "lab/suite/run-h200.sh: done in $(( $(date +%s) - start )) s: $out_root/suite16.tgz"

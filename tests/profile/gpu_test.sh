#!/bin/sh
# pitot profile on a real GPU: the CUPTI tracer (and ncu when installed) on the bundled GPU suite.
# Usage: gpu_test.sh PITOT LIBPITOT_CUPTI BUILD_DIR WORK_DIR. Exit 77 (skipped) without a GPU.
pitot=$1 lib=$2 build=$3 work=$4
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
  echo "skipped: no NVIDIA GPU here"; exit 77
fi
prog=$(python3 -c "import json,sys; p=[x['path'] for x in json.load(open(sys.argv[1]))['programs'] if x['name']=='bench_copy']; print(p[0] if p else '')" "$build/pitot-manifest.json" 2>/dev/null)
if [ -z "$prog" ] || [ ! -x "$prog" ]; then echo "skipped: bench_copy is not built"; exit 77; fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
filter=${PITOT_PROFILE_TEST_FILTER:-.}
"$pitot" profile "$prog" --tool cupti --tool-path "$lib" --filter "$filter" -o cupti.zip || exit 1
python3 - cupti.zip <<'PY' || exit 1
import gzip, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
ev = json.loads(gzip.decompress(z.read("profile/trace.json.gz")))["traceEvents"]
cats = {}
for e in ev:
    cats[e.get("cat")] = cats.get(e.get("cat"), 0) + 1
ranges = [e["name"] for e in ev if e.get("cat") == "nvtx" and e["name"].startswith("pitot:")]
print("events by category:", cats)
print("point ranges:", ranges[:5], "..." if len(ranges) > 5 else "")
assert cats.get("kernel", 0) + cats.get("memcpy", 0) > 0, "no device activity in the trace"
assert ranges, "no pitot: NVTX range in the trace"
assert cats.get("cuda_runtime", 0) > 0, "no runtime API calls in the trace"
PY
if command -v ncu >/dev/null 2>&1; then
  "$pitot" profile "$prog" --tool ncu --clock-control none --ncu-set basic --filter "$filter" -o ncu.zip || exit 1
  python3 -c "import zipfile,sys; z=zipfile.ZipFile('ncu.zip'); assert 'profile/report.ncu-rep' in z.namelist(); print(z.read('summary.txt').decode())" || exit 1
fi
echo ok

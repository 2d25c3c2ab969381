#!/usr/bin/env bash
# End to end: write a database for two commits of a throwaway git repo with pitot's writer,
# then let the real asv 0.6.6 read it (scripts/asv-check --strict).
# usage: asv_e2e.sh WRITER ASV_CHECK BUILD_DIR
set -euo pipefail
writer=${1:?usage: asv_e2e.sh WRITER ASV_CHECK BUILD_DIR}
check=${2:?usage}
build=${3:?usage}
export PITOT_ASV_VENV=${PITOT_ASV_VENV:-$build/.venv-asv}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pitot-asv-e2e.XXXXXX")
cleanup() { if [ "${ok:-0}" = 1 ]; then rm -rf "$tmp"; else echo "asv_e2e: left $tmp for inspection" >&2; fi; }
trap cleanup EXIT

(
  cd "$tmp" && mkdir repo && cd repo
  export GIT_AUTHOR_NAME=pitot GIT_AUTHOR_EMAIL=pitot@example.invalid
  export GIT_COMMITTER_NAME=pitot GIT_COMMITTER_EMAIL=pitot@example.invalid
  export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
  git init -q && git symbolic-ref HEAD refs/heads/main
  echo one > f.txt && git add f.txt
  GIT_AUTHOR_DATE=2024-01-01T00:00:00+0000 GIT_COMMITTER_DATE=2024-01-01T00:00:00+0000 \
    git -c commit.gpgsign=false commit -q -m one
  echo two > f.txt && git add f.txt
  GIT_AUTHOR_DATE=2024-01-02T00:00:00+0000 GIT_COMMITTER_DATE=2024-01-02T00:00:00+0000 \
    git -c commit.gpgsign=false commit -q -m two
)
cat > "$tmp/asv.conf.json" <<'JSON'
{
  "version": 1,
  "project": "pitot-e2e",
  "project_url": "https://example.invalid/pitot-e2e",
  "show_commit_url": "https://example.invalid/pitot-e2e/commit/",
  "repo": "repo",
  "dvcs": "git",
  "branches": ["main"],
  "environment_type": "existing",
  "results_dir": "results",
  "html_dir": "html"
}
JSON

"$writer" "$tmp/results" "$tmp/repo" HEAD~1 1
"$writer" "$tmp/results" "$tmp/repo" HEAD 2
# Writing the same commit again merges into the file instead of duplicating it.
"$writer" "$tmp/results" "$tmp/repo" HEAD 2

out=$("$check" --strict "$tmp" 2>&1) || { echo "$out"; echo "asv_e2e: asv-check failed" >&2; exit 1; }
echo "$out"
# The doubled times must show as regressions, the failure as '!', in asv's own compare.
grep -E "^\| \+ .*bench_e2e\.sort_ints\(1000, 'std::sort'\)" <<<"$out" >/dev/null ||
  { echo "asv_e2e: asv compare did not flag the 2x slower sort_ints(1000, 'std::sort')" >&2; exit 1; }
grep -E "^\| ! .*bench_e2e\.sort_ints\(100000, \"it's stable\"\)" <<<"$out" >/dev/null ||
  { echo "asv_e2e: asv compare did not flag the newly failed point" >&2; exit 1; }

# The checker itself must see what asv only logs: a broken results file next to the good ones.
machine_dir=$(dirname "$(ls "$tmp"/results/*/machine.json | head -1)")
echo '{"version": 2, "results": {' > "$machine_dir/deadbeef-broken.json"
if "$check" --strict "$tmp" >"$tmp/broken.log" 2>&1; then
  cat "$tmp/broken.log"; echo "asv_e2e: asv-check passed a database with a broken results file" >&2; exit 1
fi
grep -q "WARNING logged by asv: Error parsing JSON" "$tmp/broken.log" ||
  { cat "$tmp/broken.log"; echo "asv_e2e: asv-check failed, but not on the broken file" >&2; exit 1; }
echo "asv_e2e: OK (asv read the database cleanly; asv-check caught the broken file)"
ok=1

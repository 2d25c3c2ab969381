#!/usr/bin/env bash
# Runs the example program into a temporary asv folder for two commits of a throwaway git repo,
# checks every file against docs/asv-format.md, then has the real asv publish/compare/show it.
set -euo pipefail
prog=$1 asv_check=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

repo=$work/repo
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" symbolic-ref HEAD refs/heads/main
commit() {
  echo "$1" > "$repo/file.txt"
  git -C "$repo" add file.txt
  GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid \
    GIT_AUTHOR_DATE="$2" GIT_COMMITTER_DATE="$2" git -C "$repo" -c commit.gpgsign=false commit -q -m "$1"
}
commit first "2024-03-01T00:00:00+0000"
commit second "2024-03-02T00:00:00+0000"
first=$(git -C "$repo" rev-parse HEAD~1)
second=$(git -C "$repo" rev-parse HEAD)

cat > "$work/asv.conf.json" <<JSON
{"version": 1, "project": "e2e", "project_url": "https://example.invalid/e2e",
 "show_commit_url": "https://example.invalid/e2e/commit/", "repo": "repo", "dvcs": "git",
 "branches": ["main"], "environment_type": "existing", "results_dir": "results", "html_dir": "html"}
JSON

knobs=(--quiet --max-time 0.05 --min-time 0.01 --warmup 0 --machine e2e-box --env cpp-e2e)
# A bad input planted through --axis fails one point: exit 1, results still written.
for c in "$first" "$second"; do
  set +e
  (cd "$repo" && "$prog" "${knobs[@]}" --axis 'parse_numbers:input=12345,not-a-number' --commit "$c" --asv-dir "$work/results" --json "$work/run-${c:0:8}.json")
  rc=$?
  set -e
  [ "$rc" -eq 1 ] || { echo "expected exit 1 (one planted failing point), got $rc"; exit 1; }
done
# A filtered run merges into the same file without erasing the other benchmarks.
(cd "$repo" && "$prog" "${knobs[@]}" --commit "$second" --asv-dir "$work/results" --filter 'saxpy')

"$python" "$here/check_asv_files.py" "$work/results" "$first" "$second" "$work/run-${second:0:8}.json"
"$python" "$asv_check" --strict "$work" "$first" "$second"
echo "example suite e2e: passed"

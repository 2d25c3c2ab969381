#!/usr/bin/env bash
# The example suite into two asv databases, one written by the program itself (--asv-dir) and one
# by `pitot run`, each compared in shape with a committed snapshot (asv_snapshot.py says what is
# masked). A change to what lands in the database fails here; when it is intended, regenerate:
#   tests/e2e/asv_snapshot.sh PROGRAM PITOT PYTHON --update
# The two databases are also held equal to each other (same_record.py: one run record for both
# executables), and so are two more written with the defaults: no --machine or --env, and an
# ~/.asv-machine.json that both must continue.
set -euo pipefail
prog=$1 pitot=$2 python=$3 update=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

repo=$work/repo
mkdir -p "$repo"
git -C "$repo" init -q
GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid \
  git -C "$repo" -c commit.gpgsign=false commit -q --allow-empty -m snapshot

knobs=(--max-time 0.02 --min-time 0 --warmup 0 --min-samples 3)
# The planted failure (one point fails, exit 1) is part of the shape: a failed point's row.
planted=(--axis 'parse_numbers:input=12345,not-a-number')
set +e
(cd "$repo" && "$prog" --quiet "${knobs[@]}" "${planted[@]}" --machine snap-box --env snap-env --asv-dir "$work/program")
rc_program=$?
(cd "$repo" && "$pitot" run "$prog" --progress none "${knobs[@]}" "${planted[@]}" --machine snap-box --env snap-env \
   --asv-dir "$work/driver" > "$work/driver.log" 2>&1)
rc_driver=$?
set -e
[ "$rc_program" -eq 1 ] || { echo "program: expected exit 1 (the planted failing point), got $rc_program"; exit 1; }
[ "$rc_driver" -eq 1 ] || { cat "$work/driver.log"; echo "pitot run: expected exit 1, got $rc_driver"; exit 1; }

# The defaults: machine and env chosen by each executable, from asv's record of this host.
home=$work/home
mkdir -p "$home"
printf '{"version": 1, "asv-box": {"arch": "x86_64", "cpu": "Some CPU", "machine": "asv-box", "num_cpu": "2", "os": "Linux 6.1.0-18-amd64", "ram": "25276203008"}}\n' \
  > "$home/.asv-machine.json"
set +e
(cd "$repo" && HOME=$home "$prog" --quiet "${knobs[@]}" --filter saxpy --asv-dir "$work/program-defaults")
rc_program=$?
(cd "$repo" && HOME=$home XDG_CACHE_HOME=$home/.cache "$pitot" run "$prog" --progress none "${knobs[@]}" --filter saxpy \
   --asv-dir "$work/driver-defaults" > "$work/driver-defaults.log" 2>&1)
rc_driver=$?
set -e
[ "$rc_program" -eq 0 ] || { echo "program with the defaults: exit $rc_program"; exit 1; }
[ "$rc_driver" -eq 0 ] || { cat "$work/driver-defaults.log"; echo "pitot run with the defaults: exit $rc_driver"; exit 1; }
[ -f "$work/program-defaults/asv-box/machine.json" ] || { ls -R "$work/program-defaults"; echo "the program did not continue asv's machine"; exit 1; }

status=0
for side in program driver; do
  "$python" "$here/asv_snapshot.py" "$work/$side" "$here/data/example-suite-$side.snapshot.json" $update || status=1
done
"$python" "$here/same_record.py" "$work/program" "$work/driver" || status=1
"$python" "$here/same_record.py" "$work/program-defaults" "$work/driver-defaults" || status=1
exit $status

#!/usr/bin/env bash
# The README's commands in a fresh debootstrap root, as a new user meets them (by hand, not in CI;
# needs root, debootstrap and network). usage: lab/fresh-root/run.sh bookworm|noble ROOT COMMAND
# e.g. lab/fresh-root/run.sh bookworm /tmp/deb12 scripts/test.sh
# The root gets a `git clone` of this checkout's HEAD in /root/pitot and runs COMMAND there in a
# chroot with /proc, /sys and /dev bound, under `env -i` (a fresh login's variables only). This
# workplace reaches PyPI through a proxy with its own CA: where SSL_CERT_FILE is set here, the
# root gets that bundle as PIP_CERT (a machine with direct access needs none).
set -euo pipefail
suite=${1:?bookworm or noble}
root=${2:?ROOT folder}
command=${3:?the command to run, e.g. scripts/test.sh}
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -x "$root/usr/bin/apt-get" ]; then
  case $suite in
    bookworm) debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian ;;
    noble)
      # Debian 12's debootstrap has no noble script; gutsy's is the one every later Ubuntu uses.
      debootstrap --variant=minbase --no-check-gpg --components=main,universe noble "$root" http://archive.ubuntu.com/ubuntu \
        /usr/share/debootstrap/scripts/gutsy
      printf 'deb [trusted=yes] http://archive.ubuntu.com/ubuntu %s main universe\n' noble noble-updates noble-security \
        > "$root/etc/apt/sources.list" ;;
    *) echo "unknown suite $suite (bookworm or noble)" >&2; exit 2 ;;
  esac
fi
rm -rf "$root/root/pitot"
git clone -q "$here" "$root/root/pitot"
cert=
if [ -n "${SSL_CERT_FILE:-}" ]; then cp "$SSL_CERT_FILE" "$root/root/proxy-ca.crt"; cert=PIP_CERT=/root/proxy-ca.crt; fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
for d in proc sys dev; do mountpoint -q "$root/$d" || mount --rbind "/$d" "$root/$d"; done
rc=0
chroot "$root" env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $cert \
  bash -c "cd /root/pitot && $command" || rc=$?
for d in dev sys proc; do umount -R "$root/$d" 2>/dev/null || umount -lR "$root/$d" || true; done
echo "fresh-root $suite: '$command' exit $rc"
exit "$rc"

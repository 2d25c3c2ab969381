#!/usr/bin/env bash
# Installs what pitot needs to build and test, from the distribution's packages (Debian 12, Ubuntu 24.04).
# Only missing packages are installed; uses sudo when not run as root.
# --with-hip also installs the distribution's HIP compiler and runtime (about 600 MB), so that the
# HIP flavour builds and its host-side tests run on a machine without an AMD GPU.
set -euo pipefail
packages=(build-essential cmake ninja-build git pkg-config
          nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libzip-dev zlib1g-dev
          python3 python3-venv python3-dev python3-yaml
          bubblewrap)  # pitot run --untrusted's fence (docs/untrusted.md)
for arg in "$@"; do
  case "$arg" in
    --with-hip) packages+=(hipcc libamdhip64-dev) ;;
    *) echo "install-deps.sh: unknown option $arg (known: --with-hip)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "pitot: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "pitot: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

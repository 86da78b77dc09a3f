#!/usr/bin/env bash
# Makes sure the Debian packages listed in system-packages.txt are installed.
# As root it installs the missing ones; otherwise it prints the one command to run and fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mapfile -t wanted < <(grep -Ev '^\s*(#|$)' "$here/system-packages.txt" | awk '{print $1}')
missing=()
for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "These system packages are needed but this machine has no apt-get: ${missing[*]}" >&2
    echo "Install their equivalents with your package manager, then run make again." >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "Missing system packages: ${missing[*]}" >&2
    echo "Run this once, then make again:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
echo "Installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"

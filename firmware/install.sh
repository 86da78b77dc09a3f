#!/usr/bin/env bash
# Installs the chute firmware on an RP2040 board running MicroPython, with mpremote.
#
#   firmware/install.sh [--device PORT]   stage the files and copy them onto the board, then reset it
#   firmware/install.sh --stage DIR       only stage: write the exact files the board gets into DIR
#
# The protocol module is copied from the package (companion/devices/chute/cubeproto.py), so host
# and board always speak the same protocol; tests/firmware checks the staged copy byte for byte.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
stage=""
device="auto"
while [ $# -gt 0 ]; do
    case "$1" in
        --stage) stage=${2:?--stage needs a directory}; shift 2 ;;
        --device) device=${2:?--device needs a port, e.g. /dev/ttyACM0}; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "unknown option: $1 (try --help)" >&2; exit 2 ;;
    esac
done
files=(
    "$repo/companion/devices/chute/cubeproto.py"
    "$here/tcs34725.py"
    "$here/chute.py"
    "$here/hostlink.py"
    "$here/main.py"
)
only_stage=1
if [ -z "$stage" ]; then
    only_stage=0
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
fi
mkdir -p "$stage"
cp "${files[@]}" "$stage/"
if [ "$only_stage" -eq 1 ]; then
    echo "staged ${#files[@]} files in $stage"
    exit 0
fi
mpremote=$(command -v mpremote || true)
[ -z "$mpremote" ] && [ -x "$repo/.venv/bin/mpremote" ] && mpremote="$repo/.venv/bin/mpremote"
if [ -z "$mpremote" ]; then
    echo "mpremote is not installed; run: $repo/.venv/bin/pip install mpremote   then try again" >&2
    exit 1
fi
# main.py goes last: once it is on the board a reset starts counting, so the rest must be there.
for f in cubeproto.py tcs34725.py chute.py hostlink.py main.py; do
    "$mpremote" connect "$device" cp "$stage/$f" ":$f"
done
"$mpremote" connect "$device" reset
echo "installed the chute firmware; the board restarts and waits for the host's SYNC"

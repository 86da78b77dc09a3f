#!/usr/bin/env bash
# What can be checked of the Pi deployment on any Linux machine (`make deploy-check`):
#   1. shellcheck on every shell script in the repository;
#   2. a dry run of deploy/install.sh into a temporary root, which must place every file;
#   3. systemd-analyze verify on the placed unit, with its paths moved into that root (verify
#      insists that ExecStart's program exists).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
unit=tower-companion.service

for tool in shellcheck systemd-analyze; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "deploy-check: $tool is not installed; run 'bash scripts/system-packages.sh' as root" >&2
        exit 1
    fi
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Every shell script: *.sh files and files whose first line names a shell. Tracked and new
# files when this is a git checkout (ignored ones are not ours), otherwise everything.
list_files() {
    if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$repo" ls-files -z --cached --others --exclude-standard
    else
        (cd "$repo" && find . -path ./.git -prune -o -path ./.venv -prune -o -type f -print0)
    fi
}

scripts=()
while IFS= read -r -d '' file; do
    path=$repo/$file
    [ -f "$path" ] || continue
    case "$file" in
        *.sh) scripts+=("$path") ;;
        *)
            if head -n 1 "$path" 2>/dev/null | grep -Eq '^#!.*(/|env )(ba|da|k)?sh( |$)'; then
                scripts+=("$path")
            fi
            ;;
    esac
done < <(list_files)

echo "== shellcheck (${#scripts[@]} scripts)"
shellcheck --external-sources "${scripts[@]}"
printf '   %s\n' "${scripts[@]#"$repo"/}"

echo "== dry run of deploy/install.sh into $scratch/root"
bash "$here/install.sh" --root "$scratch/root" --dry-run >"$scratch/install.log"
expected=(
    "etc/systemd/system/$unit"
    etc/udev/rules.d/99-tower-sensor.rules
    var/lib/tower-companion/kivy/config.ini
    etc/tower-companion/settings.toml
    etc/default/tower-companion
    opt/tower-companion/README.md
)
for file in "${expected[@]}"; do
    if [ ! -s "$scratch/root/$file" ]; then
        echo "deploy-check: the dry run did not place /$file" >&2
        cat "$scratch/install.log" >&2
        exit 1
    fi
    echo "   placed /$file"
done

echo "== systemd-analyze verify $unit"
# The unit's own paths, moved into the scratch root; the venv's python is this machine's.
mkdir -p "$scratch/root/opt/tower-companion/venv/bin" "$scratch/unit"
ln -sf "$(command -v python3)" "$scratch/root/opt/tower-companion/venv/bin/python"
sed -e "s|/opt/tower-companion|$scratch/root/opt/tower-companion|g" \
    -e "s|/var/lib/tower-companion|$scratch/root/var/lib/tower-companion|g" \
    -e "s|/etc/tower-companion|$scratch/root/etc/tower-companion|g" \
    -e "s|/etc/default/tower-companion|$scratch/root/etc/default/tower-companion|g" \
    "$scratch/root/etc/systemd/system/$unit" >"$scratch/unit/$unit"
# verify exits 0 on many problems (unknown keys, bad values) and only prints them: any output
# at all is a failure.
if ! systemd-analyze verify "$scratch/unit/$unit" >"$scratch/verify.log" 2>&1 || [ -s "$scratch/verify.log" ]; then
    echo "deploy-check: systemd-analyze verify found problems in deploy/$unit:" >&2
    cat "$scratch/verify.log" >&2
    exit 1
fi
echo "   ok"

#!/usr/bin/env bash
# Installs Tower Companion on Raspberry Pi OS Bookworm (64-bit) as a kiosk: the app starts full
# screen on the touchscreen at boot, without a desktop, and restarts if it fails.
#
#   sudo deploy/install.sh                 install or update, then (re)start the app
#   sudo deploy/install.sh --no-start      install or update, start at the next boot
#   deploy/install.sh --root DIR --dry-run place the files under DIR and only print the
#                                          system commands (apt, users, venv, systemctl);
#                                          what CI runs, no root needed
#
# Safe to run again: it installs what is missing, updates the app and our files, and leaves
# files you are meant to edit (settings.toml, /etc/default/tower-companion) alone.
set -euo pipefail

APP=tower-companion
SERVICE_USER=tower-companion
SERVICE_GROUPS=(video render input gpio dialout)
PREFIX=/opt/$APP
STATE=/var/lib/$APP
# From apt, not pip: picamera2 and lgpio need Raspberry Pi builds (the venv sees them through
# --system-site-packages); libmtdev1 is the touchscreen driver Kivy loads; Mesa's GBM/EGL/GLES
# libraries are what SDL's KMS/DRM driver draws with.
APT_PACKAGES=(
    python3 python3-venv python3-pip
    python3-picamera2 python3-lgpio
    libmtdev1 libgbm1 libdrm2 libegl1 libgles2 libgl1-mesa-dri
)

given_args=("$@")
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
root=/
dry_run=0
start=1

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
}

fail() {
    echo "install.sh: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --root)
            [ $# -ge 2 ] || fail "--root needs a directory, e.g. --root /tmp/pi-root"
            root=$2
            shift 2
            ;;
        --root=*)
            root=${1#--root=}
            shift
            ;;
        --dry-run)
            dry_run=1
            shift
            ;;
        --no-start)
            start=0
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            fail "unknown option '$1' (see --help)"
            ;;
    esac
done

[ -n "$root" ] || fail "--root must not be empty"
if [ "$dry_run" -eq 1 ]; then
    # Compared as files, not names: '//', '/.' or a link to / must not send the dry run's files
    # into the real system.
    if [ -e "$root" ] && [ "$root" -ef / ]; then
        fail "--dry-run writes files under --root; give a scratch directory, e.g. --root \"\$(mktemp -d)\""
    fi
    mkdir -p "$root" || fail "cannot create --root $root"
    root=$(cd "$root" && pwd -P)
else
    [ "$root" = / ] || fail "--root is for dry runs only (add --dry-run); run the real install on the Pi itself"
    [ "$(id -u)" -eq 0 ] || fail "run as root: sudo $0 ${given_args[*]}"
fi

# A path inside the target root.
target() {
    if [ "$root" = / ]; then echo "$1"; else echo "$root$1"; fi
}

say() {
    echo "==> $*"
}

# Runs a command that changes the system, or only shows it in a dry run.
run() {
    if [ "$dry_run" -eq 1 ]; then
        echo "    would run: $*"
    else
        "$@"
    fi
}

# Copies one of our files into place (always: the repository's version is the right one).
place() {
    local src=$1 dst mode=$3
    dst=$(target "$2")
    install -D -m "$mode" "$src" "$dst"
    echo "    placed $2"
}

# Copies a file the owner is meant to edit, only when it is not there yet.
place_once() {
    local src=$1 dst mode=$3
    dst=$(target "$2")
    if [ -e "$dst" ]; then
        echo "    kept $2 (already there; yours to edit)"
    else
        install -D -m "$mode" "$src" "$dst"
        echo "    placed $2"
    fi
}

check_platform() {
    local arch codename=unknown
    arch=$(uname -m)
    if [ -r /etc/os-release ]; then
        # shellcheck disable=SC1091
        codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
    fi
    if [ "$arch" != aarch64 ] || [ "$codename" != bookworm ]; then
        echo "    note: this script is made for Raspberry Pi OS Bookworm 64-bit (aarch64);"
        echo "    this machine is $codename on $arch. Carrying on; some packages may be missing."
    fi
}

install_packages() {
    say "Installing system packages: ${APT_PACKAGES[*]}"
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

create_user() {
    local group present=()
    say "Service user $SERVICE_USER"
    if [ "$dry_run" -eq 0 ] && id -u "$SERVICE_USER" >/dev/null 2>&1; then
        echo "    exists"
    else
        run useradd --system --user-group --home-dir "$STATE" --no-create-home \
            --shell /usr/sbin/nologin "$SERVICE_USER"
    fi
    for group in "${SERVICE_GROUPS[@]}"; do
        if [ "$dry_run" -eq 1 ] || getent group "$group" >/dev/null; then
            present+=("$group")
        else
            echo "    note: group $group does not exist here; the app may lack that access"
        fi
    done
    if [ ${#present[@]} -gt 0 ]; then
        run usermod --append --groups "$(
            IFS=,
            echo "${present[*]}"
        )" "$SERVICE_USER"
    fi
}

install_app() {
    local venv=$PREFIX/venv
    say "App in $venv (sees apt's picamera2 and lgpio)"
    if [ "$dry_run" -eq 0 ] && [ -x "$venv/bin/python" ]; then
        echo "    venv exists"
    else
        run python3 -m venv --system-site-packages "$venv"
    fi
    run "$venv/bin/python" -m pip install --quiet --upgrade pip
    # The constraints keep numpy at the 1.x that apt's picamera2 and simplejpeg were built for.
    run "$venv/bin/python" -m pip install --quiet --upgrade -c "$here/constraints-pi.txt" "${source_dir}[pi]"
}

place_files() {
    say "Files"
    place "$here/$APP.service" "/etc/systemd/system/$APP.service" 0644
    place "$here/99-tower-sensor.rules" /etc/udev/rules.d/99-tower-sensor.rules 0644
    place "$here/kivy-config.ini" "$STATE/kivy/config.ini" 0644
    place "$here/README.md" "$PREFIX/README.md" 0644
    place_once "$here/settings.toml" "/etc/$APP/settings.toml" 0644
    place_once "$here/$APP.default" "/etc/default/$APP" 0644
    # The state directory belongs to the service user (systemd also ensures it at start).
    run chown -R "$SERVICE_USER:$SERVICE_USER" "$(target "$STATE")"
}

activate() {
    say "udev and systemd"
    run udevadm control --reload-rules
    run udevadm trigger --subsystem-match=tty --action=add
    run systemctl daemon-reload
    # The app owns the screen: no login prompt on it (log in over SSH or on tty2).
    run systemctl disable --now getty@tty1.service
    run systemctl enable "$APP.service"
    if [ "$start" -eq 1 ]; then
        run systemctl restart "$APP.service"
    else
        echo "    not started now (--no-start); it starts at the next boot"
    fi
}

main() {
    if [ "$dry_run" -eq 1 ]; then
        say "Dry run: files go under $root; system commands are only shown"
    fi
    check_platform
    install_packages
    create_user
    install_app
    place_files
    activate
    say "Done."
    if [ "$dry_run" -eq 0 ]; then
        echo "    Logs: journalctl -u $APP -f    Status: systemctl status $APP"
        echo "    Settings: /etc/$APP/settings.toml    Wiring: hardware/wiring.md"
    fi
}

main

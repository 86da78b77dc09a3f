#!/usr/bin/env bash
# Renders every printed part in hardware/scad with OpenSCAD.
#
#   hardware/render.sh stl OUTDIR   one ASCII STL per part (what `make parts` runs)
#   hardware/render.sh png OUTDIR   one PNG preview per part plus the assembly (`make previews`;
#                                   needs xvfb-run, because OpenSCAD draws PNGs through X)
#
# A part is any .scad file in hardware/scad except the shared ones listed in NOT_PARTS. A part
# may choose the angle of its picture with a line '// preview-camera: 0,0,0,ROTX,ROTY,ROTZ,DIST'
# (OpenSCAD's --camera; distance and centre are then fitted to the part). Any
# warning or error from OpenSCAD fails the run: a warning there usually means a shape that is
# silently wrong (an undefined variable becomes undef, a failed assert, a non-manifold solid).
set -euo pipefail

NOT_PARTS=(params lib assembly)

usage() {
    echo "usage: $0 stl|png OUTDIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
mode=$1
out=$2
case "$mode" in
    stl | png) ;;
    *) usage ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
scad_dir="$here/scad"

if ! command -v openscad >/dev/null 2>&1; then
    echo "openscad is not installed: run 'bash scripts/system-packages.sh' (as root) or" >&2
    echo "'sudo apt-get install --no-install-recommends openscad', then try again." >&2
    exit 1
fi
if [ "$mode" = png ] && ! command -v xvfb-run >/dev/null 2>&1; then
    echo "xvfb-run is not installed (package xvfb): OpenSCAD needs an X server for PNGs." >&2
    exit 1
fi

mkdir -p "$out"

is_part() {
    local name=$1 skip
    for skip in "${NOT_PARTS[@]}"; do
        [ "$name" = "$skip" ] && return 1
    done
    return 0
}

# Runs OpenSCAD, shows its output only when something is wrong, and fails on any warning.
run_openscad() {
    local label=$1 log
    shift
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then
        echo "FAILED: $label" >&2
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    if grep -Eiq 'warning|error' "$log"; then
        echo "FAILED: $label (OpenSCAD reported problems)" >&2
        grep -Ei 'warning|error' "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

failed=0
count=0
for scad in "$scad_dir"/*.scad; do
    name=$(basename "$scad" .scad)
    if [ "$mode" = stl ]; then
        is_part "$name" || continue
        target="$out/$name.stl"
        if run_openscad "$name" openscad --hardwarnings --export-format asciistl -o "$target" "$scad"; then
            echo "rendered $target"
            count=$((count + 1))
        else
            failed=1
        fi
    else
        is_part "$name" || [ "$name" = assembly ] || continue
        target="$out/$name.png"
        # Parts are fully rendered (what gets printed); the assembly keeps its colours (preview).
        how=(--render=true "--imgsize=640,480")
        [ "$name" = assembly ] && how=("--imgsize=900,650")
        camera=$(sed -n 's|^// preview-camera: *\([-0-9.,]*\) *$|\1|p' "$scad" | head -n 1)
        [ -n "$camera" ] && how+=("--camera=$camera")
        if run_openscad "$name preview" xvfb-run -a -s "-screen 0 1024x768x24" \
            openscad --hardwarnings --colorscheme=Tomorrow "${how[@]}" \
            --viewall --autocenter -o "$target" "$scad"; then
            echo "previewed $target"
            count=$((count + 1))
        else
            failed=1
        fi
    fi
done

if [ "$count" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "no parts found in $scad_dir" >&2
    exit 1
fi
exit "$failed"

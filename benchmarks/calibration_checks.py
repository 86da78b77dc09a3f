"""How well `companion.vision.calibrate` tells a good calibration set from one with a stray.

For each condition and set-up (the same set-ups `vision_accuracy.py` draws, seed by seed) it
calibrates twice: once from the clean set (empty tray, one picture per colour), which must be
accepted, and once with one colour's picture replaced by a picture of 3 cubes of that colour
and 2 of another (drawn at random per set-up), which must be refused naming the picture. It
prints per condition:

- set-ups, clean sets refused (must be 0: a user with good pictures cannot go on),
- mixed sets refused for holding cubes of two colours, refused for another reason, accepted,

and lists every refused clean set and accepted mixed set with the seeds that reproduce it.

Run: .venv/bin/python benchmarks/calibration_checks.py [--setups 3] [--seeds 21 13 5]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

# The same conditions at the same index as vision_accuracy.py: the set-up seeds depend on it.
from vision_accuracy import CONDITIONS

from companion.core.cubes import COLOURS, Counts
from companion.devices.simtray.sets import sub_seed
from companion.devices.tray_render import TrayScene, calibration_set, render

try:
    import companion.vision as vision
except ImportError as error:  # pragma: no cover - depends on the vision package
    sys.exit(f"benchmarks/calibration_checks.py: companion.vision cannot be imported ({error})")

# A hand, another picture or a knocked camera play no part in calibration.
NOT_CALIBRATION = ("hand", "no-tray", "bumped")
# What a refusal of a mixed set must say to count as caught.
CAUGHT = "holds cubes that look"


def check_setup(seed: int, condition: str, index: int, k: int) -> tuple[str | None, str]:
    """(why the clean set was refused or None, what happened to the mixed set: 'caught',
    'accepted' or 'refused: ...') for one set-up."""
    setup_seed = sub_seed(seed, k, index)
    cal = calibration_set(setup_seed, condition, tests=0, jpeg=False)
    shots = cal.calibration_pictures()
    pictures = {colour: shots[colour.value].image for colour in COLOURS}
    clean: str | None = None
    try:
        vision.calibrate(shots["empty"].image, pictures)
    except vision.VisionError as error:
        clean = str(error)
    rng = np.random.default_rng(setup_seed)
    own, stray = (COLOURS[int(i)] for i in rng.choice(len(COLOURS), 2, replace=False))
    scene = TrayScene.random(
        setup_seed + 7, condition, counts=Counts.of({own: 3, stray: 2}), setup=cal.setup
    )
    mixed = dict(pictures)
    mixed[own] = render(scene).image
    pair = f"{own.value} picture with 2 {stray.value}"
    try:
        vision.calibrate(shots["empty"].image, mixed)
    except vision.VisionError as error:
        if CAUGHT in str(error):
            return clean, "caught"
        return clean, f"refused ({pair}): {error}"
    return clean, f"accepted ({pair})"


def main() -> None:
    """Check every condition and print the table."""
    parser = argparse.ArgumentParser(description="calibration set checks on simulated trays")
    parser.add_argument("--setups", type=int, default=3, help="set-ups per condition and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 13, 5], help="seeds")
    parser.add_argument("--only", nargs="*", default=None, help="condition names to run")
    args = parser.parse_args()
    print(f"calibration checks: {args.setups} set-ups per condition, seeds {args.seeds}")
    header = f"{'condition':12} {'sets':>4} {'clean refused':>13} {'mixed caught':>12} {'other':>5} {'accepted':>8} {'secs':>5}"
    print(header)
    print("-" * len(header))
    notes: list[str] = []
    totals = [0, 0, 0, 0, 0]
    for index, (_, condition) in enumerate(CONDITIONS):
        if condition in NOT_CALIBRATION or (args.only and condition not in args.only):
            continue
        start = time.perf_counter()
        row = [0, 0, 0, 0, 0]
        for seed in args.seeds:
            for k in range(args.setups):
                clean, mixed = check_setup(seed, condition, index, k)
                where = f"seed {seed} {condition} set-up {k}"
                row[0] += 1
                if clean is not None:
                    row[1] += 1
                    notes.append(f"  {where}: clean set refused: {clean}")
                if mixed == "caught":
                    row[2] += 1
                elif mixed.startswith("accepted"):
                    row[4] += 1
                    notes.append(f"  {where}: mixed set {mixed}")
                else:
                    row[3] += 1
                    notes.append(f"  {where}: mixed set {mixed}")
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        seconds = time.perf_counter() - start
        print(
            f"{condition:12} {row[0]:4d} {row[1]:13d} {row[2]:12d} {row[3]:5d} {row[4]:8d} "
            f"{seconds:5.0f}",
            flush=True,
        )
    print("-" * len(header))
    print(
        f"{'all':12} {totals[0]:4d} {totals[1]:13d} {totals[2]:12d} {totals[3]:5d} {totals[4]:8d}"
    )
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()

"""How well `companion.vision.tray.find_tray` finds the tray floor, condition by condition.

For each condition it draws camera set-ups with the shared renderer
(`companion.devices.tray_render`), renders each set-up's empty tray (JPEG compressed as a camera
gives it) and compares the corners `find_tray` returns with the renderer's floor corners. It
prints, per condition:

- set-ups tried and refusals (find_tray returned None),
- the median and the largest corner error, in percent of the tray's size (the mean length of the
  floor's four sides in the picture), over the set-ups where a tray was found,
- the share of set-ups whose every corner lies within 2% of the tray's size (refusals count as
  misses),
- the share within 5% (refusals count as misses): inside the view's margin (VIEW_MARGIN, 8%),
  so a warp that far off still keeps every cube in view,
- for "no-tray" (a picture of something else) the number of pictures where a tray was claimed,
- the median time of one find_tray call (ms, on whatever core runs it: pin it to one with
  `taskset -c 1`), per condition over its mixed picture sizes, and at the end over the 800x600
  pictures alone (the goal: under ~60 ms).

Each miss is listed with the seed that reproduces it.

Run: .venv/bin/python benchmarks/tray_finding.py [--setups 20] [--seed 0] [--conditions ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from companion.core.cubes import Counts
from companion.devices.tray_render import TrayScene, render
from companion.vision.tray import find_tray

DEFAULT_CONDITIONS = (
    "neutral",
    "warm",
    "daylight",
    "tilted",
    "colourful",
    "noisy",
    "blurred",
    "any",
    "no-tray",
)
GOOD_FRACTION = 0.02
SAFE_FRACTION = 0.05


def corner_error(
    found: tuple[tuple[float, float], ...], truth: tuple[tuple[float, float], ...]
) -> float:
    """The largest corner distance (pixels) divided by the tray's size (mean side length, pixels).

    The found corners are matched to the truth's under the best of the four cyclic turns, so a
    tray turned by about 45 degrees is not punished for where its first corner is named.
    """
    found_pts = np.asarray(found, np.float64)
    truth_pts = np.asarray(truth, np.float64)
    size = float(np.mean(np.linalg.norm(truth_pts - np.roll(truth_pts, -1, axis=0), axis=1)))
    best = min(
        float(np.max(np.linalg.norm(np.roll(found_pts, k, axis=0) - truth_pts, axis=1)))
        for k in range(4)
    )
    return best / size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setups", type=int, default=20, help="set-ups per condition")
    parser.add_argument("--seed", type=int, default=0, help="first set-up seed")
    parser.add_argument("--conditions", nargs="*", default=list(DEFAULT_CONDITIONS))
    args = parser.parse_args(argv)
    print(
        f"{'condition':<10} {'set-ups':>7} {'refused':>7} {'median %':>8} {'max %':>7} "
        f"{'within 2%':>9} {'within 5%':>9} {'ms/find':>7}"
    )
    misses: list[str] = []
    times_800: list[float] = []
    for condition in args.conditions:
        errors: list[float] = []
        refused = 0
        claimed = 0
        good = 0
        safe = 0
        times: list[float] = []
        for seed in range(args.seed, args.seed + args.setups):
            shot = render(TrayScene.random(seed, condition, counts=Counts()), jpeg=True)
            start = time.perf_counter()
            corners = find_tray(shot.image)
            times.append((time.perf_counter() - start) * 1000.0)
            if shot.image.shape[:2] == (600, 800):
                times_800.append(times[-1])
            if condition == "no-tray":
                if corners is not None:
                    claimed += 1
                    misses.append(f"{condition} seed {seed}: a tray claimed in a tray-less picture")
                continue
            if corners is None:
                refused += 1
                misses.append(f"{condition} seed {seed}: refused")
                continue
            error = corner_error(corners, shot.tray_corners)
            errors.append(error)
            if error <= SAFE_FRACTION:
                safe += 1
            if error <= GOOD_FRACTION:
                good += 1
            else:
                misses.append(f"{condition} seed {seed}: corner error {100 * error:.1f}%")
        median_ms = statistics.median(times) if times else 0.0
        if condition == "no-tray":
            print(
                f"{condition:<10} {args.setups:>7} {'-':>7} {'-':>8} {'-':>7} "
                f"{'claimed ' + str(claimed):>9} {'-':>9} {median_ms:>7.1f}"
            )
            continue
        median = 100 * statistics.median(errors) if errors else float("nan")
        worst = 100 * max(errors) if errors else float("nan")
        share = 100.0 * good / args.setups
        print(
            f"{condition:<10} {args.setups:>7} {refused:>7} {median:>8.2f} {worst:>7.1f} "
            f"{share:>8.0f}% {100.0 * safe / args.setups:>8.0f}% {median_ms:>7.1f}"
        )
        sys.stdout.flush()
    if times_800:
        print(
            f"\n800x600 pictures: median {statistics.median(times_800):.1f} ms per find_tray "
            f"({len(times_800)} pictures)"
        )
    if misses:
        print("\nmisses:")
        for miss in misses:
            print(" ", miss)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

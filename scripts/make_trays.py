#!/usr/bin/env python3
"""Write simulated tray pictures with their truth, ready for `companion calibrate` and `count`.

    scripts/make_trays.py OUTDIR --n N --seed S [--condition C] [--tests T]

makes N set-up folders OUTDIR/setup_000 ... each holding `empty.png`, `blue.png` ...
`white.png` (the calibration pictures: one camera set-up, one colour per picture), T test
pictures `test_NNN.jpg` under the same set-up and condition, and `truth.json` with every
picture's counts and cubes (see companion.devices.simtray.sets.write_set). The same seed
always writes the same files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.devices.simtray.sets import sub_seed
from companion.devices.tray_render import (
    CONDITIONS,
    calibration_set,
    session_frames,
    write_set,
    write_video,
)


def main(argv: list[str] | None = None) -> int:
    """Write the folders; returns the exit status (2 for bad arguments)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path, help="folder to write the set-up folders into")
    parser.add_argument("--n", type=int, default=1, help="how many set-ups (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--condition",
        default="any",
        choices=(*CONDITIONS, "mixed"),
        help="what to stress: light, tilt, clusters, noise...; mixed cycles the test "
        "pictures through several (default any)",
    )
    parser.add_argument(
        "--size", default=None, help="picture size WIDTHxHEIGHT (default: drawn per set-up)"
    )
    parser.add_argument(
        "--quality", type=int, default=None, help="JPEG quality 1-100 (default: drawn 60-95)"
    )
    parser.add_argument(
        "--calibration-format",
        default="png",
        choices=("png", "jpg"),
        help="file type of the calibration pictures (default png, lossless)",
    )
    parser.add_argument(
        "--tests", type=int, default=10, help="test pictures per set-up (default 10)"
    )
    parser.add_argument(
        "--video",
        action="store_true",
        help="also write session.avi per set-up: a stretch of play (hands, drops rolling in "
        "and settling) with per-frame truth in session.json, for `companion watch`",
    )
    args = parser.parse_args(argv)
    if args.n < 1 or args.tests < 0:
        parser.error("--n must be at least 1 and --tests at least 0")
    if args.quality is not None and not 1 <= args.quality <= 100:
        parser.error("--quality must be 1-100")
    size = None
    if args.size is not None:
        try:
            width, height = (int(v) for v in args.size.lower().split("x"))
        except ValueError:
            parser.error(f"--size wants WIDTHxHEIGHT such as 800x600, not {args.size!r}")
        if not (64 <= width <= 4096 and 64 <= height <= 4096):
            parser.error("--size: each side must be 64-4096 pixels")
        size = (width, height)
    if args.outdir.exists() and not args.outdir.is_dir():
        parser.error(f"{args.outdir} exists and is not a folder; choose another OUTDIR")
    for k in range(args.n):
        folder = args.outdir / f"setup_{k:03d}"
        cal = calibration_set(
            sub_seed(args.seed, k),
            args.condition,
            tests=args.tests,
            image_size=size,
            jpeg_quality=args.quality,
        )
        write_set(cal, folder, calibration_format=args.calibration_format)
        if args.video:
            frames = session_frames(sub_seed(args.seed, k))
            write_video(frames, folder / "session.avi")
        total = sum(p.counts.total for p in cal.tests)
        print(
            f"{folder}: {len(cal.tests)} test pictures, {total} cubes, "
            f"{cal.setup.light.kelvin:.0f} K, {cal.setup.image_size[0]}x{cal.setup.image_size[1]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`benchmarks/vision_accuracy.py` with cubes found by evidence peaks (`find_cubes`).

Runs the same conditions, set-ups and pictures as the accuracy benchmark and prints the same
table, but each picture is read by `companion.vision.detect.read_tray_by_peaks` instead of
`read_tray`, so the two ways of counting can be compared side by side on the same seeds.

Run: .venv/bin/python benchmarks/vision_detect_accuracy.py [same arguments as vision_accuracy.py]
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import companion.vision as vision
from companion.vision.detect import read_tray_by_peaks


def main() -> None:
    """Run the accuracy benchmark with the peak detector in place of `read_tray`."""
    # The benchmark looks `read_tray` up on the package at every picture.
    vision.read_tray = read_tray_by_peaks  # type: ignore[assignment]
    script = Path(__file__).with_name("vision_accuracy.py")
    sys.argv = [str(script), *sys.argv[1:]]
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()

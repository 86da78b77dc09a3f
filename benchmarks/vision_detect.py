"""Time of counting one picture with the peak detector, beside `read_tray`, on one core.

Renders one neutral set-up (800x600 by default), calibrates it, and times
`companion.vision.detect.read_tray_by_peaks` and `companion.vision.read_tray` on the same
JPEG drops, printing the median of each in milliseconds (goal: under 20 ms).

Run: .venv/bin/python benchmarks/vision_detect.py [--repeats 20] [--seed 11]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import cv2

from companion.devices.tray_render import calibration_set
from companion.vision import Profile, TrayReading, calibrate, decode_image, read_tray
from companion.vision.detect import read_tray_by_peaks
from companion.vision.images import BGRImage


def _median_ms(
    count: Callable[[BGRImage, Profile], TrayReading],
    pictures: list[bytes],
    profile: Profile,
    repeats: int,
) -> float:
    """Median milliseconds from JPEG bytes to a reading."""
    count(decode_image(pictures[0]), profile)  # warm caches
    times = []
    for _ in range(repeats):
        for data in pictures:
            start = time.perf_counter()
            count(decode_image(data), profile)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    """Print the median counting time of both ways of counting."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="timed runs per picture")
    parser.add_argument("--seed", type=int, default=11, help="set-up seed for the renderer")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    cal = calibration_set(args.seed, "neutral", tests=5)
    profile = calibrate(cal.empty.image, {colour: shot.image for colour, shot in cal.colours})
    pictures = [
        bytes(cv2.imencode(".jpg", shot.image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1])
        for shot in cal.tests
    ]
    height, width = cal.tests[0].image.shape[:2]
    print(f"picture {width}x{height}, view {profile.view_width}x{profile.view_height}")
    peaks = _median_ms(read_tray_by_peaks, pictures, profile, args.repeats)
    areas = _median_ms(read_tray, pictures, profile, args.repeats)
    print(f"read_tray_by_peaks  {peaks:6.2f} ms median  (goal < 20 ms)")
    print(f"read_tray           {areas:6.2f} ms median")


if __name__ == "__main__":
    main()

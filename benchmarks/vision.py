"""Speed and memory of counting one tray picture with `companion.vision`.

Prints, on one core (OpenCV threads set to 1):
- the median time to count one 800x600 picture, from its JPEG file bytes to the reading;
- that time divided by the median time of a plain pass over the same bytes (decode, Lab
  conversion, one Gaussian blur), which says how much work counting adds on any machine;
- peak resident memory (RSS) of this process while counting;
- the median over the readings given as sure alone: those get the closer look round every
  cube (`sliver.hidden_slivers`, about 1 ms a cube); the others round about half of them.

Goals (issue 3): under 20 ms, under 10 times the plain pass, under 150 MB.
The pictures come from the shared tray renderer: the first set-ups from --seed on whose camera
takes 800x600 pictures and whose tray calibration finds, five drops each. Each set-up's median
is printed too: the time grows with the tray's size in the picture. (One set-up alone misled:
seed 11, the earlier default, had no tray found until the tray finder's second look, so it
timed counting in the whole picture.)
Run: .venv/bin/python benchmarks/vision.py [--repeats 30] [--seed 11] [--setups 5]
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2
import numpy as np

from companion.vision import Profile, calibrate, decode_image, read_tray


def _peak_rss_mb() -> float:
    """Peak resident memory of this process in MB (VmHWM: unlike ru_maxrss, it starts afresh
    at exec, so the parent that rendered the pictures does not count)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _plain_pass(data: bytes) -> float:
    """Decode, convert to Lab and blur: the least any colour pipeline must do (seconds)."""
    start = time.perf_counter()
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    cv2.GaussianBlur(lab, (5, 5), 0)
    return time.perf_counter() - start


def prepare(folder: Path, seed: int, setups: int) -> None:
    """Render set-ups from `seed` on, keep the first `setups` with 800x600 pictures and a tray
    found, and write each one's profile and five drops (JPEG) into a folder of its own."""
    from companion.devices.tray_render import calibration_set

    kept = 0
    for setup in itertools.count(seed):
        cal = calibration_set(setup, "neutral", tests=5)
        if cal.empty.image.shape[:2] != (600, 800):
            continue
        profile = calibrate(cal.empty.image, {colour: shot.image for colour, shot in cal.colours})
        if not profile.tray_found:
            continue
        place = folder / f"{setup:04d}"
        place.mkdir()
        profile.save(place / "profile.json")
        for k, shot in enumerate(cal.tests):
            cv2.imwrite(str(place / f"drop{k}.jpg"), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        kept += 1
        if kept == setups:
            return


def measure(folder: Path, repeats: int) -> None:
    """Time counting the drops of each set-up in `folder` (this process never imported the
    renderer)."""
    cv2.setNumThreads(1)
    count_times: list[float] = []
    sure_times: list[float] = []
    plain_times: list[float] = []
    for place in sorted(path for path in folder.iterdir() if path.is_dir()):
        profile = Profile.load(place / "profile.json")
        pictures = [path.read_bytes() for path in sorted(place.glob("drop*.jpg"))]
        read_tray(decode_image(pictures[0]), profile)  # warm caches (prepared profile, imports)
        own: list[float] = []
        for _ in range(repeats):
            for data in pictures:
                start = time.perf_counter()
                reading = read_tray(decode_image(data), profile)
                own.append(time.perf_counter() - start)
                if reading.confident:
                    sure_times.append(own[-1])
                plain_times.append(_plain_pass(data))
        count_times.extend(own)
        print(
            f"set-up {int(place.name):<5d}  tray view {profile.view_width:3d}x{profile.view_height:<3d}"
            f"  cube side {profile.cube_side:4.1f} px  {statistics.median(own) * 1000:6.2f} ms median"
        )
    count = statistics.median(count_times) * 1000
    plain = statistics.median(plain_times) * 1000
    peak_mb = _peak_rss_mb()
    print("picture size            800x600 (JPEG, 5 drops per set-up)")
    print(f"count one picture       {count:6.2f} ms median  (goal < 20 ms)")
    print(f"plain decode+Lab+blur   {plain:6.2f} ms median")
    print(f"ratio                   {count / plain:6.2f} x       (goal < 10 x)")
    print(f"peak RSS                {peak_mb:6.1f} MB       (goal < 150 MB)")
    if sure_times:
        sure = statistics.median(sure_times) * 1000
        share = len(sure_times) / len(count_times)
        print(f"readings given as sure  {sure:6.2f} ms median  ({share:.0%} of the readings)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed runs per picture")
    parser.add_argument("--seed", type=int, default=11, help="first set-up seed to render")
    parser.add_argument("--setups", type=int, default=5, help="set-ups to time")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setups < 1:
        parser.error("--setups must be at least 1")
    if args.measure is not None:
        measure(args.measure, args.repeats)
        return
    with tempfile.TemporaryDirectory() as folder:
        prepare(Path(folder), args.seed, args.setups)
        # Counting runs in a fresh process so its peak memory excludes the renderer's.
        command = [sys.executable, __file__, "--measure", folder, "--repeats", str(args.repeats)]
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()

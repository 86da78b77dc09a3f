"""Speed of the simulated tray renderer (the simulated camera renders live).

Prints, on one core, the median time to render one 800x600 frame once its set-up is cached
(goal: well under 100 ms), for a typical drop, the 49-cube set-up drop, and a frame of a
still tray whose cube layout is cached too (the simulated camera between drops: only the sensor and JPEG are redone),
plus the one-off cost of building a set-up's backdrop.
Run: .venv/bin/python benchmarks/tray_render_speed.py
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import time

import cv2

from companion.core.cubes import Counts
from companion.devices.simtray.backdrop import backdrop_for
from companion.devices.tray_render import TrayScene, render

REPEATS = 15


def _one_core() -> str:
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        return "pinned to one core"
    return "not pinned (no sched_setaffinity here)"


def _scene(seed: int, counts: Counts) -> TrayScene:
    scene = TrayScene.random(seed, "any", counts=counts)
    return dataclasses.replace(scene, setup=dataclasses.replace(scene.setup, image_size=(800, 600)))


def _median_ms(scene: TrayScene, fresh_layout: bool) -> float:
    """Median CPU ms per frame: new cube layouts (another seed each frame, as after each
    drop) or frames of the same still tray (cached scene, new sensor noise)."""
    times = []
    render(scene)
    for frame in range(REPEATS):
        shot = dataclasses.replace(scene, seed=scene.seed + 1 + frame) if fresh_layout else scene
        # CPU time of this process: other jobs on a shared machine do not inflate it.
        start = time.process_time()
        render(shot, frame=frame)
        times.append(time.process_time() - start)
    return 1000.0 * statistics.median(times)


def main() -> None:
    """Measure and print the figures."""
    print(f"tray renderer, 800x600, {_one_core()}, OpenCV threads 1, CPU ms, median of {REPEATS}")
    typical = _scene(1, Counts.from_tuple([2, 1, 2, 1, 1, 2, 1]))
    # Warm up OpenCV and numpy on another set-up first: their first calls cost extra.
    render(_scene(2, Counts(red=1)))
    start = time.process_time()
    backdrop_for(typical.setup)
    once = 1000 * (time.process_time() - start)
    print(f"  backdrop of a new set-up (once per set-up): {once:.0f} ms")
    print(f"  typical drop (10 cubes), new layout:  {_median_ms(typical, True):6.1f} ms")
    print(f"  typical drop (10 cubes), still tray:  {_median_ms(typical, False):6.1f} ms")
    full = _scene(1, Counts.full())
    print(f"  set-up drop (49 cubes), new layout:   {_median_ms(full, True):6.1f} ms")
    print(f"  set-up drop (49 cubes), still tray:   {_median_ms(full, False):6.1f} ms")
    empty = _scene(1, Counts())
    print(f"  empty tray:                           {_median_ms(empty, False):6.1f} ms")


if __name__ == "__main__":
    main()

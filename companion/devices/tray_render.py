"""Simulated camera pictures of the dice tower's tray, with known truth.

The stable entry point to the simulated tray (the renderer lives in `simtray`): describe a
picture with `TrayScene` (drawn at random for a condition, or built), render it with
`render()`, and get the camera's BGR picture, its JPEG bytes and the truth about every cube.
The simulated camera uses it live; the vision tests and benchmarks use it as test data.

    scene = TrayScene.random(7, condition="warm")
    shot = render(scene, jpeg=True)
    shot.image        # BGR uint8, H x W x 3
    shot.counts       # companion.core.cubes.Counts, exactly what lies in the tray
    shot.cubes        # CubeTruth per cube: colour, x, y of its upper face's centre, ...
    shot.tray_corners # the tray floor's corners in pixels

`calibration_set()` gives the pictures one camera set-up is calibrated from (empty tray, one
picture per colour) plus test pictures under the same set-up; `write_set()` writes them in
the folder layout `companion calibrate` reads. `drop_frames()` and `hand_frames()` give
consecutive frames of cubes rolling in and of a hand in view, for the settle logic;
`session_frames()` strings them into a short stretch of play and `write_video()` writes it as
a Motion-JPEG AVI (with per-frame truth) that `companion watch` can read like a camera.
"""

from __future__ import annotations

from companion.devices.simtray.render import CubeTruth, RenderedTray, clear_caches, render
from companion.devices.simtray.scene import (
    CONDITIONS,
    Arrangement,
    CameraPose,
    Capture,
    HandPose,
    Light,
    SetUp,
    TableLook,
    TrayLook,
    TrayScene,
)
from companion.devices.simtray.sets import (
    CalibrationSet,
    calibration_set,
    drop_frames,
    hand_frames,
    session_frames,
    truth_record,
    write_set,
    write_video,
)

__all__ = [
    "CONDITIONS",
    "Arrangement",
    "CalibrationSet",
    "CameraPose",
    "Capture",
    "CubeTruth",
    "HandPose",
    "Light",
    "RenderedTray",
    "SetUp",
    "TableLook",
    "TrayLook",
    "TrayScene",
    "calibration_set",
    "clear_caches",
    "drop_frames",
    "hand_frames",
    "render",
    "session_frames",
    "truth_record",
    "write_set",
    "write_video",
]

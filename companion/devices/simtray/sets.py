"""Sets of simulated pictures: a calibration set for one camera set-up, a drop in motion,
a hand reaching in, and writing a set to a folder the `companion calibrate` command reads."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.simtray.layout import PlacedCube, rot_axis
from companion.devices.simtray.render import RenderedTray, cube_layout, render, render_cubes
from companion.devices.simtray.scene import HandPose, SetUp, TrayScene

TRUTH_VERSION = 1

# Conditions that describe one picture rather than a set-up: calibration pictures are taken
# without them (nobody calibrates with a hand in view or the lamp off).
_PICTURE_ONLY = {"empty", "hand", "no-tray", "dark", "setup-drop", "clustered", "bumped"}


def sub_seed(seed: int, *path: int) -> int:
    """A seed derived from `seed` and `path`, well spread, stable across runs and machines."""
    return int(np.random.default_rng([seed, 99, *path]).integers(1 << 31))


@dataclass(frozen=True, eq=False)
class CalibrationSet:
    """Pictures under one set-up: the empty tray, one picture per colour holding only cubes
    of that colour, and further test pictures to count with the calibration."""

    setup: SetUp
    condition: str
    empty: RenderedTray
    colours: tuple[tuple[Colour, RenderedTray], ...]
    tests: tuple[RenderedTray, ...]

    def calibration_pictures(self) -> dict[str, RenderedTray]:
        """Name (as the calibrate command wants: "empty", "blue", ...) to picture."""
        return {"empty": self.empty, **{c.value: r for c, r in self.colours}}


MIXED_PICTURES: tuple[str, ...] = (
    "any",
    "clustered",
    "empty",
    "setup-drop",
    "noisy",
    "blurred",
    "hard-pairs",
)
"""Picture conditions a "mixed" calibration set cycles its test pictures through."""


def calibration_set(
    seed: int,
    condition: str = "any",
    *,
    tests: int = 10,
    per_colour: int | None = None,
    jpeg: bool = True,
    image_size: tuple[int, int] | None = None,
    jpeg_quality: int | None = None,
) -> CalibrationSet:
    """A calibration set for a set-up drawn from `seed` under `condition`, with `tests` test
    pictures under the same set-up (drawn for `condition`; for "mixed", cycling through
    MIXED_PICTURES). Colour pictures hold `per_colour` cubes each (drawn 3-7 when None);
    `image_size` (width, height) overrides the set-up's picture size and `jpeg_quality`
    (1-100) every picture's JPEG quality."""
    if jpeg_quality is not None and not 1 <= jpeg_quality <= 100:
        raise ValueError(f"JPEG quality is 1-100, not {jpeg_quality}")

    def shoot(scene: TrayScene) -> RenderedTray:
        if jpeg_quality is not None:
            scene = replace(scene, capture=replace(scene.capture, jpeg_quality=jpeg_quality))
        return render(scene, jpeg=jpeg)

    mixed = condition == "mixed"
    setup_condition = "any" if condition in _PICTURE_ONLY or mixed else condition
    setup = SetUp.random(seed, setup_condition)
    if image_size is not None:
        setup = replace(setup, image_size=image_size)
    rng = np.random.default_rng([seed, 98])
    empty_scene = TrayScene.random(sub_seed(seed, 0), setup_condition, counts=Counts(), setup=setup)
    empty = shoot(empty_scene)
    colours = []
    for i, colour in enumerate(COLOURS, start=1):
        n = per_colour if per_colour is not None else int(rng.integers(3, 8))
        scene = TrayScene.random(
            sub_seed(seed, i), setup_condition, counts=Counts.of({colour: n}), setup=setup
        )
        colours.append((colour, shoot(scene)))
    test_pictures = tuple(
        shoot(
            TrayScene.random(
                sub_seed(seed, 100 + k),
                MIXED_PICTURES[k % len(MIXED_PICTURES)] if mixed else condition,
                setup=setup,
            )
        )
        for k in range(tests)
    )
    return CalibrationSet(setup, condition, empty, tuple(colours), test_pictures)


def truth_record(name: str, picture: RenderedTray) -> dict[str, object]:
    """The truth of one picture as JSON-ready data (see `write_set` for the layout)."""
    scene = picture.scene
    return {
        "image": name,
        "counts": picture.counts.as_dict(),
        "condition": scene.condition,
        "seed": scene.seed,
        "has_tray": picture.has_tray,
        "hand_in_view": picture.hand_in_view,
        "moving": picture.moving,
        "light_kelvin": round(scene.setup.light.kelvin),
        "jpeg_quality": scene.capture.jpeg_quality,
        "image_size": list(scene.setup.image_size),
        "tray_corners": [[round(x, 2), round(y, 2)] for x, y in picture.tray_corners],
        "cubes": [
            {
                "colour": c.colour.value,
                "x": round(c.x, 2),
                "y": round(c.y, 2),
                "visible_fraction": c.visible_fraction,
                "occluded": c.occluded,
                "leaning": c.leaning,
                "stacked": c.stacked,
                "against_rim": c.against_rim,
            }
            for c in picture.cubes
        ],
    }


def write_set(
    cal: CalibrationSet, folder: Path, *, prefix: str = "test", calibration_format: str = "png"
) -> Path:
    """Write `cal` into `folder` (created if needed) and return the truth file's path.

    Layout: `empty.png` and `blue.png` ... `white.png` (lossless copies of the camera's
    pictures, for `companion calibrate`; with `calibration_format` "jpg", the camera's JPEG
    bytes instead, smaller), test pictures `{prefix}_NNN.jpg` (the camera's JPEG bytes as
    they are), and `truth.json`: {"version", "condition", "setup_seed", "calibration":
    [record...], "pictures": [record...]}, each record as `truth_record` makes.
    """
    if calibration_format not in ("png", "jpg"):
        raise ValueError(f"calibration pictures are png or jpg, not {calibration_format!r}")
    folder.mkdir(parents=True, exist_ok=True)
    calibration = []
    for name, picture in cal.calibration_pictures().items():
        file_name = f"{name}.{calibration_format}"
        if calibration_format == "jpg":
            data = picture.jpeg if picture.jpeg is not None else _encode(picture)
            (folder / file_name).write_bytes(data)
        elif not cv2.imwrite(str(folder / file_name), picture.image):
            raise OSError(f"could not write {folder / file_name}")
        calibration.append(truth_record(file_name, picture))
    pictures = []
    for k, picture in enumerate(cal.tests):
        file_name = f"{prefix}_{k:03d}.jpg"
        data = picture.jpeg if picture.jpeg is not None else _encode(picture)
        (folder / file_name).write_bytes(data)
        pictures.append(truth_record(file_name, picture))
    truth = {
        "version": TRUTH_VERSION,
        "condition": cal.condition,
        "setup_seed": cal.setup.seed,
        "calibration": calibration,
        "pictures": pictures,
    }
    path = folder / "truth.json"
    path.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return path


def _encode(picture: RenderedTray) -> bytes:
    from companion.devices.simtray.sensor import to_jpeg

    return to_jpeg(picture.image, picture.scene.capture.jpeg_quality)


def drop_frames(
    scene: TrayScene, *, frames: int = 14, fps: float = 15.0, jpeg: bool = False
) -> list[RenderedTray]:
    """Consecutive camera frames of the cubes of `scene` falling into the tray one after
    another, bouncing and spinning, then lying still where `scene` has them.

    Each frame's truth holds only the cubes already in the tray, with `moving` set for those
    still in motion; moving cubes are motion-blurred over the exposure. The last few frames
    show the settled tray (identical apart from sensor noise).
    """
    final = cube_layout(scene)
    rng = np.random.default_rng([scene.seed, 21])
    n = len(final)
    # Cubes arrive within the first 30% of the sequence and each travels for up to 35% of
    # it (two frames at least), so the last third of the frames shows the settled tray.
    span = frames / fps
    arrive = np.sort(rng.uniform(0.0, 0.3 * span, n))
    travel = rng.uniform(0.5, 1.0, n) * max(0.35 * span, 2.0 / fps)
    entry_side = rng.uniform(0.0, 2 * math.pi)
    entry = np.array([math.cos(entry_side), math.sin(entry_side)])
    a = scene.setup.tray.width_mm / 2
    b = scene.setup.tray.depth_mm / 2
    start_xy = [
        np.clip(
            entry * np.array([a, b]) * 0.8 + rng.normal(0, 8, 2), [-a + 6, -b + 6], [a - 6, b - 6]
        )
        for _ in range(n)
    ]
    spin_axes = [rng.normal(0, 1, 3) for _ in range(n)]
    spins = rng.uniform(2 * math.pi, 5 * math.pi, n)
    out = []
    for f in range(frames):
        t = f / fps
        shutter = 0.5 / fps
        cubes, moving = _cubes_at(final, t, arrive, travel, start_xy, spin_axes, spins)
        steps = []
        if any(moving):
            # Where the cubes were when the shutter opened: the renderer smears them from there.
            step, _ = _cubes_at(final, t - shutter, arrive, travel, start_xy, spin_axes, spins)
            # Cubes that had not arrived yet then are as they are now.
            steps.append(step + cubes[len(step) :] if len(step) < len(cubes) else step)
        out.append(
            render_cubes(
                scene,
                tuple(cubes),
                jpeg=jpeg,
                frame=f,
                moving=tuple(moving),
                substeps=tuple(tuple(s) for s in steps),
            )
        )
    return out


def _cubes_at(
    final: tuple[PlacedCube, ...],
    t: float,
    arrive: np.ndarray,
    travel: np.ndarray,
    start_xy: list[np.ndarray],
    spin_axes: list[np.ndarray],
    spins: np.ndarray,
) -> tuple[list[PlacedCube], list[bool]]:
    """The cubes already in the tray at time `t` (s) where they are then, and which move."""
    cubes: list[PlacedCube] = []
    moving: list[bool] = []
    for i, cube in enumerate(final):
        if t < arrive[i]:
            continue
        p = min((t - arrive[i]) / travel[i], 1.0)
        if p >= 1.0:
            cubes.append(cube)
            moving.append(False)
            continue
        # Slides and bounces in, slowing down: ease-out position, decaying hops.
        ease = 1.0 - (1.0 - p) ** 2
        xy = start_xy[i] + (cube.centre[:2] - start_xy[i]) * ease
        hop = abs(math.sin(3 * math.pi * p)) * 18.0 * (1.0 - p) ** 2
        centre = np.array([xy[0], xy[1], cube.centre[2] + hop])
        rotation = rot_axis(spin_axes[i], spins[i] * (1.0 - ease)) @ cube.rotation
        cubes.append(replace(cube, centre=centre, rotation=rotation))
        moving.append(True)
    return cubes, moving


def hand_frames(scene: TrayScene, *, frames: int = 8, jpeg: bool = False) -> list[RenderedTray]:
    """Frames of a hand reaching into the picture over the tray of `scene` and out again."""
    pose = scene.hand if scene.hand is not None else HandPose.random(scene.seed)
    out = []
    for f in range(frames):
        phase = math.sin(math.pi * (f + 0.5) / frames)
        reach = max(0.02, pose.reach * phase)
        framed = replace(scene, hand=replace(pose, reach=reach))
        out.append(render(framed, jpeg=jpeg, frame=f))
    return out


def session_frames(
    seed: int,
    *,
    drops: int = 2,
    still: int = 8,
    fps: float = 15.0,
    image_size: tuple[int, int] | None = None,
) -> list[RenderedTray]:
    """Camera frames of a short stretch of play under one set-up drawn from `seed`: the empty
    tray, a hand passing over it, then `drops` times: cubes rolling in and settling, the tray
    lying still, and a hand reaching in to clear it. Each run of still frames lasts `still`
    frames; every frame's truth says what is in the tray and whether cubes move or a hand is
    in view, so the settle logic can be checked end to end. `image_size` (width, height)
    overrides the set-up's picture size."""
    setup = SetUp.random(seed, "any")
    if image_size is not None:
        setup = replace(setup, image_size=image_size)
    rng = np.random.default_rng([seed, 97])
    frames: list[RenderedTray] = []
    empty = TrayScene.random(sub_seed(seed, 200), "any", counts=Counts(), setup=setup)
    frames += [render(empty, frame=f) for f in range(still)]
    frames += hand_frames(replace(empty, hand=HandPose.random(sub_seed(seed, 201))), frames=6)
    for d in range(drops):
        drop = TrayScene.random(sub_seed(seed, 300 + d), "any", setup=setup)
        if drop.counts.total == 0:
            drop = drop.with_counts(Counts.of({COLOURS[int(rng.integers(7))]: 1}))
        frames += drop_frames(drop, frames=14, fps=fps)
        frames += [render(drop, frame=100 + f) for f in range(still)]
        clearing = replace(drop, hand=HandPose.random(sub_seed(seed, 400 + d)))
        frames += hand_frames(clearing, frames=6)
        frames += [render(empty, frame=200 + 10 * d + f) for f in range(still)]
    return frames


def write_video(frames: list[RenderedTray], path: Path, fps: float = 15.0) -> Path:
    """Write `frames` as a Motion-JPEG AVI at `path` (what `companion watch` can read like a
    camera) and their truth next to it as JSON (same name, .json): {"fps", "frames": [{"frame",
    "state": "still" | "rolling" | "hand", "counts"}]}. Returns the truth file's path."""
    if not frames:
        raise ValueError("no frames to write")
    height, width = frames[0].image.shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (width, height))
    if not writer.isOpened():
        raise OSError(f"OpenCV cannot write a Motion-JPEG video to {path}")
    records = []
    try:
        for index, shot in enumerate(frames):
            if shot.image.shape[:2] != (height, width):
                raise ValueError("all frames of a video must have the same size")
            writer.write(shot.image)
            state = "hand" if shot.hand_in_view else "rolling" if shot.moving else "still"
            records.append({"frame": index, "state": state, "counts": shot.counts.as_dict()})
    finally:
        writer.release()
    truth_path = path.with_suffix(".json")
    truth_path.write_text(
        json.dumps({"version": TRUTH_VERSION, "fps": fps, "frames": records}, indent=1) + "\n",
        encoding="utf-8",
    )
    return truth_path

"""Render a `TrayScene` to the picture a camera would give, with the truth about every cube."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.core.cubes import Colour, Counts
from companion.devices.simtray.backdrop import Backdrop, backdrop_for
from companion.devices.simtray.boxes import Box, draw_boxes
from companion.devices.simtray.colour import PAINT_GLOSS, paint_albedo, srgb_to_linear
from companion.devices.simtray.hand import draw_hand, hand_mask
from companion.devices.simtray.layout import PlacedCube, arrange, rot_z
from companion.devices.simtray.scene import TrayScene
from companion.devices.simtray.sensor import develop, from_jpeg, line_kernel, to_jpeg

ByteImage = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class CubeTruth:
    """One cube as it really lies: its colour; (x, y) the pixel where the centre of its
    upper face appears; how much of it the camera sees (0..1 of its outline); whether it is
    `occluded` (less than half visible, by the rim, other cubes or a hand), `leaning` on a
    neighbour or the rim, `stacked` on another cube, or `against_rim`; its centre in tray
    millimetres; and whether it is still `moving` (frames of a drop only)."""

    colour: Colour
    x: float
    y: float
    visible_fraction: float
    occluded: bool
    leaning: bool
    stacked: bool
    against_rim: bool
    centre_mm: tuple[float, float, float]
    moving: bool = False


@dataclass(frozen=True, eq=False)
class RenderedTray:
    """A rendered picture with its truth.

    `image` is BGR uint8 (H x W x 3), exactly what decoding `jpeg` gives (the camera's JPEG
    compression is part of the picture); `jpeg` is only kept when asked for. `tray_corners`
    are the inner floor's corners in pixels: top-left, top-right, bottom-right, bottom-left
    as the unturned camera sees them. `counts` equals what `cubes` holds, colour by colour.
    """

    scene: TrayScene
    image: ByteImage
    jpeg: bytes | None
    cubes: tuple[CubeTruth, ...]
    tray_corners: tuple[tuple[float, float], ...]
    counts: Counts
    hand_in_view: bool = False
    moving: bool = False

    @property
    def has_tray(self) -> bool:
        """False for pictures of something else."""
        return self.scene.setup.has_tray


@functools.lru_cache(maxsize=64)
def cube_layout(scene: TrayScene) -> tuple[PlacedCube, ...]:
    """Where the cubes of `scene` lie (cached: rolling sequences reuse it per frame)."""
    rng = np.random.default_rng([scene.seed, 7])
    if not scene.setup.has_tray:
        return ()
    return tuple(arrange(scene.counts, scene.setup.tray, scene.arrangement, rng))


def cube_boxes(scene: TrayScene, cubes: tuple[PlacedCube, ...]) -> list[Box]:
    """Paint each placed cube: its colour's paint with slight per-cube variation and grain."""
    rng = np.random.default_rng([scene.seed, 9])
    boxes = []
    for cube in cubes:
        tint = rng.normal(1.0, 0.025, 3) * rng.normal(1.0, 0.045)
        albedo = np.clip(paint_albedo(cube.colour) * tint.astype(np.float32), 0.0, 0.95)
        boxes.append(
            Box(
                centre=cube.centre,
                rotation=cube.rotation,
                half=np.full(3, cube.size / 2),
                albedo=albedo.astype(np.float32),
                gloss=PAINT_GLOSS[cube.colour] * float(rng.uniform(0.6, 1.4)),
                grain=float(rng.uniform(0.015, 0.05)),
                grain_axis=int(rng.integers(3)),
                phase=float(rng.uniform(0.0, 2 * math.pi)),
            )
        )
    return boxes


def render(scene: TrayScene, *, jpeg: bool = False, frame: int = 0) -> RenderedTray:
    """The camera's picture of `scene` with its truth; deterministic for the scene (and
    `frame`, which only changes the sensor noise, as consecutive frames of a still tray do).
    Keeps the JPEG bytes in the result when `jpeg` is True. The noiseless scene is cached,
    so further frames of a still tray only pay for the sensor and JPEG."""
    radiance, truth = _still(scene)
    return _shoot(scene, radiance, truth, jpeg=jpeg, frame=frame, moving=False)


@functools.lru_cache(maxsize=4)
def _still(scene: TrayScene) -> tuple[FloatArray, tuple[CubeTruth, ...]]:
    """The scene's radiance before the camera (read-only) and the truth about its cubes."""
    radiance, truth = _radiance(scene, cube_layout(scene), None, ())
    radiance.setflags(write=False)
    return radiance, truth


def clear_caches() -> None:
    """Forget every cached set-up backdrop, cube layout and still scene (frees their memory;
    the next render builds them again, identically)."""
    backdrop_for.cache_clear()
    cube_layout.cache_clear()
    _still.cache_clear()


def render_cubes(
    scene: TrayScene,
    cubes: tuple[PlacedCube, ...],
    *,
    jpeg: bool = False,
    frame: int = 0,
    moving: tuple[bool, ...] | None = None,
    substeps: tuple[tuple[PlacedCube, ...], ...] = (),
) -> RenderedTray:
    """Render `scene` with the cubes lying at `cubes` (used for frames of cubes in motion:
    `substeps` are earlier cube positions within the exposure; each moving cube is smeared
    along its path from the earliest of them, as the shutter sees it)."""
    radiance, truth = _radiance(scene, cubes, moving, substeps)
    return _shoot(
        scene, radiance, truth, jpeg=jpeg, frame=frame, moving=bool(moving and any(moving))
    )


def _radiance(
    scene: TrayScene,
    cubes: tuple[PlacedCube, ...],
    moving: tuple[bool, ...] | None,
    substeps: tuple[tuple[PlacedCube, ...], ...],
) -> tuple[FloatArray, tuple[CubeTruth, ...]]:
    """The light reaching the camera (linear RGB, H x W x 3) and the truth of each cube."""
    backdrop = backdrop_for(scene.setup)
    boxes = cube_boxes(scene, cubes) + _props(scene)
    layer = draw_boxes(backdrop, boxes)
    radiance = layer.radiance
    if substeps and len(substeps[-1]) == len(cubes):
        radiance = _motion_blur(backdrop, radiance, layer.owner, cubes, substeps[-1])
    visible_px = layer.visible_px
    if scene.hand is not None:
        radiance = draw_hand(backdrop, radiance, scene.hand)
        # What the hand covers, the camera does not see.
        width, height = scene.setup.image_size
        covered = hand_mask(width, height, scene.hand) > 0.5
        hidden = layer.owner[covered]
        hidden = hidden[hidden >= 0]
        if hidden.size:
            visible_px = visible_px - np.bincount(hidden, minlength=visible_px.size).astype(
                np.int32
            )
    return radiance, _truth(backdrop, cubes, boxes, visible_px, moving)


def _motion_blur(
    backdrop: Backdrop,
    radiance: FloatArray,
    owner: npt.NDArray[np.int32],
    cubes: tuple[PlacedCube, ...],
    earlier: tuple[PlacedCube, ...],
) -> FloatArray:
    """Smear each cube that moved since `earlier` along its path in the picture: its pixels
    are spread with a line kernel as long as the move, over the empty scene behind it.
    (Cheaper than rendering the exposure several times, and what a shutter shows.)"""
    cam = backdrop.camera
    now, _ = cam.project(np.stack([c.centre for c in cubes]))
    then, _ = cam.project(np.stack([c.centre for c in earlier]))
    out = radiance.copy()
    height, width = owner.shape
    for i, (d_x, d_y) in enumerate(now - then):
        length = float(np.hypot(d_x, d_y))
        if length < 0.75:
            continue
        ys, xs = np.nonzero(owner == i)
        if ys.size == 0:
            continue
        pad = math.ceil(length) + 2
        y0, y1 = max(int(ys.min()) - pad, 0), min(int(ys.max()) + pad + 1, height)
        x0, x1 = max(int(xs.min()) - pad, 0), min(int(xs.max()) + pad + 1, width)
        region = out[y0:y1, x0:x1]
        mask = (owner[y0:y1, x0:x1] == i).astype(np.float32)
        kernel = line_kernel(length, math.degrees(math.atan2(d_y, d_x)))
        colour = cv2.filter2D(region * mask[..., None], -1, kernel)
        alpha = cv2.filter2D(mask, -1, kernel)[..., None]
        behind = np.where(mask[..., None] > 0, backdrop.radiance[y0:y1, x0:x1], region)
        out[y0:y1, x0:x1] = behind * (1.0 - alpha) + colour
    return out


def _shoot(
    scene: TrayScene,
    radiance: FloatArray,
    truth: tuple[CubeTruth, ...],
    *,
    jpeg: bool,
    frame: int,
    moving: bool,
) -> RenderedTray:
    """The camera's picture of `radiance` (sensor, JPEG) with its truth."""
    backdrop = backdrop_for(scene.setup)
    rng = np.random.default_rng([scene.seed, 8, frame])
    image = develop(
        radiance, backdrop.gain, backdrop.vignette, scene.capture, rng, scene.setup.chromatic_px
    )
    data = to_jpeg(image, scene.capture.jpeg_quality)
    counts = Counts.of({c: sum(1 for t in truth if t.colour == c) for c in Colour})
    corners = tuple((float(x), float(y)) for x, y in backdrop.tray_corners)
    return RenderedTray(
        scene=scene,
        image=from_jpeg(data),
        jpeg=data if jpeg else None,
        cubes=truth,
        tray_corners=corners,
        counts=counts,
        hand_in_view=scene.hand is not None,
        moving=moving,
    )


def _truth(
    backdrop: Backdrop,
    cubes: tuple[PlacedCube, ...],
    boxes: list[Box],
    visible_px: npt.NDArray[np.int32],
    moving: tuple[bool, ...] | None,
) -> tuple[CubeTruth, ...]:
    cam = backdrop.camera
    out = []
    for i, cube in enumerate(cubes):
        # The upper face is the one whose normal points most nearly up.
        k = int(np.argmax(np.abs(cube.rotation[2, :])))
        up = cube.rotation[:, k] * np.sign(cube.rotation[2, k])
        top = cube.centre + up * cube.size / 2
        uv, _ = cam.project(top[None, :])
        outline, _ = cam.project(boxes[i].corners())
        area = _hull_area(outline)
        seen = float(visible_px[i]) / area if area > 0 and i < visible_px.size else 0.0
        seen = min(seen, 1.0)
        out.append(
            CubeTruth(
                colour=cube.colour,
                x=float(uv[0, 0]),
                y=float(uv[0, 1]),
                visible_fraction=round(seen, 3),
                occluded=seen < 0.5,
                leaning=cube.leaning,
                stacked=cube.stacked,
                against_rim=cube.against_rim,
                centre_mm=(float(cube.centre[0]), float(cube.centre[1]), float(cube.centre[2])),
                moving=bool(moving[i]) if moving is not None else False,
            )
        )
    return tuple(out)


def _hull_area(points: npt.NDArray[np.float64]) -> float:
    hull = cv2.convexHull(points.astype(np.float32))
    return float(cv2.contourArea(hull))


@functools.lru_cache(maxsize=16)
def _props_cached(scene_seed: int, setup_seed: int) -> tuple[Box, ...]:
    rng = np.random.default_rng([scene_seed, setup_seed, 10])
    props = []
    for _ in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(3))
        if kind == 0:  # a book or a box of cards
            half = np.array([rng.uniform(40, 110), rng.uniform(30, 80), rng.uniform(5, 25)])
        elif kind == 1:  # a phone
            half = np.array([35.0, 75.0, 4.0])
        else:  # a mug seen from above is roughly a squat box at this scale
            half = np.array([40.0, 40.0, 45.0])
        colour = srgb_to_linear(rng.uniform(0.1, 0.9, 3).astype(np.float32))
        centre = np.array([rng.uniform(-90, 90), rng.uniform(-70, 70), -2.0 + half[2]])
        props.append(
            Box(
                centre=centre,
                rotation=rot_z(rng.uniform(0, math.pi)),
                half=half,
                albedo=colour.astype(np.float32),
                gloss=float(rng.uniform(0.0, 0.1)),
                grain=0.0,
                grain_axis=0,
                phase=0.0,
            )
        )
    return tuple(props)


def _props(scene: TrayScene) -> list[Box]:
    """Things lying on the table in a picture of something else (books, a phone, a mug)."""
    if scene.setup.has_tray:
        return []
    return list(_props_cached(scene.seed, scene.setup.seed))

"""Where the cubes lie: a random but physically plausible arrangement in the tray.

Cubes land flat with a random turn, many touching in clusters, some against the rim, a few
leaning on a neighbour's side (one edge on the floor, the opposite edge on the neighbour) or
on the rim, and a few lying on top of another. No two cubes interpenetrate: footprints are
tested with the separating-axis test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.simtray.scene import Arrangement, TrayLook

F64Array = npt.NDArray[np.float64]

_CORNERS = np.array(
    [[sx, sy, sz] for sx in (-0.5, 0.5) for sy in (-0.5, 0.5) for sz in (-0.5, 0.5)]
)


@dataclass(frozen=True, eq=False)
class PlacedCube:
    """One cube in the world: `centre` (mm), `rotation` (local->world, 3 x 3), edge `size`
    (mm), and how it lies."""

    colour: Colour
    centre: F64Array
    rotation: F64Array
    size: float
    leaning: bool = False
    stacked: bool = False
    against_rim: bool = False
    support: int = -1

    def corners(self) -> F64Array:
        """The eight corners (8 x 3 mm)."""
        return self.centre[None, :] + (_CORNERS * self.size) @ self.rotation.T

    def footprint(self) -> F64Array:
        """Convex outline (N x 2 mm) of the cube seen straight from above."""
        return _hull(self.corners()[:, :2])


def rot_z(angle: float) -> F64Array:
    """Rotation by `angle` radians about the vertical axis."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_axis(axis: F64Array, angle: float) -> F64Array:
    """Rotation by `angle` radians about the unit vector `axis` (Rodrigues)."""
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.asarray(
        np.eye(3) + math.sin(angle) * kx + (1.0 - math.cos(angle)) * (kx @ kx), dtype=np.float64
    )


def _hull(points: F64Array) -> F64Array:
    """Convex hull (N x 2) of 2D points, counter-clockwise."""
    hull = cv2.convexHull(np.ascontiguousarray(points, dtype=np.float32))
    return np.asarray(hull, dtype=np.float64).reshape(-1, 2)


def _normals(poly: F64Array) -> F64Array:
    edges = np.roll(poly, -1, axis=0) - poly
    normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
    lengths = np.linalg.norm(normals, axis=1)
    keep = lengths > 1e-9
    return np.asarray(normals[keep] / lengths[keep, None], dtype=np.float64)


def polygons_overlap(
    p: F64Array, q: F64Array, gap: float = 0.0, axes: F64Array | None = None
) -> bool:
    """True if convex polygons `p` and `q` (N x 2) come closer than `gap` mm along every
    separating axis (the separating-axis test); `axes` may pass both polygons' edge normals."""
    normals = np.vstack([_normals(p), _normals(q)]) if axes is None else axes
    proj_p = p @ normals.T
    proj_q = q @ normals.T
    separated = (proj_p.max(axis=0) + gap <= proj_q.min(axis=0)) | (
        proj_q.max(axis=0) + gap <= proj_p.min(axis=0)
    )
    return not bool(separated.any())


def contact_distance(fixed: F64Array, moving: F64Array, direction: F64Array) -> float:
    """How far (mm) convex polygon `moving` must slide from where it is along the unit
    `direction` until it no longer overlaps `fixed`: the smallest shift that opens a
    separating axis."""
    normals = np.vstack([_normals(fixed), _normals(moving)])
    along = normals @ direction
    proj_f = fixed @ normals.T
    proj_m = moving @ normals.T
    with np.errstate(divide="ignore", invalid="ignore"):
        ahead = (proj_f.max(axis=0) - proj_m.min(axis=0)) / along
        behind = (proj_m.max(axis=0) - proj_f.min(axis=0)) / -along
    need = np.where(along > 1e-9, ahead, np.where(along < -1e-9, behind, np.inf))
    return float(np.min(need))


class _Tray:
    """The cubes placed so far, with quick rejection by bounding circles."""

    def __init__(self, tray: TrayLook) -> None:
        self.a = tray.width_mm / 2
        self.b = tray.depth_mm / 2
        self.rim = tray.rim_height_mm
        self.cubes: list[PlacedCube] = []
        self.prints: list[F64Array] = []
        self.normals: list[F64Array] = []

    def fits(self, cube: PlacedCube, ignore: int = -1, level: int = 0) -> bool:
        fp = cube.footprint()
        fp_normals = _normals(fp)
        if np.any(np.abs(fp[:, 0]) > self.a + 1e-6) or np.any(np.abs(fp[:, 1]) > self.b + 1e-6):
            return False
        radius = cube.size * 0.87
        for i, other in enumerate(self.cubes):
            if i == ignore or (other.stacked != (level == 1)):
                continue
            if np.hypot(*(other.centre[:2] - cube.centre[:2])) > radius + other.size * 0.87:
                continue
            axes = np.vstack([fp_normals, self.normals[i]])
            if polygons_overlap(fp, self.prints[i], gap=0.02, axes=axes):
                return False
        return True

    def add(self, cube: PlacedCube) -> None:
        self.cubes.append(cube)
        self.prints.append(cube.footprint())
        self.normals.append(_normals(self.prints[-1]))


def arrange(
    counts: Counts, tray: TrayLook, arrangement: Arrangement, rng: np.random.Generator
) -> list[PlacedCube]:
    """Place every cube of `counts` in `tray`; returns them in the order they landed.

    Raises ValueError if they cannot all be placed (only with far more cubes than the game has).
    """
    colours = [c for c in COLOURS for _ in range(counts[c])]
    order = rng.permutation(len(colours))
    state = _Tray(tray)
    for index in order:
        colour = colours[int(index)]
        size = float(arrangement.size_mm + rng.normal(0.0, arrangement.size_jitter_mm))
        cube = _place(state, colour, size, arrangement, rng)
        if cube is None:
            raise ValueError(f"could not fit {counts.total} cubes in a {tray.width_mm:.0f} mm tray")
        state.add(cube)
    return state.cubes


def _place(
    state: _Tray, colour: Colour, size: float, arr: Arrangement, rng: np.random.Generator
) -> PlacedCube | None:
    # A cube can carry one other cube, on top or leaning on it, and only if it lies flat.
    carrying = {c.support for c in state.cubes if c.support >= 0}
    upright = [
        i
        for i, c in enumerate(state.cubes)
        if not c.leaning and not c.stacked and i not in carrying
    ]
    for attempt in range(60):
        roll = rng.random()
        # Later attempts fall back to the simplest placements, so crowded trays still fill.
        fancy = attempt < 30
        cube: PlacedCube | None
        ignore = -1
        level = 0
        if fancy and upright and roll < arr.stack_fraction:
            support = int(rng.choice(upright))
            cube = _stacked(state.cubes[support], support, colour, size, rng)
            level = 1
        elif fancy and upright and roll < arr.stack_fraction + arr.lean_fraction:
            support = int(rng.choice(upright))
            cube = _leaning_on_cube(state.cubes[support], support, colour, size, rng)
            ignore = support
        elif roll < arr.stack_fraction + arr.lean_fraction + arr.rim_fraction:
            cube = _against_rim(state, colour, size, rng, lean=fancy and rng.random() < 0.25)
        elif state.cubes and rng.random() < arr.cluster_tendency and attempt < 50:
            neighbour = state.cubes[int(rng.integers(len(state.cubes)))]
            if neighbour.stacked:
                continue
            cube = _touching(neighbour, colour, size, rng)
        else:
            cube = _free(state, colour, size, rng)
        if state.fits(cube, ignore=ignore, level=level):
            return cube
    return None


def _upright(colour: Colour, x: float, y: float, yaw: float, size: float) -> PlacedCube:
    return PlacedCube(colour, np.array([x, y, size / 2]), rot_z(yaw), size)


def _free(state: _Tray, colour: Colour, size: float, rng: np.random.Generator) -> PlacedCube:
    margin = size * 0.75
    x = rng.uniform(-state.a + margin, state.a - margin)
    y = rng.uniform(-state.b + margin, state.b - margin)
    return _upright(colour, x, y, rng.uniform(0, math.pi / 2), size)


def _touching(
    neighbour: PlacedCube, colour: Colour, size: float, rng: np.random.Generator
) -> PlacedCube:
    """A cube pushed against `neighbour` from a random side until they just touch."""
    direction = rng.uniform(0.0, 2 * math.pi)
    unit = np.array([math.cos(direction), math.sin(direction)])
    neighbour_yaw = math.atan2(neighbour.rotation[1, 0], neighbour.rotation[0, 0])
    yaw = neighbour_yaw + rng.normal(0.0, 0.08) if rng.random() < 0.5 else rng.uniform(0, 6.3)
    rotation = rot_z(yaw)
    local = (_CORNERS * size) @ rotation.T
    start = neighbour.centre[:2]
    moving = _hull(local[:, :2] + start[None, :])
    shift = contact_distance(neighbour.footprint(), moving, unit) + 0.03
    xy = start + shift * unit
    return PlacedCube(colour, np.array([xy[0], xy[1], size / 2]), rotation, size)


def _stacked(
    base: PlacedCube, support: int, colour: Colour, size: float, rng: np.random.Generator
) -> PlacedCube:
    """A cube lying flat on top of `base`, its centre over `base`'s top so it stays put."""
    offset = rng.uniform(-0.22, 0.22, 2) * base.size
    top = base.centre[2] + base.size / 2
    centre = np.array([base.centre[0] + offset[0], base.centre[1] + offset[1], top + size / 2])
    rotation = rot_z(rng.uniform(0, 2 * math.pi))
    return PlacedCube(colour, centre, rotation, size, stacked=True, support=support)


def _leaning_on_cube(
    base: PlacedCube, support: int, colour: Colour, size: float, rng: np.random.Generator
) -> PlacedCube:
    """A cube with one bottom edge on the floor whose upper edge rests on `base`'s side."""
    theta = rng.uniform(math.radians(14), math.radians(35))
    side = int(rng.integers(4))
    e = base.rotation @ np.array([(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0)][side], float)
    e[2] = 0.0
    e /= np.linalg.norm(e)
    reach = base.size / 2 + size / 2 * (math.cos(theta) + math.sin(theta))
    centre = base.centre.copy()
    centre[:2] += e[:2] * (reach + 0.05)
    centre[2] = size / 2 * (math.cos(theta) + math.sin(theta))
    rotation = rot_axis(np.cross(e, [0.0, 0.0, 1.0]), theta) @ base.rotation
    return PlacedCube(colour, centre, rotation, size, leaning=True, support=support)


def _against_rim(
    state: _Tray, colour: Colour, size: float, rng: np.random.Generator, lean: bool
) -> PlacedCube:
    """A cube touching one of the four inner walls, flat or leaning on it."""
    wall = int(rng.integers(4))
    inward = np.array([(1, 0), (-1, 0), (0, 1), (0, -1)][wall], dtype=np.float64)
    limit = state.a if wall < 2 else state.b
    span = state.b if wall < 2 else state.a
    along = rng.uniform(-span + size, span - size)
    tangent = np.array([-inward[1], inward[0]])
    wall_point = -inward * limit + tangent * along
    if lean:
        theta = rng.uniform(math.radians(12), math.radians(30))
        e = np.array([inward[0], inward[1], 0.0])
        reach = size / 2 * (math.cos(theta) + math.sin(theta))
        xy = wall_point + inward * (reach + 0.05)
        centre = np.array([xy[0], xy[1], reach])
        base_yaw = rot_z(math.atan2(inward[1], inward[0]))
        rotation = rot_axis(np.cross(e, [0.0, 0.0, 1.0]), theta) @ base_yaw
        return PlacedCube(colour, centre, rotation, size, leaning=True, against_rim=True)
    yaw = math.atan2(inward[1], inward[0]) + rng.normal(0.0, 0.12)
    turn = yaw - math.atan2(inward[1], inward[0])
    half = size / 2 * (abs(math.cos(turn)) + abs(math.sin(turn)))
    xy = wall_point + inward * (half + 0.05)
    cube = _upright(colour, xy[0], xy[1], yaw, size)
    return PlacedCube(cube.colour, cube.centre, cube.rotation, size, against_rim=True)

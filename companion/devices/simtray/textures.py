"""Procedural surface prints for the simulated tray and table, as linear-RGB albedo images.

Each texture is an image over a rectangle of its surface at a fixed pixels-per-millimetre, so
the renderer can look it up at any world point with `cv2.remap`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.devices.simtray.colour import srgb_to_linear
from companion.devices.simtray.scene import RGB8, TableLook, TrayLook

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class Texture:
    """A linear-RGB albedo image (H x W x 3, float32, R G B) covering the surface rectangle
    from (x0_mm, y0_mm) at `px_per_mm`."""

    albedo: FloatArray
    x0_mm: float
    y0_mm: float
    px_per_mm: float

    def sample(self, x_mm: FloatArray, y_mm: FloatArray) -> FloatArray:
        """Albedo (N x 3) at surface points (N); points off the image take the nearest edge."""
        n = int(np.asarray(x_mm).size)
        # remap wants maps under 32767 rows: lay the points out in rows of 1024.
        cols = 1024
        rows = max(1, -(-n // cols))
        map_x = np.zeros(rows * cols, dtype=np.float32)
        map_y = np.zeros(rows * cols, dtype=np.float32)
        map_x[:n] = (np.asarray(x_mm, dtype=np.float32).ravel() - self.x0_mm) * self.px_per_mm
        map_y[:n] = (np.asarray(y_mm, dtype=np.float32).ravel() - self.y0_mm) * self.px_per_mm
        out = cv2.remap(
            self.albedo,
            map_x.reshape(rows, cols),
            map_y.reshape(rows, cols),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return np.asarray(out, dtype=np.float32).reshape(-1, 3)[:n]


def smooth_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell_px: float, octaves: int = 1
) -> FloatArray:
    """Band-limited noise of `shape` (H, W) with features about `cell_px` pixels across,
    summed over `octaves` halvings of the cell; zero mean, standard deviation about 1."""
    height, width = shape
    total = np.zeros(shape, dtype=np.float32)
    weight = 1.0
    cell = cell_px
    norm = 0.0
    for _ in range(octaves):
        gh = max(2, math.ceil(height / cell) + 2)
        gw = max(2, math.ceil(width / cell) + 2)
        grid = rng.standard_normal((gh, gw)).astype(np.float32)
        big = cv2.resize(grid, (int(gw * cell), int(gh * cell)), interpolation=cv2.INTER_CUBIC)
        total += weight * big[:height, :width]
        norm += weight**2
        weight *= 0.5
        cell = max(1.0, cell / 2.0)
    total /= math.sqrt(norm)
    std = float(total.std())
    return total / std if std > 1e-6 else total


def _lin(rgb: RGB8) -> FloatArray:
    return srgb_to_linear(np.asarray(rgb, dtype=np.float32) / 255.0)


def _mix(a: FloatArray, b: FloatArray, t: FloatArray) -> FloatArray:
    mixed = a[None, None, :] * (1.0 - t[..., None]) + b[None, None, :] * t[..., None]
    return np.asarray(mixed, dtype=np.float32)


def _fibres(rng: np.random.Generator, shape: tuple[int, int], amount: float) -> FloatArray:
    # Paper and cardboard are never flat: fine fibres plus a faint blotchiness.
    fine = smooth_noise(rng, shape, 1.5)
    blotch = smooth_noise(rng, shape, 60.0, octaves=3)
    return (1.0 + amount * (0.6 * fine + 0.4 * blotch)).astype(np.float32)


def tray_floor_texture(tray: TrayLook, px_per_mm: float = 4.0) -> Texture:
    """The tray floor's print over the whole inner floor (plus a millimetre all round)."""
    rng = np.random.default_rng([tray.texture_seed, 11])
    x0, y0 = -tray.width_mm / 2 - 1.0, -tray.depth_mm / 2 - 1.0
    width = math.ceil((tray.width_mm + 2.0) * px_per_mm)
    height = math.ceil((tray.depth_mm + 2.0) * px_per_mm)
    shape = (height, width)
    colours = [_lin(c) for c in tray.print_colours]
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    kind = tray.print_kind
    if kind == "plain":
        albedo = np.broadcast_to(colours[0], (height, width, 3)).astype(np.float32)
    elif kind == "gradient":
        angle = rng.uniform(0.0, 2 * math.pi)
        ramp = xx * math.cos(angle) + yy * math.sin(angle)
        ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1.0)
        albedo = _mix(colours[0], colours[1], ramp)
    elif kind == "pattern":
        albedo = _pattern(rng, xx, yy, colours[0], colours[1], px_per_mm)
    elif kind == "texture":
        field = smooth_noise(rng, shape, rng.uniform(20.0, 80.0) * px_per_mm / 4.0, octaves=4)
        albedo = _mix(colours[0], colours[1], np.clip(0.5 + 0.3 * field, 0.0, 1.0))
    else:
        albedo = _colourful(rng, shape, colours, px_per_mm)
    albedo = albedo * _fibres(rng, shape, 0.035)[..., None]
    albedo = _specks(np.random.default_rng([tray.texture_seed, 14]), albedo, tray.specks, px_per_mm)
    # Texture rows grow with world y, which points up the picture: flip so print reads upright.
    albedo = np.ascontiguousarray(albedo[::-1])
    return Texture(np.clip(albedo, 0.0, 1.0).astype(np.float32), x0, y0, px_per_mm)


def _specks(
    rng: np.random.Generator, albedo: FloatArray, count: int, px_per_mm: float
) -> FloatArray:
    """Dust, crumbs and lint: small dark or pale blobs, each 0.5-2.5 mm across."""
    if count <= 0:
        return albedo
    out = np.ascontiguousarray(albedo, dtype=np.float32)
    height, width = out.shape[:2]
    for _ in range(count):
        centre = (int(rng.integers(width)), int(rng.integers(height)))
        radius = max(1, int(rng.uniform(0.25, 1.25) * px_per_mm))
        tone = float(rng.choice([0.05, 0.15, 0.6, 0.85]))
        colour = (tone * rng.uniform(0.8, 1.1), tone, tone * rng.uniform(0.8, 1.1))
        if rng.random() < 0.3:  # a fibre of lint
            end = (
                centre[0] + int(rng.normal(0, 4) * px_per_mm),
                centre[1] + int(rng.normal(0, 4) * px_per_mm),
            )
            cv2.line(out, centre, end, colour, max(1, radius // 2), cv2.LINE_AA)
        else:
            cv2.circle(out, centre, radius, colour, -1, cv2.LINE_AA)
    return out


def _pattern(
    rng: np.random.Generator,
    xx: FloatArray,
    yy: FloatArray,
    a: FloatArray,
    b: FloatArray,
    px_per_mm: float,
) -> FloatArray:
    period = rng.uniform(6.0, 25.0) * px_per_mm
    angle = rng.uniform(0.0, math.pi)
    u = xx * math.cos(angle) + yy * math.sin(angle)
    v = -xx * math.sin(angle) + yy * math.cos(angle)
    style = int(rng.integers(3))
    if style == 0:  # stripes
        t = (np.mod(u, period) < period * rng.uniform(0.3, 0.7)).astype(np.float32)
    elif style == 1:  # checks
        t = ((np.floor(u / period) + np.floor(v / period)) % 2).astype(np.float32)
    else:  # dots
        du = np.mod(u, period) - period / 2
        dv = np.mod(v, period) - period / 2
        t = (du * du + dv * dv < (period * rng.uniform(0.15, 0.35)) ** 2).astype(np.float32)
    # Printed edges are sharp but not aliased.
    t = np.asarray(cv2.GaussianBlur(t, (0, 0), 0.7), dtype=np.float32)
    return _mix(a, b, t)


def _colourful(
    rng: np.random.Generator, shape: tuple[int, int], colours: list[FloatArray], px_per_mm: float
) -> FloatArray:
    # A busy printed illustration: colour fields, shapes, lines and lettering in vivid inks.
    height, width = shape
    field = smooth_noise(rng, shape, 30.0 * px_per_mm, octaves=2)
    albedo = _mix(colours[0], colours[1], np.clip(0.5 + 0.6 * field, 0.0, 1.0))
    canvas = np.ascontiguousarray(albedo)
    for _ in range(int(rng.integers(6, 16))):
        colour = tuple(float(c) for c in colours[int(rng.integers(len(colours)))])
        centre = (int(rng.integers(width)), int(rng.integers(height)))
        kind = int(rng.integers(4))
        if kind == 0:
            axes = (int(rng.uniform(4, 30) * px_per_mm), int(rng.uniform(4, 20) * px_per_mm))
            cv2.ellipse(canvas, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)
        elif kind == 1:
            pts = rng.normal(0.0, rng.uniform(5, 18) * px_per_mm, (int(rng.integers(3, 7)), 2))
            poly = (pts + np.array(centre)).astype(np.int32)
            cv2.fillPoly(canvas, [poly], colour)
        elif kind == 2:
            end = (int(rng.integers(width)), int(rng.integers(height)))
            thickness = max(1, int(rng.uniform(0.4, 3.0) * px_per_mm))
            cv2.line(canvas, centre, end, colour, thickness, cv2.LINE_AA)
        else:
            text = "".join(chr(int(c)) for c in rng.integers(65, 91, int(rng.integers(3, 9))))
            scale = rng.uniform(0.8, 2.2) * px_per_mm / 4.0
            cv2.putText(
                canvas, text, centre, cv2.FONT_HERSHEY_DUPLEX, scale, colour, 2, cv2.LINE_AA
            )
    return canvas


def wall_texture(tray: TrayLook, px_per_mm: float = 3.0) -> Texture:
    """The cardboard of the walls: u along the wall (mm, any of the four walls), v up it."""
    rng = np.random.default_rng([tray.texture_seed, 12])
    length = max(tray.width_mm, tray.depth_mm) + 2 * tray.wall_mm + 4.0
    shape = (math.ceil((tray.rim_height_mm + 6.0) * px_per_mm), int(length * px_per_mm))
    albedo = (
        np.broadcast_to(_lin(tray.wall_colour), (*shape, 3)) * _fibres(rng, shape, 0.05)[..., None]
    )
    return Texture(albedo.astype(np.float32), -length / 2, -3.0, px_per_mm)


def table_texture(table: TableLook, extent_mm: tuple[float, float, float, float]) -> Texture:
    """The table top over `extent_mm` (x0, y0, x1, y1) in world millimetres."""
    rng = np.random.default_rng([table.texture_seed, 13])
    x0, y0, x1, y1 = extent_mm
    px_per_mm = float(np.clip(1400.0 / max(x1 - x0, y1 - y0), 0.6, 2.5))
    shape = (int((y1 - y0) * px_per_mm) + 2, int((x1 - x0) * px_per_mm) + 2)
    colours = [_lin(c) for c in table.colours]
    if table.kind == "wood":
        albedo = _wood(rng, shape, colours[0], colours[1], px_per_mm)
    elif table.kind == "cloth":
        mottle = smooth_noise(rng, shape, 25.0 * px_per_mm, octaves=3)
        fine = smooth_noise(rng, shape, 1.0)
        shade = 1.0 + 0.06 * mottle + 0.08 * fine
        albedo = colours[0][None, None, :] * shade[..., None]
    else:
        # A patterned tablecloth or a busy desk: soft blotches, not a hard camouflage.
        f1 = np.clip(0.5 + 0.25 * smooth_noise(rng, shape, 40.0 * px_per_mm, 4), 0.0, 1.0)
        f2 = np.clip(0.3 + 0.2 * smooth_noise(rng, shape, 15.0 * px_per_mm, 3), 0.0, 1.0)
        albedo = _mix(colours[0], colours[1], f1) * (1 - f2[..., None]) + colours[2] * f2[..., None]
    return Texture(np.clip(albedo, 0.0, 1.0).astype(np.float32), x0, y0, px_per_mm)


def _wood(
    rng: np.random.Generator,
    shape: tuple[int, int],
    light: FloatArray,
    dark: FloatArray,
    px_per_mm: float,
) -> FloatArray:
    """Planks along a random direction: long thin grain streaks (noise stretched along the
    grain), a slow figure, a tone per plank and a dark seam between planks."""
    height, width = shape
    diagonal = int(math.hypot(height, width)) + 4
    # Streaks: noise cells about 0.8 mm across the grain and 40 mm along it.
    across_cells = max(2, int(diagonal / (0.8 * px_per_mm)))
    along_cells = max(2, int(diagonal / (40.0 * px_per_mm)))
    grid = rng.standard_normal((across_cells, along_cells)).astype(np.float32)
    streaks = cv2.resize(grid, (diagonal, diagonal), interpolation=cv2.INTER_CUBIC)
    wide = cv2.resize(
        rng.standard_normal((max(2, across_cells // 6), along_cells)).astype(np.float32),
        (diagonal, diagonal),
        interpolation=cv2.INTER_CUBIC,
    )
    plank_px = rng.uniform(70.0, 180.0) * px_per_mm
    rows = np.arange(diagonal, dtype=np.float32)[:, None]
    plank = np.floor(rows / plank_px)
    tone = 1.0 + 0.12 * np.sin(plank * 12.9898 + rng.uniform(0, 6.28))
    seam = (np.mod(rows, plank_px) < max(1.0, 0.6 * px_per_mm)).astype(np.float32)
    t = np.clip(0.5 + 0.3 * streaks + 0.12 * wide, 0.0, 1.0)
    angle = float(rng.uniform(0.0, 180.0))
    turn = cv2.getRotationMatrix2D((diagonal / 2, diagonal / 2), angle, 1.0)
    turn[0, 2] -= (diagonal - width) / 2
    turn[1, 2] -= (diagonal - height) / 2
    t_img = cv2.warpAffine(t * np.broadcast_to(tone, t.shape), turn, (width, height))
    seam_img = cv2.warpAffine(seam * np.ones_like(t), turn, (width, height))
    base = cv2.warpAffine(np.broadcast_to(tone, t.shape).astype(np.float32), turn, (width, height))
    albedo = _mix(light, dark, np.clip(t_img / np.maximum(base, 1e-3), 0.0, 1.0))
    albedo = albedo * base[..., None] * (1.0 - 0.55 * seam_img[..., None])
    return np.asarray(albedo, dtype=np.float32)

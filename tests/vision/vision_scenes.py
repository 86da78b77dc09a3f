"""Stand-in tray pictures for the vision tests until the shared renderer lands.

A flat, quick drawing: a tray quadrilateral with a coloured print on a table, cubes as a lit
top face over a darker body, cast shadows, light colour, a brightness gradient, blur, sensor
noise and JPEG. Known counts and positions come with every picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour, Counts

# Rough sRGB (BGR order) of the wooden cubes' paint under white light.
PAINT: dict[Colour, tuple[int, int, int]] = {
    Colour.BLUE: (170, 70, 25),
    Colour.BLACK: (32, 30, 28),
    Colour.RED: (45, 40, 185),
    Colour.BROWN: (35, 65, 110),
    Colour.GREEN: (55, 145, 45),
    Colour.YELLOW: (35, 200, 230),
    Colour.WHITE: (225, 228, 230),
}

Cube = tuple[Colour, float, float, float]
"""Colour, x and y on the tray print (pixels), rotation (degrees)."""


@dataclass(frozen=True)
class Shot:
    """A picture with what it shows."""

    image: NDArray[np.uint8]
    counts: Counts
    cubes: list[Cube]


class SetUp:
    """One camera, tray and light; every picture from it shares them."""

    def __init__(self, seed: int, *, width: int = 800, height: int = 600) -> None:
        rng = np.random.default_rng(seed)
        self.width, self.height = width, height
        self.table = rng.integers(30, 200, 3)
        warmth = rng.uniform(0.75, 1.25)
        self.light = np.array([1 / warmth, 1.0, warmth])
        tray_w, tray_h = 620, 440
        self.canvas = (tray_w, tray_h)
        self.side = rng.uniform(26, 34)
        source = np.float32([[0, 0], [tray_w, 0], [tray_w, tray_h], [0, tray_h]])
        cx, cy = width / 2 + rng.uniform(-30, 30), height / 2 + rng.uniform(-20, 20)
        scale = rng.uniform(0.95, 1.15) * width / 800
        tilt_x, tilt_y = rng.uniform(-0.12, 0.12, 2)
        target = []
        for x, y in source:
            dx, dy = (x - tray_w / 2) * scale, (y - tray_h / 2) * scale
            f = 1 + tilt_x * dx / tray_w + tilt_y * dy / tray_h
            target.append([cx + dx * f, cy + dy * f])
        self.homography = cv2.getPerspectiveTransform(source, np.float32(target))
        direction = rng.uniform(-1, 1, 2)
        self.light_direction = direction / np.linalg.norm(direction)
        self.shadow_length = rng.uniform(0.2, 0.6)
        self.noise = rng.uniform(2, 6)
        self.quality = int(rng.integers(70, 95))
        pattern = np.zeros((tray_h, tray_w, 3), np.uint8)
        pattern[:] = rng.integers(40, 220, 3)
        for _ in range(6):
            ink = tuple(int(v) for v in rng.integers(0, 255, 3))
            centre = (int(rng.integers(0, tray_w)), int(rng.integers(0, tray_h)))
            cv2.circle(pattern, centre, int(rng.integers(20, 90)), ink, -1)
        cv2.rectangle(pattern, (0, 0), (tray_w - 1, tray_h - 1), (60, 60, 60), 14)
        self.pattern = pattern

    def shoot(self, cubes: list[Cube], seed: int) -> Shot:
        """A picture of these cubes in the tray."""
        rng = np.random.default_rng(seed)
        tray_w, tray_h = self.canvas
        tray = self.pattern.astype(np.float32)
        side = self.side
        offset = self.light_direction * side * self.shadow_length
        squares = [(c, cv2.boxPoints(((x, y), (side, side), a))) for c, x, y, a in cubes]
        shadow = np.zeros((tray_h, tray_w), np.uint8)
        for _, square in squares:
            hull = cv2.convexHull(np.concatenate([square, square + offset]).astype(np.float32))
            cv2.fillConvexPoly(shadow, hull.astype(np.int32), 1)
        tray[shadow > 0] *= 0.55
        for colour, square in squares:
            paint = np.array(PAINT[colour], np.float32) * rng.uniform(0.93, 1.07)
            body = np.concatenate([square, square + np.array([2.5, 3.5])]).astype(np.float32)
            cv2.fillConvexPoly(tray, cv2.convexHull(body).astype(np.int32), (paint * 0.6).tolist())
            cv2.fillConvexPoly(tray, square.astype(np.int32), paint.tolist())
        size = (self.width, self.height)
        picture = np.zeros((self.height, self.width, 3), np.float32)
        picture[:] = self.table
        warped = cv2.warpPerspective(tray, self.homography, size)
        cover = cv2.warpPerspective(np.ones((tray_h, tray_w), np.float32), self.homography, size)
        picture = picture * (1 - cover[..., None]) + warped * cover[..., None]
        xs = np.arange(self.width, dtype=np.float32)[None, :] / self.width
        gradient = 0.85 + 0.3 * (xs * self.light_direction[0] * 0.5 + 0.5)
        picture = picture * gradient[..., None] * self.light
        picture = cv2.GaussianBlur(picture, (0, 0), 0.8)
        picture += rng.normal(0, self.noise, picture.shape)
        image = np.clip(picture, 0, 255).astype(np.uint8)
        _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        decoded = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
        counts = Counts.of({c: sum(1 for cube in cubes if cube[0] == c) for c in COLOURS})
        return Shot(decoded, counts, cubes)

    def place(self, counts: Counts, seed: int, *, clustered: bool = True) -> list[Cube]:
        """Cubes for these counts at random places, not overlapping, often in small groups."""
        rng = np.random.default_rng(seed)
        tray_w, tray_h = self.canvas
        side = self.side
        cubes: list[Cube] = []
        spots: list[tuple[float, float]] = []
        for colour, n in counts.items():
            for _ in range(n):
                x = y = 0.0
                for _attempt in range(300):
                    if clustered and spots and rng.random() < 0.4:
                        bx, by = spots[int(rng.integers(len(spots)))]
                        angle, gap = rng.uniform(0, 2 * np.pi), side * rng.uniform(1.05, 1.3)
                        x, y = bx + gap * np.cos(angle), by + gap * np.sin(angle)
                    else:
                        x = rng.uniform(30 + side, tray_w - 30 - side)
                        y = rng.uniform(30 + side, tray_h - 30 - side)
                    inside = (
                        25 + side / 2 < x < tray_w - 25 - side
                        and 25 + side / 2 < y < tray_h - 25 - side
                    )
                    apart = all(
                        (x - px) ** 2 + (y - py) ** 2 > (side * 1.45) ** 2 for px, py in spots
                    )
                    if inside and apart:
                        break
                spots.append((x, y))
                cubes.append((colour, x, y, float(rng.uniform(0, 90))))
        return cubes

    def calibration(
        self, seed: int, per_colour: int = 5
    ) -> tuple[NDArray[np.uint8], dict[Colour, NDArray[np.uint8]]]:
        """The empty tray and one picture per colour with `per_colour` separate cubes."""
        empty = self.shoot([], seed).image
        pictures = {}
        for i, colour in enumerate(COLOURS):
            cubes = self.place(
                Counts().with_count(colour, per_colour), seed + i + 1, clustered=False
            )
            pictures[colour] = self.shoot(cubes, seed + 100 + i).image
        return empty, pictures


def random_counts(seed: int, most: int = 15) -> Counts:
    """Counts of a typical drop: 0..most cubes, at most 7 of a colour."""
    rng = np.random.default_rng(seed)
    values = [0] * len(COLOURS)
    for _ in range(int(rng.integers(0, most + 1))):
        index = int(rng.integers(len(COLOURS)))
        values[index] = min(7, values[index] + 1)
    return Counts.from_tuple(values)

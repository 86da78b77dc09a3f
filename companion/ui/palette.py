"""How each cube colour is shown: its paint, the ink drawn on it, and an icon shape.

Colour is never the only cue: each colour also has its two-letter `Colour.code` and an icon
whose outline differs from every other colour's. One row per colour, in action-circuit order.
"""

from __future__ import annotations

from enum import StrEnum

from companion.core.cubes import Colour

RGBA = tuple[float, float, float, float]


class Shape(StrEnum):
    """Icon outlines, chosen to stay apart even when seen small or in grey."""

    CIRCLE = "circle"
    SQUARE = "square"
    TRIANGLE = "triangle"
    DIAMOND = "diamond"
    CROSS = "cross"
    STAR = "star"
    HOURGLASS = "hourglass"


DARK_INK: RGBA = (0.05, 0.05, 0.05, 1.0)
LIGHT_INK: RGBA = (1.0, 1.0, 1.0, 1.0)

# colour: (paint, ink for text and icon on that paint, icon shape)
_TABLE: dict[Colour, tuple[RGBA, RGBA, Shape]] = {
    Colour.BLUE: ((0.12, 0.38, 0.85, 1.0), LIGHT_INK, Shape.CIRCLE),
    Colour.BLACK: ((0.06, 0.06, 0.06, 1.0), LIGHT_INK, Shape.SQUARE),
    Colour.RED: ((0.82, 0.12, 0.12, 1.0), LIGHT_INK, Shape.TRIANGLE),
    Colour.BROWN: ((0.52, 0.31, 0.13, 1.0), LIGHT_INK, Shape.DIAMOND),
    Colour.GREEN: ((0.10, 0.55, 0.22, 1.0), LIGHT_INK, Shape.CROSS),
    Colour.YELLOW: ((0.98, 0.82, 0.10, 1.0), DARK_INK, Shape.STAR),
    Colour.WHITE: ((0.95, 0.95, 0.93, 1.0), DARK_INK, Shape.HOURGLASS),
}


def paint(colour: Colour) -> RGBA:
    """The fill colour for a cube colour (RGBA, 0..1)."""
    return _TABLE[colour][0]


def ink(colour: Colour) -> RGBA:
    """Text and icon colour that reads well on `paint(colour)`."""
    return _TABLE[colour][1]


def shape(colour: Colour) -> Shape:
    """The icon outline of a cube colour; no two colours share one."""
    return _TABLE[colour][2]


def outline_points(kind: Shape, cx: float, cy: float, r: float) -> list[float]:
    """The polygon of an icon as flat [x0, y0, x1, y1, ...] in pixels, centred, radius r.

    Every shape is returned as a polygon fan around its centre, so one drawing routine fills all.
    """
    import math

    def ring(n: int, start_deg: float, radii: list[float]) -> list[float]:
        points: list[float] = []
        for i in range(n):
            angle = math.radians(start_deg + 360.0 * i / n)
            rr = radii[i % len(radii)]
            points += [cx + rr * math.cos(angle), cy + rr * math.sin(angle)]
        return points

    if kind is Shape.CIRCLE:
        return ring(24, 0, [r])
    if kind is Shape.SQUARE:
        return ring(4, 45, [r * 1.2])
    if kind is Shape.TRIANGLE:
        return ring(3, 90, [r * 1.25])
    if kind is Shape.DIAMOND:
        return ring(4, 90, [r * 1.2])
    if kind is Shape.STAR:
        return ring(10, 90, [r * 1.25, r * 0.5])
    if kind is Shape.CROSS:
        a, b = r, r * 0.36
        return [cx + b, cy + b, cx + b, cy + a, cx - b, cy + a, cx - b, cy + b, cx - a, cy + b,
                cx - a, cy - b, cx - b, cy - b, cx - b, cy - a, cx + b, cy - a, cx + b, cy - b,
                cx + a, cy - b, cx + a, cy + b]  # fmt: skip
    # HOURGLASS: two triangles meeting at the centre.
    a = r
    return [cx - a, cy + a, cx + a, cy + a, cx, cy, cx + a, cy - a, cx - a, cy - a, cx, cy]

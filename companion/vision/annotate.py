"""Drawing a reading onto the picture: each cube outlined and labelled, the counts on top."""

from __future__ import annotations

import cv2

from companion.core.cubes import COLOURS, Colour
from companion.vision.images import BGRImage
from companion.vision.reading import CubeSighting

# Outline colours (BGR) chosen to stand out on the tray, one per cube colour.
_INK: dict[Colour, tuple[int, int, int]] = {
    Colour.BLUE: (255, 120, 0),
    Colour.BLACK: (60, 60, 60),
    Colour.RED: (0, 0, 230),
    Colour.BROWN: (30, 80, 140),
    Colour.GREEN: (0, 180, 0),
    Colour.YELLOW: (0, 220, 255),
    Colour.WHITE: (245, 245, 245),
}


def annotate(
    image: BGRImage,
    cubes: list[CubeSighting],
    counts: dict[Colour, int],
    cube_radius: float,
    confident: bool,
    reasons: list[str],
) -> BGRImage:
    """A copy of the picture with each cube boxed and coded (e.g. `Rd`), uncertain ones in
    magenta, and the counts and reasons written along the top."""
    picture = image.copy()
    scale = max(0.4, min(picture.shape[:2]) / 900.0)
    r = max(4, round(cube_radius))
    for cube in cubes:
        x, y = round(cube.x), round(cube.y)
        ink = _INK[cube.colour] if cube.confidence >= 0.6 else (255, 0, 255)
        cv2.rectangle(picture, (x - r, y - r), (x + r, y + r), (0, 0, 0), 3)
        cv2.rectangle(picture, (x - r, y - r), (x + r, y + r), ink, 1)
        _text(picture, cube.colour.code, (x - r, y - r - 3), 0.9 * scale, ink)
    line = "  ".join(f"{c.code} {counts.get(c, 0)}" for c in COLOURS)
    verdict = "OK" if confident else "UNSURE"
    _text(picture, f"{line}   {verdict}", (8, round(28 * scale)), 1.2 * scale, (255, 255, 255))
    for i, reason in enumerate(reasons[:4]):
        _text(picture, reason, (8, round((58 + 28 * i) * scale)), 0.9 * scale, (255, 0, 255))
    return picture


def _text(
    picture: BGRImage, text: str, origin: tuple[int, int], size: float, ink: tuple[int, int, int]
) -> None:
    """Text with a dark outline so it reads on any tray colour."""
    cv2.putText(picture, text, origin, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(picture, text, origin, cv2.FONT_HERSHEY_SIMPLEX, size, ink, 1, cv2.LINE_AA)

"""The tray's outline as four corners in the picture, in the one order every step takes.

Tray finding gives the floor's outline as four corners; the warp to the top-down view, the
profile and the realignment of later pictures take them from the top left round clockwise.
`order_corners` puts four found points in that order; `whole_picture` stands in for the
outline when none is found.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
"""Four (x, y) points in picture pixels: top-left, top-right, bottom-right, bottom-left."""


def order_corners(points: NDArray[np.float32]) -> Corners:
    """Four points sorted as top-left, top-right, bottom-right, bottom-left (by sums/diffs)."""
    pts = points.reshape(4, 2).astype(np.float64)
    sums = pts.sum(axis=1)
    diffs = pts[:, 1] - pts[:, 0]
    tl, br = pts[int(np.argmin(sums))], pts[int(np.argmax(sums))]
    tr, bl = pts[int(np.argmin(diffs))], pts[int(np.argmax(diffs))]
    return (
        (float(tl[0]), float(tl[1])),
        (float(tr[0]), float(tr[1])),
        (float(br[0]), float(br[1])),
        (float(bl[0]), float(bl[1])),
    )


def whole_picture(width: int, height: int) -> Corners:
    """The corners of the whole picture, used when no tray outline can be found."""
    w, h = float(width - 1), float(height - 1)
    return ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h))


__all__ = ["Corners", "order_corners", "whole_picture"]

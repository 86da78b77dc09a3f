"""A cube the picture hardly shows: one lying on print of its own colour.

A brown cube on a brown floor changes the picture only along its outline (a darker edge a
pixel or two wide), so few of its pixels pass the change threshold and no colour finds it.
Such a reading must not be given as sure. The outline still adds up: summed over a cube's
square, the difference from the empty tray stands well above what the floor's own noise
gives, and, unlike a change of light over the print, it stays within that square. Where it
lies tells where to look for the cube (see `detect.faint_cubes`).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.images import FloatImage, Mask

# Mean difference (CIE76, above the floor's own noise) over a cube's square that tells of
# something there. On rendered trays, a cube on print of its own colour gives 2.4-3.3; bare
# floor gives up to 3.1, mostly where the light changed and spread wide (see below).
FAINT_MEAN = 2.2
# ... and that mean at least this many times the mean of the ring a cube's side wide around
# the square: an outline is a cube's size, a change of light or exposure reaches further
# (rendered trays: 14-21 for such cubes, 2-8 for most empty floor).
FAINT_CONTRAST = 10.0
# A difference counts up to this many times the picture's change threshold: one sharp
# speck or print edge must not make a cube's worth on its own.
FAINT_CAP = 2.0


def faint_places(
    difference: FloatImage,
    threshold: float,
    noise: FloatImage | None,
    quiet: Mask,
    cube_side: float,
) -> list[tuple[float, float]]:
    """Where cube-sized patches of faint change lie (view pixels, the strongest first), each
    patch's strongest point; empty when there are none.

    `difference` is the view's colour difference from the empty tray and `threshold` the
    picture's change threshold; `noise` the per-pixel difference seen between calibration
    shots (None: none); `quiet` the floor away from the cubes found, their shadows and the
    pixels that change anyway; `cube_side` in view pixels.
    """
    # (np.clip returns a new array: the picture's difference is left as it was.)
    above = difference if noise is None else difference - noise
    excess: FloatImage = np.clip(above, 0.0, FAINT_CAP * threshold)
    excess *= quiet  # (quicker than setting the rest to 0 through a mask)
    # Means over squares a cube wide are the same at half the size (each pixel there the
    # mean of four) and take a quarter of the time.
    height, width = excess.shape
    excess = np.asarray(
        cv2.resize(excess, (max(1, width // 2), max(1, height // 2)), interpolation=cv2.INTER_AREA),
        np.float32,
    )
    side = max(3, round(cube_side / 2) | 1)
    square = np.asarray(cv2.blur(excess, (side, side)), np.float32)
    around = np.asarray(cv2.blur(excess, (3 * side, 3 * side)), np.float32)
    ring = (around * 9.0 - square) / 8.0
    faint = (square >= FAINT_MEAN) & (square >= FAINT_CONTRAST * ring)
    if not faint.any():
        return []
    n, patches = cv2.connectedComponents(faint.astype(np.uint8), connectivity=8)
    places: list[tuple[float, float, float]] = []
    for patch in range(1, n):
        ys, xs = np.nonzero(patches == patch)
        best = int(np.argmax(square[ys, xs]))
        # (Back to full size: a half-size pixel's centre lies between four full-size ones.)
        places.append(
            (float(square[ys[best], xs[best]]), 2.0 * xs[best] + 0.5, 2.0 * ys[best] + 0.5)
        )
    places.sort(reverse=True)
    return [(x, y) for _, x, y in places]


__all__ = ["faint_places"]

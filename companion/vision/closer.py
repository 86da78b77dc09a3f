"""A closer look at the picture round a point of the tray's view.

The view has about ten pixels to a cube's side, and its shrink and blur lose what is narrower
than a view pixel: a sliver of a cube beneath another, the crack between two touching tops.
The picture itself often has two to three times the view's pixels there, so those looks warp
the picture again round a view point, at SCALE times the view's scale.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import BGRImage, FloatImage
from companion.vision.segment import lab8
from companion.vision.tray_view import TrayView

# The closer look's scale over the view's.
SCALE = 3
# The blur that takes the picture's pixel noise off (closer-look pixels), far less than the
# view's: what the closer look is for is what the view's blur lost.
BLUR = 1.0


def closer_look(
    picture: BGRImage,
    view: TrayView,
    tables: NDArray[np.uint8] | None,
    centre: tuple[float, float],
    half: int,
) -> tuple[FloatImage, BGRImage, NDArray[np.float64]]:
    """The picture round the view point `centre` (x, y) at SCALE times the view's scale, a
    square 2 * half + 1 pixels wide, its light matched as the view's was (`tables`, see
    `segment.Comparison.tables`; None: as it is): in Lab and in 8-bit BGR, and the affine map
    (2 x 3) from view pixels to its pixels."""
    size = (2 * half + 1, 2 * half + 1)
    to_look = np.array(
        [
            [SCALE, 0.0, half - SCALE * centre[0]],
            [0.0, SCALE, half - SCALE * centre[1]],
            [0.0, 0.0, 1.0],
        ]
    )
    warped = cv2.warpPerspective(
        picture,
        to_look @ view.homography,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    smoothed: BGRImage = np.asarray(cv2.GaussianBlur(warped, (0, 0), BLUR), np.uint8)
    if tables is not None:
        smoothed = np.asarray(cv2.LUT(smoothed, tables), np.uint8)
    return lab8(smoothed), smoothed, to_look[:2]


__all__ = ["BLUR", "SCALE", "closer_look"]

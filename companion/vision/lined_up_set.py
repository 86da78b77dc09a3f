"""Calibration pictures lined up with the empty tray's when the camera or tray moved between.

Putting each colour's cubes in the tray is the moment a hand knocks the camera's stand or
pushes the tray. Calibration learns every colour from its picture's difference to the empty
tray, so a picture taken after such a knock differs all along the print's and the rim's edges:
those edges were taken for cubes, and the set was refused for holding "cubes of two colours"
that it did not hold, or accepted with colours learned from the edges.

`lined_up_pictures` measures each colour picture's move against the empty tray with the same
alignment counting uses on a knocked camera (`realign`) and, where it moved, warps the picture
back onto the empty tray's: the floor is flat, so the move of its view is a move of the floor's
plane in the picture too.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from companion.core.cubes import Colour
from companion.vision.images import BGRImage
from companion.vision.realign import grey, lined_up_view, shrunk
from companion.vision.tray_view import TrayView

# The cube's side is not known yet when the pictures are lined up (it is measured from them):
# the move is judged against a provisional side of this share of the view's longer side.
# Trays' floors are 120-170 mm wide (rendered) and 134-161 mm (path-traced), 13-19 cubes of
# 9 mm; with the view's margins a cube spans 1/16 to 1/23 of the view.
SIDE_GUESS = 1.0 / 20.0


def lined_up_pictures(
    empty: BGRImage, per_colour: Mapping[Colour, BGRImage], view: TrayView
) -> tuple[dict[Colour, BGRImage], list[Colour]]:
    """The colour pictures, each one that moved against `empty` in `view` warped back onto
    it; and the colours whose pictures moved, to tell the user."""
    empty_grey = grey(view.warp(empty))
    empty_small = shrunk(empty_grey)
    side = SIDE_GUESS * max(view.width, view.height)
    height, width = empty.shape[:2]
    pictures: dict[Colour, BGRImage] = {}
    moved: list[Colour] = []
    for colour, picture in per_colour.items():
        lined_up = lined_up_view(view.warp(picture), empty_grey, empty_small, view, side)
        if lined_up is None:
            pictures[colour] = picture
            continue
        # A picture pixel p of the moved picture shows the floor point that the empty tray's
        # picture shows at (the empty's warp)^-1 (the moved view's warp) p.
        back = np.linalg.inv(view.homography) @ lined_up.homography
        pictures[colour] = np.asarray(
            cv2.warpPerspective(
                picture,
                back,
                (width, height),
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            ),
            np.uint8,
        )
        moved.append(colour)
    return pictures, moved


__all__ = ["SIDE_GUESS", "lined_up_pictures"]

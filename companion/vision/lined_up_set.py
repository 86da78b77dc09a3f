"""Calibration pictures lined up with each other when the camera or tray moved between them.

Putting each colour's cubes in the tray is the moment a hand knocks the camera's stand or
pushes the tray. Calibration learns every colour from its picture's difference to the empty
tray, so a picture taken after such a knock differs all along the print's and the rim's edges:
those edges were taken for cubes, and the set was refused for holding "cubes of two colours"
that it did not hold, or accepted with colours learned from the edges.

`lined_up_set` measures each colour picture's move against the empty tray with the alignment
counting uses on a knocked camera (`realign`), and warps the pictures onto the last one's: the
pictures are taken in the order of COLOURS, so the last shows the tray where it lies now, where
the drops to count will show it too. (The floor is flat, so the move of its view is a move of
the floor's plane in the picture.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour
from companion.vision.corners import Corners
from companion.vision.images import BGRImage
from companion.vision.realign import MIN_MOVE_CUBES, grey, lined_up_view, shrunk
from companion.vision.tray_view import TrayView

# The cube's side is not known yet when the pictures are lined up (it is measured from them):
# the move is judged against a provisional side of this share of the view's longer side.
# Trays' floors are 120-170 mm wide (rendered) and 134-161 mm (path-traced), 13-19 cubes of
# 9 mm; with the view's margins a cube spans 1/16 to 1/23 of the view.
SIDE_GUESS = 1.0 / 20.0

Homography = NDArray[np.float64]


@dataclass(frozen=True)
class LinedUp:
    """A calibration set whose pictures all show the tray where the last colour picture does."""

    empty: BGRImage
    per_colour: dict[Colour, BGRImage]
    # The pictures that were warped, by name ("empty" and the colours), in the order taken.
    moved: tuple[str, ...]
    # Maps the empty tray's picture's pixels to where they lie in the pictures now.
    from_empty: Homography

    def outline(self, corners: Corners) -> Corners:
        """An outline found in the empty tray's picture, where it lies in the pictures now."""
        points = np.array(corners, np.float64).reshape(-1, 1, 2)
        moved = cv2.perspectiveTransform(points, self.from_empty).reshape(4, 2).tolist()
        return (
            (moved[0][0], moved[0][1]),
            (moved[1][0], moved[1][1]),
            (moved[2][0], moved[2][1]),
            (moved[3][0], moved[3][1]),
        )


def lined_up_set(empty: BGRImage, per_colour: Mapping[Colour, BGRImage], view: TrayView) -> LinedUp:
    """The set with every picture that shows the tray elsewhere than the last colour picture
    (white) warped onto it; moves are measured against `empty` in `view`."""
    empty_grey = grey(view.warp(empty))
    empty_small = shrunk(empty_grey)
    side = SIDE_GUESS * max(view.width, view.height)
    # For each picture, the homography taking its pixels to the empty tray's picture's.
    to_empty: dict[str, Homography] = {"empty": np.eye(3)}
    for colour in COLOURS:
        lined_up = lined_up_view(view.warp(per_colour[colour]), empty_grey, empty_small, view, side)
        # A picture pixel p of a moved picture shows the floor point that the empty tray's
        # picture shows at (the empty's warp)^-1 (the moved view's warp) p.
        to_empty[colour.value] = np.asarray(
            np.eye(3) if lined_up is None else np.linalg.inv(view.homography) @ lined_up.homography,
            np.float64,
        )
    to_last: Homography = np.asarray(np.linalg.inv(to_empty[COLOURS[-1].value]), np.float64)
    height, width = empty.shape[:2]
    pictures = {"empty": empty, **{colour.value: per_colour[colour] for colour in COLOURS}}
    moved: list[str] = []
    for name, picture in pictures.items():
        onto_last = to_last @ to_empty[name]
        # Two measures of one move differ a little: within the least move measured they are
        # the same, and the picture is left as it was taken.
        if _corner_move(view, onto_last) < MIN_MOVE_CUBES * side:
            continue
        pictures[name] = np.asarray(
            cv2.warpPerspective(
                picture, onto_last, (width, height), borderMode=cv2.BORDER_REPLICATE
            ),
            np.uint8,
        )
        moved.append(name)
    return LinedUp(
        empty=pictures["empty"],
        per_colour={colour: pictures[colour.value] for colour in COLOURS},
        moved=tuple(moved),
        from_empty=to_last,
    )


def _corner_move(view: TrayView, homography: Homography) -> float:
    """How far a homography of the picture moves the view's corners, at most (view pixels)."""
    in_view = view.homography @ homography @ np.linalg.inv(view.homography)
    corners = np.array(
        [[0, 0], [view.width, 0], [view.width, view.height], [0, view.height]], np.float64
    ).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(corners, in_view)
    return float(np.abs(moved - corners).max())


__all__ = ["SIDE_GUESS", "LinedUp", "lined_up_set"]

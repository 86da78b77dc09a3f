"""Line the tray up again when the camera (or the tray) has moved since calibration.

A knock on the camera's stand, or a player pushing the tray while taking cubes out, moves the
tray a few millimetres in the picture. Every pixel then differs from the empty tray along the
print's and the rim's edges, and counting against the calibrated outline invents and misses
cubes. `lined_up_view` measures the move by lining the picture's top-down view up with the empty
tray's (OpenCV's ECC image alignment, rotation and shift), and gives the view that undoes it.

The tray's floor is flat, so a rotation and shift of the view undo a small move of the camera
across it; the walls and rim stand up from the floor and still show the move a little
(parallax), which is why a moved reading is never confident: calibrating again is the cure.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.corners import Corners
from companion.vision.images import BGRImage
from companion.vision.segment import correlation
from companion.vision.tray_view import TrayView

# The move is first measured on views shrunk this much (1-3 ms on one core), then refined
# on the full view only when there is a move. Shrunk further (2.5 pixels a cube), ECC lost
# some moves and took dozens of cubes for one.
COARSE = 0.5
# A move counts when the tray's corners moved at least this share of a cube's side, and
# lining the view up made it look more like the empty tray by MIN_GAIN (correlation of the
# shrunk grey views, 0..1). The gain is what tells: measured on rendered pictures (benchmark
# conditions, 288 unmoved, 48 with the camera knocked 4-12 mm and turned 1-3 degrees), the
# estimate on unmoved ones wandered up to 0.46 cube under dozens of cubes (a hand drew it 10
# cubes off) but gained at most 0.018; knocked ones moved 0.48-1.37 cubes and gained 0.078-0.80.
MIN_MOVE_CUBES = 0.4
MIN_GAIN = 0.05
# A knock moves the tray's centre at most this many cube sides and turns it at most this many
# degrees (knocked cameras above: up to 1.5 cubes and 4.2 degrees). Beyond, ECC has lined the
# empty tray up with something else (a picture of papers on the table, lined up to 1.3-7
# cubes and 0.4-40 degrees): that is a new set-up, for the checks that follow to refuse.
MAX_SHIFT_CUBES = 2.0
MAX_TURN_DEGREES = 5.0
# The guess ECC starts from is looked for up to this share of the view's width and height
# away (about 2.5 cubes, beyond the largest knock).
GUESS_REACH = 0.12
# At most this many iterations at each size, or until the update is this small (pixels).
ITERATIONS = 30
EPSILON = 1e-3

GreyImage = NDArray[np.float32]


def grey(view: BGRImage) -> GreyImage:
    """A top-down view in grey, as ECC takes it."""
    return np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), np.float32)


def shrunk(grey_view: GreyImage) -> GreyImage:
    """A grey view shrunk to the size the move is first measured at."""
    small = cv2.resize(grey_view, None, fx=COARSE, fy=COARSE, interpolation=cv2.INTER_AREA)
    return np.asarray(small, np.float32)


def lined_up_view(
    view: BGRImage,
    empty_grey: GreyImage,
    empty_small: GreyImage,
    tray_view: TrayView,
    cube_side: float,
) -> TrayView | None:
    """The view that lines the tray up again when it moved since calibration; None when it
    has not moved (or the move cannot be measured: the checks that follow then judge the
    picture as it is).

    `view` is the picture warped by `tray_view` (the calibrated outline); `empty_grey` the
    empty tray seen the same way, in `grey`, and `empty_small` that `shrunk`.
    """
    current_grey = grey(view)
    current_small = shrunk(current_grey)
    found = _coarse_move(empty_small, current_small)
    if found is None:
        return None
    coarse, fit = found
    height, width = empty_small.shape
    if _corner_move(coarse, width, height) / COARSE < MIN_MOVE_CUBES * cube_side:
        return None
    if not _a_knock(coarse, width, height, cube_side * COARSE):
        return None
    if fit - correlation(empty_small, current_small, 1) < MIN_GAIN:
        return None
    # Refine on the full view, from the coarse estimate (its shift scaled up).
    start = coarse.copy()
    start[:, 2] /= COARSE
    fine = _align(empty_grey, current_grey, start)
    warp = start if fine is None else fine
    return _lined_up(tray_view, warp)


def _align(
    template: GreyImage, current: GreyImage, start: NDArray[np.float32]
) -> NDArray[np.float32] | None:
    """The rotation and shift (2 x 3) taking template pixels to where they are in `current`,
    or None when ECC does not converge."""
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ITERATIONS, EPSILON)
    try:
        # ECC smooths both views first (its default 5-pixel Gaussian, which measured better
        # than 3: a wider reach to where the rim's edges now lie).
        _, warp = cv2.findTransformECC(
            template, current, start.copy(), cv2.MOTION_EUCLIDEAN, criteria, None
        )
    except cv2.error:
        # ECC gives up with an exception on a picture with no structure left to align
        # (a black or washed-out frame) or when its iterations diverge.
        return None
    result: NDArray[np.float32] = np.asarray(warp, np.float32)
    return result


def _coarse_move(
    template: GreyImage, current: GreyImage
) -> tuple[NDArray[np.float32], float] | None:
    """The rotation and shift (2 x 3) that line the shrunk `current` up with `template` best,
    and how well they then correlate (-1..1); None when ECC converges from neither start.

    ECC finds the nearest fit it can reach. On rows of dots (rendered, warm light), a camera
    knock that moved the tray's corners by 0.9 of a cube left it, started from no move, at a
    correlation of 0.26 with the empty tray (0.22 before), and in others at a wrong turn and
    shift that still gained enough to pass. So it also starts from where the whole `template`
    matches `current` best (normalised cross-correlation, under 3 ms): 0.72 there. The better
    fit wins.
    """
    height, width = template.shape
    top, left = int(GUESS_REACH * height), int(GUESS_REACH * width)
    # The whole template, walls and rim included: they tell a striped or dotted print's
    # repeats apart. The current view is padded by its edges to give it room to shift in.
    room = cv2.copyMakeBorder(current, top, top, left, left, cv2.BORDER_REPLICATE)
    scores = cv2.matchTemplate(room, template, cv2.TM_CCOEFF_NORMED)
    _, _, _, (x, y) = cv2.minMaxLoc(scores)
    guess = np.array([[1.0, 0.0, x - left], [0.0, 1.0, y - top]], np.float32)
    best: tuple[NDArray[np.float32], float] | None = None
    for start in (np.eye(2, 3, dtype=np.float32), guess):
        warp = _align(template, current, start)
        if warp is None:
            continue
        fit = correlation(template, _undone(current, warp), 1)
        if best is None or fit > best[1]:
            best = (warp, fit)
    return best


def _corner_move(warp: NDArray[np.float32], width: int, height: int) -> float:
    """How far the warp moves the view's corners, at most (pixels)."""
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    moved = cv2.transform(corners.reshape(-1, 1, 2), warp).reshape(-1, 2)
    return float(np.abs(moved - corners).max())


def _a_knock(warp: NDArray[np.float32], width: int, height: int, cube_side: float) -> bool:
    """Whether the warp is as small as a knock: the view's centre shifted and turned little."""
    centre = np.array([[[width / 2.0, height / 2.0]]], np.float32)
    shift = float(np.linalg.norm(cv2.transform(centre, warp) - centre))
    turn = float(np.degrees(np.arctan2(warp[1, 0], warp[0, 0])))
    return shift <= MAX_SHIFT_CUBES * cube_side and abs(turn) <= MAX_TURN_DEGREES


def _undone(current: GreyImage, warp: NDArray[np.float32]) -> GreyImage:
    """`current` with the move taken back out, so it lines up with the template."""
    height, width = current.shape
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    lined = cv2.warpAffine(
        current, warp, (width, height), flags=flags, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(lined, np.float32)


def _lined_up(tray_view: TrayView, warp: NDArray[np.float32]) -> TrayView:
    """The view whose outline follows the move: view pixel x of the empty tray now shows at
    `warp` x of the calibrated view, so the outline's corners go there, back in the picture."""
    outline = tray_view.outline.reshape(-1, 1, 2)
    moved = cv2.transform(outline, warp.astype(np.float64))
    back = cv2.perspectiveTransform(moved, np.linalg.inv(tray_view.homography)).reshape(4, 2)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = back.tolist()
    corners: Corners = ((x0, y0), (x1, y1), (x2, y2), (x3, y3))
    return TrayView(corners, tray_view.width, tray_view.height)


__all__ = ["grey", "lined_up_view", "shrunk"]

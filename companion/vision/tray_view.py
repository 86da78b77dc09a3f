"""The top-down view of the tray: the perspective warp from the picture to it, and back.

The view shows the floor's outline that tray finding gives as an axis-aligned rectangle,
inside VIEW_MARGIN, where cubes against the wall and any shortfall of the outline are seen;
counting, the profile and the realignment of later pictures all work in it. `view_for`
sizes a view for a scale; each view works out once how it samples the picture (OpenCV's
fixed-point remap tables), so that every warp of it gives exactly what warpPerspective gives,
in less time.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.corners import Corners

# The view's margin around the floor outline, as a share of the view's width and height: cubes
# against the wall lean over it, and the outline is not always exact: in the benchmark
# (benchmarks/tray_finding.py) 75-90% of set-ups come within 2% of the tray's size and 90-100%
# within 5%, but a few still miss by 5-9% (a wall, or the rim's shadow, taken for the floor).
VIEW_MARGIN = 0.08


@dataclass(frozen=True)
class TrayView:
    """The perspective warp between the input picture and a top-down view of the tray.

    The view is `width` x `height` pixels and includes a margin of VIEW_MARGIN around the tray.
    """

    corners: Corners
    width: int
    height: int

    @property
    def outline(self) -> NDArray[np.float64]:
        """Where the tray's corners lie in the view (4 x 2 view pixels, in `corners`' order)."""
        mx, my = VIEW_MARGIN * self.width, VIEW_MARGIN * self.height
        right, bottom = self.width - 1 - mx, self.height - 1 - my
        return np.array([[mx, my], [right, my], [right, bottom], [mx, bottom]], np.float64)

    @property
    def homography(self) -> NDArray[np.float64]:
        """Maps input-picture pixels to view pixels."""
        matrix: NDArray[np.float64] = np.asarray(
            cv2.getPerspectiveTransform(
                np.array(self.corners, np.float32), self.outline.astype(np.float32)
            ),
            np.float64,
        )
        return matrix

    def warp(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The input picture seen from straight above, cropped to the tray plus its margin."""
        factor, first, second = _sampling(self)
        source = image
        if factor < 1.0:
            # Up to where the view samples: OpenCV's area shrink of a whole 800x600 picture
            # took 4.4-5.9 ms. The part keeps the picture's top left corner, so each shrunk
            # pixel averages the same picture pixels as before and the view is the same.
            # (Cutting the left and top too, even where the shrunk pixels lined up within a
            # few hundredths of a pixel, moved views by up to 5 levels and flipped readings.)
            right, bottom = _sampled_reach(self, factor)
            source = np.asarray(
                cv2.resize(
                    image[:bottom, :right], None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA
                ),
                np.uint8,
            )
        warped: NDArray[np.uint8] = np.asarray(
            cv2.remap(source, first, second, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
            np.uint8,
        )
        return warped

    def to_picture(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """View pixels (N x 2) mapped back to input-picture pixels (N x 2)."""
        if len(points) == 0:
            return np.zeros((0, 2), np.float64)
        inverse = np.linalg.inv(self.homography)
        mapped = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), inverse)
        result: NDArray[np.float64] = np.asarray(mapped, np.float64).reshape(-1, 2)
        return result

    def seen(self, picture_width: int, picture_height: int) -> NDArray[np.bool_]:
        """True where a view pixel comes from inside a picture of this size (the rest is the
        picture's border stretched out by the warp, and shows nothing of the tray)."""
        whole = np.full((picture_height, picture_width), 255, np.uint8)
        warped = cv2.warpPerspective(
            whole,
            self.homography,
            (self.width, self.height),
            flags=cv2.INTER_NEAREST,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
        # One pixel in from the border: the warp's bilinear sampling blends it with the edge.
        inside: NDArray[np.bool_] = cv2.erode(warped, np.ones((3, 3), np.uint8)) > 0
        return inside

    def tray_mask(self) -> NDArray[np.bool_]:
        """True inside the tray outline (the margin excluded), in view pixels."""
        mx, my = int(VIEW_MARGIN * self.width), int(VIEW_MARGIN * self.height)
        mask = np.zeros((self.height, self.width), np.bool_)
        mask[my : self.height - my, mx : self.width - mx] = True
        return mask


# OpenCV's fixed-point warps place each sample in 1/INTER_TAB_SIZE steps of a pixel.
_STEPS = 32
_STEP_BITS = 5


@functools.lru_cache(maxsize=8)
def _sampling(view: TrayView) -> tuple[float, NDArray[np.int16], NDArray[np.uint16]]:
    """How `view.warp` samples a picture: the factor it is first shrunk by (1 when it is
    not), and OpenCV's fixed-point remap tables (for each view pixel, the whole pixel and
    the step within it where it lies in the shrunk picture).

    Worked out once per view, in double precision and rounded as warpPerspective rounds, so
    that remapping gives exactly what warpPerspective gives, in about 60% of its time.
    """
    matrix = view.homography
    factor = 1.0
    # Shrinking by more than 2x with bilinear sampling aliases noise; pre-shrink instead.
    native = _native_size(view.corners)
    shrink = max(native[0] / view.width, native[1] / view.height)
    if shrink > 2.0:
        factor = 1.0 / (shrink / 1.5)
        matrix = matrix @ np.diag([1.0 / factor, 1.0 / factor, 1.0])
    inverse = np.linalg.inv(matrix)
    xs = np.arange(view.width, dtype=np.float64)[None, :]
    ys = np.arange(view.height, dtype=np.float64)[:, None]
    scale = _STEPS / (inverse[2, 0] * xs + inverse[2, 1] * ys + inverse[2, 2])
    across = np.rint((inverse[0, 0] * xs + inverse[0, 1] * ys + inverse[0, 2]) * scale)
    down = np.rint((inverse[1, 0] * xs + inverse[1, 1] * ys + inverse[1, 2]) * scale)
    # (Far outside the picture only the border matters: clipped to stay within int16.)
    steps_x = np.clip(across, -(2**19), 2**19).astype(np.int32)
    steps_y = np.clip(down, -(2**19), 2**19).astype(np.int32)
    whole = np.stack([steps_x >> _STEP_BITS, steps_y >> _STEP_BITS], axis=-1).astype(np.int16)
    within = ((steps_y & (_STEPS - 1)) * _STEPS + (steps_x & (_STEPS - 1))).astype(np.uint16)
    whole.flags.writeable = within.flags.writeable = False  # shared by every warp of the view
    return factor, whole, within


@functools.lru_cache(maxsize=8)
def _sampled_reach(view: TrayView, factor: float) -> tuple[int, int]:
    """The picture column and row (exclusive) up to which `view.warp` needs the picture
    shrunk by `factor`: the view's far corners, a shrunk pixel and a blend's reach beyond."""
    w, h = view.width - 1, view.height - 1
    corners = np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]], np.float64)
    mapped = cv2.perspectiveTransform(corners, np.linalg.inv(view.homography))[:, 0, :]
    reach = 2.0 / factor + 2.0
    # (At least one pixel: a view wholly left of or above the picture repeats its corner.)
    right = max(1, math.ceil(float(mapped[:, 0].max()) + reach))
    bottom = max(1, math.ceil(float(mapped[:, 1].max()) + reach))
    return right, bottom


def _native_size(corners: Corners) -> tuple[float, float]:
    """The tray's width and height in input pixels (the longer of each pair of opposite sides)."""
    pts = np.array(corners, np.float64)
    top, bottom = np.linalg.norm(pts[1] - pts[0]), np.linalg.norm(pts[2] - pts[3])
    left, right = np.linalg.norm(pts[3] - pts[0]), np.linalg.norm(pts[2] - pts[1])
    return float(max(top, bottom)), float(max(left, right))


def view_for(corners: Corners, scale: float) -> TrayView:
    """A view of the tray at `scale` view pixels per input pixel (1.0 keeps the native size)."""
    native_w, native_h = _native_size(corners)
    full_w = native_w * scale / (1 - 2 * VIEW_MARGIN)
    full_h = native_h * scale / (1 - 2 * VIEW_MARGIN)
    return TrayView(corners=corners, width=max(32, round(full_w)), height=max(32, round(full_h)))


__all__ = ["VIEW_MARGIN", "TrayView", "view_for"]

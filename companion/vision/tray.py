"""Finding the tray in the empty picture, and the perspective warp to a top-down view of it."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import BGRImage

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
"""Four (x, y) points in picture pixels: top-left, top-right, bottom-right, bottom-left."""

# The tray fills a good part of the view from 15-30 cm; a smaller quadrilateral is something else.
_MIN_TRAY_FRACTION = 0.12
_MAX_TRAY_FRACTION = 0.97
# Cubes against the rim sit partly over the rim's inner wall; keep a margin around the tray.
VIEW_MARGIN = 0.04


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


def _quad_from_contour(contour: NDArray[np.int32]) -> NDArray[np.float32] | None:
    """A convex quadrilateral approximating the contour's hull, or None if it is not 4-sided."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for fraction in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, fraction * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
        if len(approx) < 4:
            return None
    return None


def find_tray(empty: BGRImage) -> Corners | None:
    """The tray's outline as a quadrilateral in the empty picture, or None when none is clear.

    Tries regions bounded by strong edges, then regions that differ from the picture's border
    (the table); keeps the largest convex four-sided region that fills its own outline.
    """
    height, width = empty.shape[:2]
    scale = 400.0 / max(height, width)
    small = cv2.resize(empty, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    area_total = small.shape[0] * small.shape[1]
    candidates: list[NDArray[np.uint8]] = []
    # Regions enclosed by edges: the rim is a strong edge against both table and floor.
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    edges = np.zeros(small.shape[:2], np.uint8)
    for channel in cv2.split(lab):
        edges |= cv2.Canny(channel, 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    candidates.append(np.asarray(cv2.bitwise_not(edges), np.uint8))
    # Regions unlike the table, whose colour is read from the picture's border.
    border = np.concatenate([lab[:4].reshape(-1, 3), lab[-4:].reshape(-1, 3)])
    border = np.concatenate([border, lab[:, :4].reshape(-1, 3), lab[:, -4:].reshape(-1, 3)])
    table = np.median(border.astype(np.float32), axis=0)
    distance = np.linalg.norm(lab.astype(np.float32) - table, axis=2)
    spread = float(np.median(np.linalg.norm(border.astype(np.float32) - table, axis=1)))
    unlike = (distance > max(12.0, 3.0 * spread)).astype(np.uint8) * 255
    unlike = cv2.morphologyEx(unlike, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    candidates.append(np.asarray(unlike, np.uint8))
    quads: list[tuple[float, NDArray[np.float32]]] = []
    for mask in candidates:
        contours, _ = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not _MIN_TRAY_FRACTION * area_total <= area <= _MAX_TRAY_FRACTION * area_total:
                continue
            quad = _quad_from_contour(np.asarray(contour, np.int32))
            if quad is None:
                continue
            quad_area = cv2.contourArea(quad)
            if (
                quad_area <= 0
                or area / quad_area < 0.85
                or quad_area > _MAX_TRAY_FRACTION * area_total
            ):
                continue
            quads.append((quad_area, quad))
    if not quads:
        return None
    # A tray shows nested outlines: the rim's outer edge, its inner edge, the floor. The floor
    # outline is the least reliable (walls in shadow blur it), and a cube missed outside the
    # view is the worst error: take the outermost outline.
    outer = max(quads, key=lambda q: q[0])
    return order_corners(outer[1] / scale)


@dataclass(frozen=True)
class TrayView:
    """The perspective warp between the input picture and a top-down view of the tray.

    The view is `width` x `height` pixels and includes a margin of VIEW_MARGIN around the tray.
    """

    corners: Corners
    width: int
    height: int

    @property
    def homography(self) -> NDArray[np.float64]:
        """Maps input-picture pixels to view pixels."""
        mx, my = VIEW_MARGIN * self.width, VIEW_MARGIN * self.height
        target = np.array(
            [
                [mx, my],
                [self.width - 1 - mx, my],
                [self.width - 1 - mx, self.height - 1 - my],
                [mx, self.height - 1 - my],
            ],
            np.float32,
        )
        matrix: NDArray[np.float64] = np.asarray(
            cv2.getPerspectiveTransform(np.array(self.corners, np.float32), target), np.float64
        )
        return matrix

    def warp(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The input picture seen from straight above, cropped to the tray plus its margin."""
        source = image
        matrix = self.homography
        # Shrinking by more than 2x with bilinear sampling aliases noise; pre-shrink instead.
        native = _native_size(self.corners)
        shrink = max(native[0] / self.width, native[1] / self.height)
        if shrink > 2.0:
            factor = 1.0 / (shrink / 1.5)
            source = np.asarray(
                cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA),
                np.uint8,
            )
            matrix = matrix @ np.diag([1.0 / factor, 1.0 / factor, 1.0])
        warped: NDArray[np.uint8] = np.asarray(
            cv2.warpPerspective(
                source,
                matrix,
                (self.width, self.height),
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            ),
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

    def tray_mask(self) -> NDArray[np.bool_]:
        """True inside the tray outline (the margin excluded), in view pixels."""
        mx, my = int(VIEW_MARGIN * self.width), int(VIEW_MARGIN * self.height)
        mask = np.zeros((self.height, self.width), np.bool_)
        mask[my : self.height - my, mx : self.width - mx] = True
        return mask


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

"""The floor's edge inside the rim: a second, sharper look at the tray, in top-down views.

Tray finding's first look gives the tray's outer outline. Here a top-down view of that
outline, and then of the rim's inner edge found in it, shows each side's long edges; the rim's
inner edge and the floor's edge are chosen among them by geometry (the floor is the rim's
rectangle scaled about the point below the camera) and by what lies between (one wall
material, no unexplained edge), which tells the floor/wall crease from the edge of the rim's
shadow on the floor. The edges come from side_edges and the choice from rim_and_floor; this
module holds the looks (`floor_in_view` gives the floor's corners): the outline's sides
straightened where they are off, the runners-up's rims looked through, and the chosen edges
fitted, bowed as the lens bows them, and crossed at the floor's corners.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import BGRImage
from companion.vision.overhead import nadir_in_view
from companion.vision.rim_and_floor import Found, convincing, rim_and_floor, unlike_first_look
from companion.vision.side_edges import PEAK_STEP, VIEW_BORDER, Edge, top_down_view, view_edges

# --- The floor inside the rim: a second, sharper look in a top-down view of the outer outline.
#
# The rim's inner edge and the floor's edge are the same rectangle at two heights (the inner
# walls are vertical). Seen through any camera, the picture of the lower one is the upper one
# scaled about the point straight below the camera (a planar homology whose axis, the horizon,
# goes to infinity once the rim's plane is viewed from above). So in a view that shows the rim
# as an axis-aligned rectangle, the floor is an axis-aligned rectangle of the SAME proportions,
# each side some way in from the rim's: the wall seen at a slant (nothing where the wall faces
# the camera edge-on, or is seen from behind and hides the floor's edge). A shadow the rim casts
# on the floor is the floor's rectangle shifted towards the lamp on at most two sides, so it
# keeps those proportions only by chance, and across it the floor's colour darkens in every
# channel alike; across the floor/wall crease colour and shading step independently.

# A side of the outline that is off is looked for this many view pixels in from where it was.
_OUTER_REACH = 12
# A floor edge bowed by the lens bends outward by at most this many view pixels between its
# middle and the ends of its middle 80% (a cheap webcam's barrel distortion), or inward by
# less than this (noise).
_MAX_BOW = 2.5
_MAX_INWARD_BOW = 0.5
# A side of the outline is where it should be when an edge shows within this many view pixels.
_OUTER_NEAR = 5.0


_Curve = tuple[float, float, float]
"""A side in the view: offset = a + b t + c t^2 pixels in from the view's edge, t along it."""


def _fitted_line(steps: NDArray[np.float32], edge: Edge, shift: float) -> _Curve | None:
    """The edge as a curve offset = a + b * t + c * t^2 (t: pixels along the side), fitted to
    where its step peaks on every line across the middle 80%, moved `shift` pixels inward. The
    square term takes the lens's barrel distortion, which bows a long edge outward by a pixel
    or three in the middle: a straight line through the middle would put the corners outside."""
    depth, length = steps.shape[:2]
    centre = round(edge.offset)
    lo, hi = max(1, centre - 3), min(depth - 2, centre + 4)
    if hi - lo < 3:
        return None
    along = np.arange(int(0.1 * length), int(0.9 * length))
    values = edge.sign * steps[lo - 1 : hi + 1, along, edge.channel]
    best = np.argmax(values[1:-1], axis=0) + 1
    cols = np.arange(len(along))
    before, at, after = values[best - 1, cols], values[best, cols], values[best + 1, cols]
    curve = before - 2 * at + after
    sub = np.where(curve < 0, 0.5 * (before - after) / np.where(curve < 0, curve, -1.0), 0.0)
    offsets = lo - 1 + best + sub
    usable = at >= 0.5 * edge.step
    if usable.sum() < 0.3 * len(along):
        return None
    t, y = along[usable].astype(np.float64), offsets[usable].astype(np.float64)
    for _ in range(2):
        fit = np.polyfit(t, y, 2)
        keep = np.abs(y - np.polyval(fit, t)) <= 1.5
        if keep.sum() < 10:
            break
        t, y = t[keep], y[keep]
    square, slope, intercept = (float(v) for v in np.polyfit(t, y, 2))
    # Barrel distortion only bows an edge outward (offsets smallest mid-way), by a few pixels
    # over the fitted stretch; any other bend is noise or something crossing the edge.
    bow = square * (0.4 * length) ** 2
    if not -_MAX_INWARD_BOW <= bow <= _MAX_BOW:
        slope, intercept = (float(v) for v in np.polyfit(t, y, 1))
        square = 0.0
    else:
        # The bend measured on one edge is noisy (a pixel either way): take half of it, the
        # straight line's and the curve's corners averaged.
        line_slope, line_intercept = (float(v) for v in np.polyfit(t, y, 1))
        slope, intercept, square = (
            0.5 * (slope + line_slope),
            0.5 * (intercept + line_intercept),
            0.5 * square,
        )
    return intercept + shift, slope, square


def _fitted_outer(steps: NDArray[np.float32], reach: int) -> _Curve | None:
    """The outline's own edge on one side (steps turned as `side_edges._sides_of` turns them),
    as a line offset = a + b * t: where the colour steps most within `reach` pixels of where the
    outline lies in the view (VIEW_BORDER in), on every line across the middle 80%, fitted
    robustly; the outline's side itself when `reach` is 0. None when too few lines show it."""
    if reach == 0:
        return float(VIEW_BORDER), 0.0, 0.0
    length = steps.shape[1]
    along = np.arange(int(0.1 * length), int(0.9 * length))
    start = max(0, VIEW_BORDER - reach)
    strength = np.abs(steps[start : VIEW_BORDER + reach, along]).max(axis=2)
    best = np.argmax(strength, axis=0)
    usable = strength[best, np.arange(len(along))] >= 2 * PEAK_STEP
    if usable.sum() < 0.5 * len(along):
        return None
    t, y = along[usable].astype(np.float64), (start + best[usable]).astype(np.float64)
    for _ in range(3):
        slope, intercept = np.polyfit(t, y, 1)
        keep = np.abs(y - (intercept + slope * t)) <= 1.5
        if keep.sum() < 0.3 * len(along):
            return None
        t, y = t[keep], y[keep]
    slope, intercept = np.polyfit(t, y, 1)
    return float(intercept), float(slope), 0.0


def floor_in_view(empty: BGRImage, outline: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The floor's corners (4 x 2 picture pixels) found inside `outline` (the tray's outer
    outline, picture pixels), or None when no rim and floor fit (see rim_and_floor)."""
    first = _look(empty, outline)
    if first is None:
        return None
    view_size, matrix, edges, steps, found = first
    # The coarse outline may be a few pixels off at a corner, which tilts its sides in the view
    # and smears the median steps along them. Where a side's own edge does not show near it,
    # straighten that side on the strongest edge further in and look again; the look whose
    # rim and floor explain the edges better wins.
    lost = [
        not any(abs(e.offset - VIEW_BORDER) < _OUTER_NEAR for e in edges[side]) for side in range(4)
    ]
    outer = [_fitted_outer(steps[side], _OUTER_REACH if lost[side] else 0) for side in range(4)]
    if any(lost) and all(line is not None for line in outer):
        sides = [line for line in outer if line is not None]
        width, height = view_size
        corners = np.array([_view_corner(sides, width, height, k) for k in range(4)], np.float64)
        back = cv2.perspectiveTransform(corners.reshape(1, 4, 2), np.linalg.inv(matrix))
        second = _look(empty, np.asarray(back, np.float64).reshape(4, 2))
        if second is not None and (
            found is None or (second[4] is not None and second[4].score > found.score)
        ):
            view_size, matrix, edges, steps, found = second
    if found is None:
        return None
    # Look once more through a view of the rim's inner edge just found: there the floor is
    # exactly the rim's scaled copy (in the outline's view only nearly, the outline lying at
    # other heights), so hidden sides are placed better and shadows fit worse. The runners-up's
    # rims get the same look; the look that explains its view best wins (when the chosen rim's
    # look finds nothing, a runner-up must also beat the first look, or the first look stands).
    width, height = view_size
    best_exact: _Look | None = None
    for number, rim_edges in enumerate([found.rims, *found.others]):
        chosen = None if best_exact is None else best_exact[4]
        if number > 0 and chosen is not None and convincing(chosen):
            break
        rim_sides = [_fitted_line(steps[side], rim_edges[side], 0.0) for side in range(4)]
        if not all(side is not None for side in rim_sides):
            continue
        sides = [side for side in rim_sides if side is not None]
        corners = np.array([_view_corner(sides, width, height, k) for k in range(4)], np.float64)
        back = cv2.perspectiveTransform(corners.reshape(1, 4, 2), np.linalg.inv(matrix))
        earlier: NDArray[np.float64] | None = None
        if number == 0:
            # The chosen rim's look refines the floor chosen with it; the runners-up choose.
            fills = found.offsets
            quad = np.array(
                [
                    [fills[0], fills[1]],
                    [width - 1 - fills[2], fills[1]],
                    [width - 1 - fills[2], height - 1 - fills[3]],
                    [fills[0], height - 1 - fills[3]],
                ]
            )
            mapped = cv2.perspectiveTransform(quad.reshape(1, 4, 2), np.linalg.inv(matrix))
            earlier = np.asarray(mapped, np.float64).reshape(4, 2)
        exact = _look(
            empty, np.asarray(back, np.float64).reshape(4, 2), float(VIEW_BORDER), earlier
        )
        if exact is None or exact[4] is None:
            continue
        if number > 0 and best_exact is None and exact[4].score <= found.score:
            # The chosen rim's own look found nothing: a runner-up must then explain its view
            # better than the first look explained the outline's, or the first look stands.
            continue
        if number > 0 and unlike_first_look(found, exact[4]):
            continue
        if best_exact is None or (
            best_exact[4] is not None and exact[4].score > best_exact[4].score
        ):
            best_exact = exact
    if best_exact is not None and best_exact[4] is not None:
        view_size, matrix, edges, steps, found = (*best_exact[:4], best_exact[4])
    rims, offsets, floors = found.rims, found.offsets, found.floors
    width, height = view_size
    lines: list[_Curve] = []
    for side in range(4):
        floor = floors[side]
        edge = rims[side] if floor is None else floor
        fitted = _fitted_line(steps[side], edge, offsets[side] - edge.offset)
        lines.append((offsets[side], 0.0, 0.0) if fitted is None else fitted)
    corners = np.array([_view_corner(lines, width, height, k) for k in range(4)], np.float64)
    back = cv2.perspectiveTransform(corners.reshape(1, 4, 2), np.linalg.inv(matrix))
    return np.asarray(back, np.float64).reshape(4, 2)


_Look = tuple[
    tuple[int, int],
    NDArray[np.float64],
    list[list[Edge]],
    list[NDArray[np.float32]],
    Found | None,
]
"""One look: the view's size, its homography, edges and steps per side, the choice made."""


def _look(
    empty: BGRImage,
    outline: NDArray[np.float64],
    rim_near: float | None = None,
    floor: NDArray[np.float64] | None = None,
) -> _Look | None:
    """One look through the top-down view of `outline`: the view's size, its homography, the
    edges and steps per side (see view_edges) and the rim and floor chosen (or None). With
    `floor` (4 x 2 picture pixels, round the outline from its top-left) the floor's edges are
    looked for only near its sides."""
    view, matrix = top_down_view(empty, outline)
    height, width = view.shape[:2]
    edges, colours, chromas, steps = view_edges(view)
    floor_near = None
    if floor is not None:
        seen = cv2.perspectiveTransform(floor.reshape(1, 4, 2), matrix).reshape(4, 2)
        seen = seen[np.argsort(np.arctan2(*(seen - seen.mean(axis=0)).T[::-1]))]
        seen = np.roll(seen, -int(np.argmin(seen.sum(axis=1))), axis=0)
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = seen
        floor_near = [
            0.5 * (x0 + x3),
            0.5 * (y0 + y1),
            width - 1 - 0.5 * (x1 + x2),
            height - 1 - 0.5 * (y2 + y3),
        ]
    size = (width - 1, height - 1)
    nadir = nadir_in_view(matrix, (empty.shape[1], empty.shape[0]))
    found = rim_and_floor(edges, colours, chromas, size, rim_near, floor_near, nadir)
    return (width, height), matrix, edges, steps, found


def _view_corner(lines: list[_Curve], width: int, height: int, k: int) -> list[float]:
    """Corner k (top-left, top-right, bottom-right, bottom-left) of the floor in the view, where
    its two sides cross. Sides are offset = a + b t + c t^2 in from their side's outermost pixel
    row, t running down or right as `side_edges._sides_of` turns them: left x = f(y), top
    y = f(x), right x = width - 1 - f(y), bottom y = height - 1 - f(x)."""
    vertical = lines[0] if k in (0, 3) else lines[2]
    horizontal = lines[1] if k in (0, 1) else lines[3]
    v_sign, v_base = (1.0, 0.0) if k in (0, 3) else (-1.0, float(width - 1))
    h_sign, h_base = (1.0, 0.0) if k in (0, 1) else (-1.0, float(height - 1))

    def x_at(y: float) -> float:
        a, b, c = vertical
        return v_base + v_sign * (a + b * y + c * y * y)

    def y_at(x: float) -> float:
        a, b, c = horizontal
        return h_base + h_sign * (a + b * x + c * x * x)

    # The sides cross nearly square: going back and forth between them converges in a few steps.
    x, y = x_at(h_base), h_base
    for _ in range(8):
        y = y_at(x)
        x = x_at(y)
    return [float(x), float(y)]


__all__ = ["floor_in_view"]

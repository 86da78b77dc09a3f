"""Quick forms of array steps that numpy or OpenCV make slow on a tray view.

Counting runs these on every picture, so their cost matters: numpy indexes a 3-D array by a
2-D mask element by element, reduces slowly along an axis of three, and finds nonzero pixels
slowly; OpenCV's region statistics measure every background pixel too. Each function here
gives exactly what the plain form gives. (And the square around a pixel, which many steps
look at.)
"""

from __future__ import annotations

from typing import Any, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.images import Mask

Pixel = TypeVar("Pixel", bound=np.generic)


def pixels_at(image: NDArray[Pixel], mask: Mask) -> NDArray[Pixel]:
    """The pixels of a picture of several channels where `mask` holds (N x channels), as
    `image[mask]` gives them but several times faster: numpy indexes a 3-D array by a 2-D
    mask element by element."""
    rows: NDArray[Pixel] = np.compress(mask.ravel(), image.reshape(-1, image.shape[-1]), axis=0)
    return rows


def channel_medians(pixels: NDArray[np.float32]) -> NDArray[np.float32]:
    """The median of each channel of N x C pixels (N > 0), as `np.median(pixels, axis=0)`
    gives it (the mean of the two middle values when N is even) without its overhead, which
    on a cube's hundred pixels is several times the work."""
    count = len(pixels)
    half = count // 2
    middle = [half - 1, half] if count % 2 == 0 else [half]
    columns = np.partition(pixels.T, middle, axis=1)
    if count % 2:
        odd: NDArray[np.float32] = columns[:, half]
        return odd
    # (A float32 sum halved stays float32, as np.median's mean of the two does.)
    even: NDArray[np.float32] = np.asarray((columns[:, half - 1] + columns[:, half]) / 2)
    return even


def box_around(mask: NDArray[Any], pad: int = 0) -> tuple[slice, slice] | None:
    """The smallest box (rows, columns) holding every pixel of `mask`, grown by `pad` on each
    side as far as the mask reaches; None when the mask is empty. Much of the work on a view
    only matters where something changed, and most of a tray is empty floor."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return None
    top, left = max(0, int(rows[0]) - pad), max(0, int(cols[0]) - pad)
    return slice(top, int(rows[-1]) + pad + 1), slice(left, int(cols[-1]) + pad + 1)


def square_around(x: int, y: int, half: int) -> tuple[slice, slice]:
    """The square (rows, columns) of side 2 * half + 1 around pixel (x, y), cut at the
    view's top and left (numpy cuts the other two)."""
    return (slice(max(0, y - half), y + half + 1), slice(max(0, x - half), x + half + 1))


def segment_kernel(
    dx: int, dy: int, thickness: int = 1
) -> tuple[NDArray[np.uint8], tuple[int, int]]:
    """A structuring element for morphology along (dx, dy) (pixels): the segment from its
    anchor to the anchor plus (dx, dy), `thickness` pixels wide; and that anchor (x, y).
    Eroded by it, a pixel stays where the mask holds all the way along; dilated by it
    reversed (-dx, -dy), the mask slides along the whole way."""
    # (OpenCV draws a thick line's round ends a pixel further than half its thickness.)
    margin = (thickness + 1) // 2
    kernel = np.zeros((abs(dy) + 1 + 2 * margin, abs(dx) + 1 + 2 * margin), np.uint8)
    anchor = (max(0, -dx) + margin, max(0, -dy) + margin)
    cv2.line(kernel, anchor, (anchor[0] + dx, anchor[1] + dy), 1, thickness)
    return kernel, anchor


def all_channels(test: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Per pixel of an N x 3 test, whether it holds in all three channels (as
    `np.all(test, axis=1)`, which is slow along so short an axis)."""
    result: NDArray[np.bool_] = test[:, 0] & test[:, 1] & test[:, 2]
    return result


def grown(mask: Mask, reach: float) -> Mask:
    """`mask` grown by `reach` pixels (at least one) every way."""
    size = 2 * max(1, round(reach)) + 1
    result: Mask = cv2.dilate(mask.astype(np.uint8), np.ones((size, size), np.uint8)).astype(
        np.bool_
    )
    return result


def regions(
    mask: NDArray[np.uint8], connectivity: int
) -> tuple[int, NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """What `cv2.connectedComponentsWithStats` gives (the number of labels, the labels, and
    per label its left, top, width, height and area, and its centre), measured from the
    regions' own pixels: OpenCV measures the background pixel by pixel too, which costs
    about nine times the labelling. Row 0, the background, holds only its area."""
    count, found_labels = cv2.connectedComponents(mask, connectivity=connectivity)
    labels: NDArray[np.int32] = np.asarray(found_labels, np.int32)
    stats = np.zeros((count, 5), np.int32)
    centres = np.zeros((count, 2), np.float64)
    points = cv2.findNonZero(labels)
    if points is None:
        stats[0, cv2.CC_STAT_AREA] = labels.size
        return count, labels, stats, centres
    xs, ys = points[:, 0, 0], points[:, 0, 1]
    which = labels[ys, xs]
    area = np.bincount(which, minlength=count)
    stats[:, cv2.CC_STAT_AREA] = area
    stats[0, cv2.CC_STAT_AREA] = labels.size - len(which)
    # Sorted by label (stably: each label's pixels still run in raster order), every label
    # is a run; numpy's ufunc.at would take half a microsecond a pixel.
    order = np.argsort(which, kind="stable")
    run_xs, run_ys, ranked = xs[order], ys[order], which[order]
    # (Plain arrays, not np.r_: its indexing machinery costs more than the work here.)
    first = np.empty(len(ranked), np.bool_)
    first[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(ranked)) - 1
    left = np.minimum.reduceat(run_xs, starts)
    right = np.maximum.reduceat(run_xs, starts)
    found = slice(1, None)
    stats[found, cv2.CC_STAT_LEFT] = left
    stats[found, cv2.CC_STAT_TOP] = run_ys[starts]
    stats[found, cv2.CC_STAT_WIDTH] = right - left + 1
    stats[found, cv2.CC_STAT_HEIGHT] = run_ys[ends] - run_ys[starts] + 1
    # (Sums of whole pixel positions in doubles are exact, so the centres are OpenCV's.)
    centres[found, 0] = np.bincount(which, weights=xs, minlength=count)[found] / area[found]
    centres[found, 1] = np.bincount(which, weights=ys, minlength=count)[found] / area[found]
    return count, labels, stats, centres

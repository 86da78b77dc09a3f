"""The quick array steps give exactly what the plain numpy and OpenCV forms give."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.arrays import (
    all_channels,
    box_around,
    channel_medians,
    pixels_at,
    regions,
    segment_kernel,
)


@pytest.mark.parametrize("share", [0.0, 0.002, 0.05, 0.4, 1.0])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_regions_measure_what_opencv_measures(share: float, connectivity: int) -> None:
    rng = np.random.default_rng(7)
    # Grown specks: regions of many shapes, some touching only at a corner.
    specks = (rng.random((90, 130)) < share).astype(np.uint8)
    mask = cv2.dilate(specks, np.ones((3, 3), np.uint8)) if 0.0 < share < 0.1 else specks
    n, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=connectivity)
    count, ours, our_stats, our_centres = regions(mask, connectivity)
    assert count == n
    assert np.array_equal(ours, labels)
    assert np.array_equal(our_stats[1:], stats[1:])
    assert our_stats[0, cv2.CC_STAT_AREA] == stats[0, cv2.CC_STAT_AREA]
    assert np.array_equal(our_centres[1:], centres[1:])


def test_pixels_under_a_mask_come_in_numpys_order() -> None:
    rng = np.random.default_rng(3)
    image = rng.random((40, 50, 3)).astype(np.float32)
    mask = rng.random((40, 50)) < 0.3
    assert np.array_equal(pixels_at(image, mask), image[mask])
    # A strided view (every other row) is taken as it is.
    assert np.array_equal(pixels_at(image[::2], mask[::2]), image[::2][mask[::2]])
    assert np.array_equal(all_channels(image[mask] > 0.5), np.all(image[mask] > 0.5, axis=1))


def test_the_box_around_a_mask_is_grown_within_it() -> None:
    mask = np.zeros((30, 40), np.bool_)
    assert box_around(mask) is None
    mask[5, 7] = mask[12, 30] = True
    assert box_around(mask) == (slice(5, 13), slice(7, 31))
    rows, cols = box_around(mask, pad=10) or (slice(0), slice(0))
    assert (rows.start, cols.start) == (0, 0)
    assert mask[rows, cols].sum() == 2
    assert mask[rows, cols].shape == (23, 40)


@pytest.mark.parametrize("count", [1, 2, 7, 100, 101])
def test_channel_medians_are_numpys(count: int) -> None:
    rng = np.random.default_rng(count)
    pixels = (rng.random((count, 3)) * 100.0 - 50.0).astype(np.float32)
    pixels[: count // 3] = np.round(pixels[: count // 3])  # ties, as 8-bit levels give
    expected = np.median(pixels, axis=0)
    result = channel_medians(pixels)
    assert result.dtype == expected.dtype
    assert np.array_equal(result, expected)


@pytest.mark.parametrize(("dx", "dy"), [(7, 0), (-5, 3), (4, -9), (0, 0)])
def test_a_segment_kernel_slides_a_mask_along_it_and_erodes_what_does_not_hold_the_way(
    dx: int, dy: int
) -> None:
    spot = np.zeros((40, 40), np.uint8)
    spot[20, 20] = 1
    # Dilated by the segment reversed, one pixel becomes the segment from it along (dx, dy).
    kernel, anchor = segment_kernel(-dx, -dy)
    slid = cv2.dilate(spot, kernel, anchor=anchor)
    ys, xs = np.nonzero(slid)
    assert (xs.min(), xs.max()) == (min(20, 20 + dx), max(20, 20 + dx))
    assert (ys.min(), ys.max()) == (min(20, 20 + dy), max(20, 20 + dy))
    # Eroded by the segment itself, the slid mask keeps only the pixel it started from.
    way, start = segment_kernel(dx, dy)
    kept = cv2.erode(slid, way, anchor=start, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    assert list(zip(*np.nonzero(kept), strict=True)) == [(20, 20)]
    # Drawn thick, it reaches round both ends.
    thick, start = segment_kernel(dx, dy, 5)
    assert thick[start[1], start[0] - 2] == 1
    assert thick[start[1] + dy, start[0] + dx + 2] == 1

"""Finding the tray in the empty picture: `find_tray`, and its first look for the outline.

`find_tray` returns the outline of the tray's floor (where the floor meets the inner walls), not
the rim's outer edge: the floor is the plane the cubes lie on, so the warp to a top-down view
(tray_view) is exact for it (the rim is 10-25 mm higher and would be warped with a parallax
error that depends on the tilt), and its size in the view stands for the cube size. The floor's
outline is the one whose error hurts most when it falls inside the floor (a cube against the
wall left out), so the view keeps tray_view.VIEW_MARGIN around it, where the walls and any
shortfall are seen.

The outline is found in two stages. This module holds the first: long straight edges (a Hough
transform) give candidate quadrilaterals and the tray's outer outline, and, should the second
stage find nothing, the innermost nested outline without a shadow-like side. The second,
floor_edge.floor_in_view, looks through top-down views of that outline, and of the rim's inner
edge found in it, and tells the floor's edge from the rim's shadow on the floor by geometry (the
floor is the rim's rectangle scaled about the point below the camera) and by what lies between
(one wall material, no unexplained edge). See `rim_and_floor.rim_and_floor`.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.vision.corners import Corners, order_corners
from companion.vision.floor_edge import floor_in_view
from companion.vision.images import BGRImage

# From 15-30 cm with a 50-72 degree lens the floor fills at least ~5% of the picture; a smaller
# quadrilateral is something else.
_MIN_TRAY_FRACTION = 0.04
_MAX_TRAY_FRACTION = 0.97


# The finder works on a copy whose longer side is this many pixels: corners come out within
# about 1% of the tray's size, and thousands of candidate outlines are scored in milliseconds.
_WORK_SIDE = 480.0
# A side is supported where the colour steps across it by at least this much (Lab units per
# pixel after smoothing): a rim against a table, a wall against the floor; not JPEG noise.
_EDGE_STEP = 1.5
# Every side of a convincing outline shows such a step, of one sign, along this share of it.
_MIN_SUPPORT = 0.96
# A pixel's colour change points square to its edge within a few degrees (3x3 gradients on a
# smoothed picture): it votes for lines within this many degrees of that direction.
_VOTE_SPREAD_DEG = 5
# Line directions are told apart to 1 / this many degrees: over a 500-pixel side, half a
# degree moves an end by 4 pixels, past the edge search's reach.
_BINS_PER_DEG = 2
# Hough lines kept as side candidates, strongest first, after near-duplicates are dropped
# (the tray shows a dozen or so; fewer than ~40 starts to lose a side in busy pictures).
_MAX_LINES = 45
# Of lines within a few degrees of one direction only this many are kept: a tray shows a
# handful (rim outside and inside, the wall's foot, a shadow's edge), while a striped print
# shows dozens that would crowd the rim's own sides out of the candidates.
_MAX_PARALLEL = 14
_PARALLEL_DEG = 3.0
# Opposite sides of a tray seen up to ~20 degrees off vertical differ in direction by less.
_MAX_OPPOSITE_ANGLE = float(np.deg2rad(25.0))
# Corners of a rectangle seen that obliquely stay above this angle.
_MIN_CORNER_ANGLE = float(np.deg2rad(55.0))
# Edges may bow by a pixel or two (lens distortion): look this far either side of a line.
_SEARCH_PX = 2
# From the rim's outer edge in to the floor the outline keeps at least this share of its area
# (walls 2-4 mm thick, rims up to ~25 mm high seen at a slant, around a floor of 85 mm or more).
_MIN_INNER_SHARE = 0.35
# A shadow's edge: outside it, 4-6 work pixels away, the same chromaticity (within this much of
# channel / sum) as inside, and at most this share of the brightness.
_SHADOW_STRIP_PX = 4
_SHADOW_CHROMA = 0.02
_SHADOW_DARKER = 0.85
# An outline nested in another keeps at most this share of its area (else it is the same one).
_NESTED = 0.97


def _work_copy(empty: BGRImage) -> tuple[NDArray[np.float32], NDArray[np.float32], float]:
    """The picture shrunk to _WORK_SIDE and smoothed, as BGR (float, 0-255) and as Lab (float:
    L 0-100), and the scale used (work pixels per picture pixel)."""
    height, width = empty.shape[:2]
    scale = min(1.0, _WORK_SIDE / max(height, width))
    small = cv2.resize(empty, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 1.0)
    bgr = small.astype(np.float32)
    lab = cv2.cvtColor(bgr / 255.0, cv2.COLOR_BGR2Lab)
    return bgr, np.asarray(lab, np.float32), scale


def _gradients(lab: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Horizontal and vertical colour change per Lab channel (3 x H x W, Lab units per pixel)."""
    channels = cv2.split(lab)
    gx = np.stack([cv2.Sobel(c, cv2.CV_32F, 1, 0, ksize=3) / 8.0 for c in channels])
    gy = np.stack([cv2.Sobel(c, cv2.CV_32F, 0, 1, ksize=3) / 8.0 for c in channels])
    return gx, gy


def _hough_lines(
    lab: NDArray[np.float32],
    gx: NDArray[np.float32],
    gy: NDArray[np.float32],
    bowed: bool,
) -> list[tuple[float, float]]:
    """Long straight edges as (theta, rho) with cos(theta) x + sin(theta) y = rho, theta in
    [0, pi), strongest first, without near-duplicates; with `bowed`, a line's votes are
    counted over three neighbouring distances (see `find_tray`).

    Each edge pixel votes only for lines within _VOTE_SPREAD_DEG degrees of square to its own colour change
    (in its strongest channel), and with that change's sign, so that texture (wood grain, dots,
    checks) crossing a line at other angles or with alternating sign does not add up to one.
    """
    height, width = lab.shape[:2]
    edges = np.zeros((height, width), np.uint8)
    # Lightness 0-100 and the colour axes (about -60..60 here) spread over the 8-bit range.
    for channel, gain, offset in zip(
        cv2.split(lab), (2.55, 2.0, 2.0), (0.0, 128.0, 128.0), strict=True
    ):
        as_u8 = np.clip(channel * gain + offset, 0, 255).astype(np.uint8)
        edges |= cv2.Canny(as_u8, 20, 50)
    ys, xs = np.nonzero(edges)
    if len(xs) == 0:
        return []
    magnitude = np.hypot(gx[:, ys, xs], gy[:, ys, xs])
    strongest = np.argmax(magnitude, axis=0)
    pick = np.arange(len(xs))
    angle = np.arctan2(gy[strongest, ys, xs][pick], gx[strongest, ys, xs][pick])
    diagonal = int(np.ceil(np.hypot(height, width)))
    bins = 360 * _BINS_PER_DEG
    width_rho = 2 * diagonal + 1
    base = np.rint(np.degrees(angle) * _BINS_PER_DEG).astype(np.int64)
    reach = _VOTE_SPREAD_DEG * _BINS_PER_DEG
    # Single precision is ample for rho to the pixel, and twice as fast.
    cosines = np.cos(np.radians(np.arange(bins) / _BINS_PER_DEG)).astype(np.float32)
    sines = np.sin(np.radians(np.arange(bins) / _BINS_PER_DEG)).astype(np.float32)
    xs_f, ys_f = xs.astype(np.float32), ys.astype(np.float32)
    cells = []
    for spread in range(-reach, reach + 1):
        theta_bin = np.mod(base + spread, bins)
        rho = np.rint(xs_f * cosines[theta_bin] + ys_f * sines[theta_bin]).astype(np.int64)
        cells.append(theta_bin * width_rho + rho + diagonal)
    # One bincount over all votes: far faster than accumulating them one by one.
    accumulator = np.bincount(np.concatenate(cells), minlength=bins * width_rho)
    accumulator = accumulator.reshape(bins, width_rho).astype(np.int32)
    if bowed:
        # A line's votes from three neighbouring distances: a side bowed by the lens, or
        # lying between two distance steps, spreads its votes over them.
        accumulator[:, 1:-1] += accumulator[:, :-2] + accumulator[:, 2:]
    votes_needed = max(20, int(0.15 * min(height, width)))
    # Peaks: the strongest cell in its neighbourhood (the vote spread x 11 pixels).
    dilated = cv2.dilate(accumulator.astype(np.float32), np.ones((2 * reach + 1, 5), np.uint8))
    peak_t, peak_r = np.nonzero((accumulator >= votes_needed) & (accumulator >= dilated))
    strength = accumulator[peak_t, peak_r]
    kept: list[tuple[float, float]] = []
    for index in np.argsort(-strength, kind="stable"):
        theta = float(np.radians(peak_t[index] / _BINS_PER_DEG))
        rho = float(peak_r[index] - diagonal)
        if theta >= np.pi:
            theta, rho = theta - np.pi, -rho
        if any(_same_line((theta, rho), line) for line in kept):
            continue
        if sum(_parallel(theta, line[0]) for line in kept) >= _MAX_PARALLEL:
            continue
        kept.append((theta, rho))
        if len(kept) == _MAX_LINES:
            break
    return kept


def _parallel(a: float, b: float) -> bool:
    """True for two line directions (radians, 0..pi) within _PARALLEL_DEG of each other."""
    apart = abs(a - b) % np.pi
    return bool(min(apart, np.pi - apart) <= np.radians(_PARALLEL_DEG))


def _same_line(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """True for two (theta, rho) lines within 2 degrees and 2.5 pixels of each other."""
    (ta, ra), (tb, rb) = a, b
    if abs(ta - tb) > np.pi / 2:
        # theta wraps at pi, where rho changes sign.
        tb, rb = (tb - np.pi, -rb) if tb > ta else (tb + np.pi, -rb)
    return bool(abs(ta - tb) < np.deg2rad(2.0) and abs(ra - rb) < 2.5)


def _support_tables(
    lab: NDArray[np.float32],
    gx: NDArray[np.float32],
    gy: NDArray[np.float32],
    lines: list[tuple[float, float]],
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Per line, running counts of where an edge of each sign in each Lab channel crosses it.

    Returns an array (lines, 6, S + 1) and each line's start T0 (pixels along it from its foot
    point, where it enters the picture's span): for channel c and sign s at index 2c + s,
    entry k counts the supported points from T0 up to T0 + k - 1. S, the picture's diagonal,
    covers every visible part of every line.
    """
    height, width = lab.shape[:2]
    span = int(np.ceil(np.hypot(height, width))) + 3
    tables = np.zeros((len(lines), 6, span + 1), np.float64)
    if not lines:
        return tables, np.zeros(0, np.int64)
    # All lines at once: (lines x points along them), sampled on _SEARCH_PX shifts either side.
    thetas = np.array([theta for theta, _ in lines], np.float64)[:, None]
    rhos = np.array([rho for _, rho in lines], np.float64)[:, None]
    nx, ny = np.cos(thetas), np.sin(thetas)
    # Along a line, t = -x sin(theta) + y cos(theta): it sees the picture between the least and
    # the greatest t of the picture's corners.
    corner_x = np.array([0.0, width - 1.0, width - 1.0, 0.0])[None, :]
    corner_y = np.array([0.0, 0.0, height - 1.0, height - 1.0])[None, :]
    starts = np.floor((-corner_x * ny + corner_y * nx).min(axis=1)).astype(np.int64) - 1
    steps = starts[:, None].astype(np.float64) + np.arange(span, dtype=np.float64)[None, :]
    best_pos = np.full((3, len(lines), span), -np.inf, np.float32)
    best_neg = np.full((3, len(lines), span), np.inf, np.float32)
    inside_any = np.zeros((len(lines), span), np.bool_)
    for shift in range(-_SEARCH_PX, _SEARCH_PX + 1):
        xs = np.rint((rhos + shift) * nx - steps * ny).astype(np.int64)
        ys = np.rint((rhos + shift) * ny + steps * nx).astype(np.int64)
        inside = (xs >= 1) & (xs < width - 1) & (ys >= 1) & (ys < height - 1)
        inside_any |= inside
        xs_c, ys_c = np.clip(xs, 0, width - 1), np.clip(ys, 0, height - 1)
        across = gx[:, ys_c, xs_c] * nx.astype(np.float32) + gy[:, ys_c, xs_c] * ny.astype(
            np.float32
        )
        across = np.where(inside, across, np.float32(0.0))
        np.maximum(best_pos, across, out=best_pos)
        np.minimum(best_neg, across, out=best_neg)
    for channel in range(3):
        pos = (best_pos[channel] >= _EDGE_STEP) & inside_any
        neg = (best_neg[channel] <= -_EDGE_STEP) & inside_any
        tables[:, 2 * channel, 1:] = np.cumsum(pos, axis=1)
        tables[:, 2 * channel + 1, 1:] = np.cumsum(neg, axis=1)
    return tables, starts


def _intersections(
    a: NDArray[np.float64], b: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Where lines a and b (arrays of (theta, rho), N x 2) cross: x and y arrays (N)."""
    ca, sa, cb, sb = np.cos(a[:, 0]), np.sin(a[:, 0]), np.cos(b[:, 0]), np.sin(b[:, 0])
    det = ca * sb - sa * cb
    det = np.where(np.abs(det) < 1e-9, 1e-9, det)
    x = (a[:, 1] * sb - b[:, 1] * sa) / det
    y = (ca * b[:, 1] - cb * a[:, 1]) / det
    return x, y


def _crossing_params(lines: NDArray[np.float64]) -> NDArray[np.float64]:
    """T[i, k]: where line k crosses line i, as the distance along line i from its foot point
    (pixels); NaN where the two meet at less than 30 degrees (they can't be neighbouring sides)."""
    theta_i, theta_k = lines[:, 0][:, None], lines[:, 0][None, :]
    rho_i, rho_k = lines[:, 1][:, None], lines[:, 1][None, :]
    sine = np.sin(theta_k - theta_i)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Solve rho_i n_i + t d_i on line k: t * (d_i . n_k) = rho_k - rho_i (n_i . n_k).
        params = (rho_k - rho_i * np.cos(theta_k - theta_i)) / sine
    params[np.abs(sine) < np.sin(np.deg2rad(30.0))] = np.nan
    return np.asarray(params, np.float64)


def _segment_support(
    tables: NDArray[np.float64],
    starts: NDArray[np.int64],
    params: NDArray[np.float64],
    min_side: float,
) -> NDArray[np.float32]:
    """S[i, k, l]: the share of line i between its crossings with lines k and l (the middle 80%,
    since corners blur into the neighbouring side) along which one Lab channel steps across it
    with one sign; 0 where that piece is shorter than `min_side` pixels or a crossing is missing.
    `tables` and `starts` are as _support_tables gives them."""
    count = len(params)
    last = tables.shape[2] - 1
    support = np.zeros((count, count, count), np.float32)
    for i in range(count):
        t_k, t_l = params[i][:, None], params[i][None, :]
        low, high = np.fmin(t_k, t_l), np.fmax(t_k, t_l)
        valid = np.isfinite(low) & np.isfinite(high) & (high - low >= min_side)
        trim = 0.1 * np.where(valid, high - low, 0.0)
        low_t = np.rint(np.where(valid, low + trim, 0.0)) - starts[i] + 1
        high_t = np.rint(np.where(valid, high - trim, 0.0)) - starts[i] + 1
        low_i = np.clip(low_t, 0, last).astype(np.int64)
        high_i = np.clip(high_t, 0, last).astype(np.int64)
        length = np.maximum(np.rint(high - trim) - np.rint(low + trim), 1.0)
        length = np.where(valid, length, 1.0)
        table = tables[i]
        best = np.max(table[:, high_i] - table[:, low_i], axis=0) / length
        support[i] = np.where(valid, best, 0.0)
    return support


def _quads(lines: NDArray[np.float64], support: NDArray[np.float32]) -> NDArray[np.int64]:
    """Every (i, k, j, l), sides in order round the outline, where lines i and j run roughly
    parallel, k and l cross both, and each side is supported along _MIN_SUPPORT of its length."""
    count = len(lines)
    direction = np.mod(lines[:, 0], np.pi)
    found: list[NDArray[np.int64]] = []
    strong = support >= _MIN_SUPPORT
    for i in range(count):
        for j in range(i + 1, count):
            diff = abs(direction[i] - direction[j])
            if min(diff, np.pi - diff) > _MAX_OPPOSITE_ANGLE:
                continue
            ends = strong[:, i, j]
            if np.count_nonzero(ends) < 2:
                # Fewer than two lines join i and j with a supported side: no outline.
                continue
            both = strong[i] & strong[j] & ends[:, None] & ends[None, :]
            ks, ls = np.nonzero(np.triu(both, 1))
            if len(ks):
                block = np.stack([np.full(len(ks), i), ks, np.full(len(ks), j), ls], axis=1)
                found.append(block.astype(np.int64))
    if not found:
        return np.zeros((0, 4), np.int64)
    return np.concatenate(found)


def _corners_of(lines: NDArray[np.float64], quads: NDArray[np.int64]) -> NDArray[np.float64]:
    """The corners (N x 4 x 2) of quadrilaterals given as line indices round the outline."""
    corners = np.zeros((len(quads), 4, 2), np.float64)
    for corner in range(4):
        x, y = _intersections(lines[quads[:, corner]], lines[quads[:, (corner + 1) % 4]])
        corners[:, corner, 0], corners[:, corner, 1] = x, y
    return corners


def _shape_ok(corners: NDArray[np.float64], min_area: float, max_area: float) -> NDArray[np.bool_]:
    """Convex, no corner sharper than _MIN_CORNER_ANGLE, area within bounds (N x 4 x 2 in)."""
    edge = np.roll(corners, -1, axis=1) - corners
    cross = (
        edge[:, :, 0] * np.roll(edge, -1, axis=1)[:, :, 1]
        - edge[:, :, 1] * np.roll(edge, -1, axis=1)[:, :, 0]
    )
    convex = np.all(cross > 0, axis=1) | np.all(cross < 0, axis=1)
    nxt = np.roll(edge, -1, axis=1)
    cos_turn = np.sum(edge * nxt, axis=2) / np.maximum(
        np.linalg.norm(edge, axis=2) * np.linalg.norm(nxt, axis=2), 1e-9
    )
    # The interior angle is pi minus the turn between consecutive sides.
    interior = np.pi - np.arccos(np.clip(cos_turn, -1.0, 1.0))
    angles_ok = np.all(interior >= _MIN_CORNER_ANGLE, axis=1)
    area = _areas(corners)
    ok: NDArray[np.bool_] = np.asarray(
        convex & angles_ok & (area >= min_area) & (area <= max_area), np.bool_
    )
    return ok


def _areas(corners: NDArray[np.float64]) -> NDArray[np.float64]:
    """Shoelace areas of quadrilaterals (N x 4 x 2), in square pixels."""
    x, y = corners[:, :, 0], corners[:, :, 1]
    return np.asarray(
        0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)),
        np.float64,
    )


def _inside(inner: NDArray[np.float64], outer: NDArray[np.float64], slack: float) -> bool:
    """True when all four corners of `inner` lie inside `outer` (or within `slack` pixels)."""
    contour = outer.reshape(-1, 1, 2).astype(np.float32)
    return all(
        cv2.pointPolygonTest(contour, (float(x), float(y)), True) >= -slack for x, y in inner
    )


def _outlines(
    lab: NDArray[np.float32],
    gradients: tuple[NDArray[np.float32], NDArray[np.float32]],
    bowed: bool,
) -> NDArray[np.float64]:
    """Every convincing outline (N x 4 x 2, corners round the outline) in the work copy (`lab`,
    and its `gradients` from `_gradients`); `bowed` as `_hough_lines` takes it."""
    height, width = lab.shape[:2]
    gx, gy = gradients
    lines = np.array(_hough_lines(lab, gx, gy, bowed), np.float64).reshape(-1, 2)
    if len(lines) < 4:
        return np.zeros((0, 4, 2), np.float64)
    tables, starts = _support_tables(lab, gx, gy, [(float(t), float(r)) for t, r in lines])
    min_side = 0.2 * min(height, width)
    support = _segment_support(tables, starts, _crossing_params(lines), min_side)
    quads = _quads(lines, support)
    if len(quads) == 0:
        return np.zeros((0, 4, 2), np.float64)
    corners = _corners_of(lines, quads)
    total = float(height * width)
    inside = np.all(
        (corners[:, :, 0] >= -1.0)
        & (corners[:, :, 0] <= width)
        & (corners[:, :, 1] >= -1.0)
        & (corners[:, :, 1] <= height),
        axis=1,
    )
    plausible = inside & _shape_ok(corners, _MIN_TRAY_FRACTION * total, _MAX_TRAY_FRACTION * total)
    result: NDArray[np.float64] = corners[plausible]
    return result


def find_tray(empty: BGRImage) -> Corners | None:
    """The tray floor's outline as a quadrilateral in the empty picture (picture pixels), or None
    when no outline is convincing.

    First a coarse look: candidate sides are long straight edges (Hough lines); an outline is
    convincing when each of its four sides shows a colour step of one sign along at least 96%
    of its length, it is convex, no corner is sharper than 55 degrees, and it fills 4-97% of
    the picture. None when no outline lies nested in the largest (a box or a sheet of paper
    shows one outline; a tray shows its rim around its floor), when the tray is cut by the
    picture's edge, or when nothing is found. Then a sharper look in a top-down view of the
    largest outline picks the rim's inner edge and the floor's edge on each side (see
    rim_and_floor.rim_and_floor): the floor is the rim's rectangle scaled about the point below
    the camera, which tells the floor/wall crease from the edge of the rim's shadow on the floor.

    When the first look finds no nested outline, or the sharper look finds no floor in it, a
    second look counts each line's votes over neighbouring distances: a side bowed by the lens
    spreads its votes, and on grained wood or a striped floor it then stood out too little (or
    a wrong side stood out instead). When neither sharper look finds a floor, the innermost
    nested outline without a shadow-like side is returned.
    """
    bgr, lab, scale = _work_copy(empty)
    gradients = _gradients(lab)
    rough: NDArray[np.float64] | None = None
    for bowed in (False, True):
        corners = _outlines(lab, gradients, bowed)
        if len(corners) == 0 or not _has_nested(corners):
            continue
        outer = corners[int(np.argmax(_areas(corners)))] / scale
        floor = floor_in_view(empty, outer)
        if floor is not None:
            return order_corners(floor.astype(np.float32))
        if rough is None:
            found = _floor_outline(corners, bgr)
            rough = None if found is None else found / scale
    if rough is None:
        return None
    return order_corners(rough.astype(np.float32))


def _has_nested(corners: NDArray[np.float64]) -> bool:
    """True when some convincing outline (N x 4 x 2) lies inside the largest (within 2 pixels)
    and keeps _MIN_INNER_SHARE to _NESTED of its area: a tray shows its rim around its floor,
    while a box, a book or a sheet of paper shows one outline only."""
    areas = _areas(corners)
    largest = int(np.argmax(areas))
    outer = corners[largest]
    share = areas / areas[largest]
    candidates = corners[(share >= _MIN_INNER_SHARE) & (share <= _NESTED)]
    if len(candidates) == 0:
        return False
    # Inside a convex outline: on the inner side of each of its sides' lines.
    edge = np.roll(outer, -1, axis=0) - outer
    turn = np.sign(
        np.sum(
            edge[:, 0] * np.roll(edge, -1, axis=0)[:, 1]
            - edge[:, 1] * np.roll(edge, -1, axis=0)[:, 0]
        )
    )
    normal = (
        turn * np.stack([-edge[:, 1], edge[:, 0]], axis=1) / np.linalg.norm(edge, axis=1)[:, None]
    )
    # distance[n, corner, side] of each candidate's corners from each side, positive inward.
    distance = np.einsum("nck,sk->ncs", candidates, normal) - np.sum(normal * outer, axis=1)
    return bool(np.any(np.all(distance >= -2.0, axis=(1, 2))))


def _floor_outline(
    corners: NDArray[np.float64], bgr: NDArray[np.float32]
) -> NDArray[np.float64] | None:
    """Of the convincing outlines (N x 4 x 2), the floor's: the innermost one nested in the
    largest that keeps _MIN_INNER_SHARE of its area and has no side that is a shadow's edge.

    None when no outline lies nested in the largest: a tray always shows its rim around its
    floor, while a box, a book or a sheet of paper shows one outline only."""
    areas = _areas(corners)
    by_area = np.argsort(-areas)
    outer = corners[by_area[0]]
    nested = [
        int(index)
        for index in by_area[1:]
        if _MIN_INNER_SHARE * areas[by_area[0]] <= areas[index] <= _NESTED * areas[by_area[0]]
        and _inside(corners[index], outer, slack=2.0)
    ]
    if not nested:
        return None
    for index in reversed(nested):
        if not any(_shadow_edge(bgr, corners[index], side) for side in range(4)):
            return np.asarray(corners[index], np.float64)
    return np.asarray(outer, np.float64)


def _shadow_edge(bgr: NDArray[np.float32], quad: NDArray[np.float64], side: int) -> bool:
    """True when outside this side of the outline lies the same colour as inside, only darker:
    the edge of the rim's shadow on the floor, not where the floor meets the wall.

    Shading scales all three channels alike, and the camera's tone curve (close to a power law)
    keeps their ratios, so the two strips' chromaticities (channel / sum) agree across a shadow.
    """
    start, end = quad[side - 1], quad[side]
    centre = quad.mean(axis=0)
    along = end - start
    normal = np.array([-along[1], along[0]]) / max(float(np.linalg.norm(along)), 1e-9)
    if float(np.dot(centre - (start + end) / 2, normal)) < 0:
        normal = -normal
    fractions = np.linspace(0.15, 0.85, 40)
    height, width = bgr.shape[:2]
    strips = []
    for sign in (1.0, -1.0):
        samples = []
        for offset in (_SHADOW_STRIP_PX, _SHADOW_STRIP_PX + 2):
            points = start + fractions[:, None] * along + sign * offset * normal
            xs = np.clip(np.rint(points[:, 0]).astype(np.int64), 0, width - 1)
            ys = np.clip(np.rint(points[:, 1]).astype(np.int64), 0, height - 1)
            samples.append(bgr[ys, xs])
        strips.append(np.median(np.concatenate(samples), axis=0))
    inner, outer = strips
    inner_sum, outer_sum = float(inner.sum()), float(outer.sum())
    if inner_sum <= 1.0 or outer_sum <= 1.0 or outer_sum > _SHADOW_DARKER * inner_sum:
        return False
    chroma_gap = float(np.abs(inner / inner_sum - outer / outer_sum).max())
    return chroma_gap < _SHADOW_CHROMA


__all__ = ["find_tray"]

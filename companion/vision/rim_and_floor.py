"""The rim's inner edge and the floor's edge, chosen among a top-down view's long edges.

On each side of the view one edge is taken for the rim's inner edge and one further in for
the floor's (or none, where the wall hides it). The four sides are chosen together, as what
best explains the view: strong edges, the rim's top one colour all round, the floor the rim's
rectangle scaled about the point below the camera (in the rim's proportions, each wall face as
wide as that point puts it), no shadow's edge, the walls one material, no edge left
unexplained between rim and floor (`rim_and_floor`). A runner-up's look is weighed against the
first look's (`unlike_first_look`) and a choice that needs no second opinion is told
(`convincing`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from companion.vision.side_edges import Edge

# The floor's width and height, over the rim's, agree to this much (corners found to a pixel
# or two in a 400-pixel view, and lens distortion bends the sides a little).
_SCALE_TOLERANCE = 0.015
# ...and in a view of the rim's own inner edge, where that relation is exact but for the lens.
_SCALE_TOLERANCE_EXACT = 0.01
# Rims of this many runners-up in the outline's view get a look through their own view too.
_RIM_ALTERNATIVES = 2
# A look that refines an earlier one takes floor edges within this many pixels of its.
_REFINE_PX = 6.0
# In that view the rim's edge lies within this many pixels of where the view puts it.
_RIM_NEAR_PX = 3.0
# The rim's top, just outside its inner edge, is one material under one light on all four
# sides: its colours differ by at most this (Lab units), and each unit counts against a choice
# _SPREAD_COST times. (At 1, path-traced C 210 took the floor's edges for the rim's, where the
# walls just inside them differ by 10.5 with the light, and three lines of its checkerboard
# print for the floor's edges; the real rim's top differs by 1.5. At 2, 40 path-traced
# set-ups keep their outlines but C 210's, found right; benchmarks/tray_finding.py finds
# 132 of 160 within 2% (131 before: 4 more found, 3 fewer, those at 2.1-2.4%) and the same
# within 5%; of benchmarks/calibration_checks.py's 99 set-ups one, an empty tray, is now
# found 4% off, a runner-up's rim winning in its own view.)
_RIM_SPREAD = 15.0
_SPREAD_COST = 2.0
# A look whose rim's sides spread by at most this (Lab units) has found the rim for sure: a
# runner-up must then find the rim's top in that colour too. (The first looks that were right
# but overturned spread 2.8 and 3.4, on two path-traced checkerboard floors; those a runner-up
# rightly overturned, 6.0 to 14.7: a path-traced set-up and two of benchmarks/tray_finding.py.)
_RIM_ONE_COLOUR = 4.5
# The floor is the rim's inner outline scaled about the point below the camera, by one less
# the walls' height over the camera's: the tray and the camera set the scale, and the first
# look through the outer outline already measures it nearly. A runner-up whose floor is
# scaled further than this from the first look's has taken a line of the print for the
# floor's edge. (Runners-up that rightly won, 480 set-ups of benchmarks/tray_finding.py and
# 28 path-traced: at most 0.067 and 0.056 off; the one that wrongly won, path-traced A 013
# on print checked in orange and green, 0.116.)
_SCALE_AGREES = 0.09
# The point below the camera is placed for a nominal lens (`overhead.NOMINAL_FOV`). The
# faces a choice sees show one share of the way from each rim edge to that point, fitted to
# them; each face off that by more than _NADIR_PX plus the share times _NADIR_SLACK of the
# view's side (where the point lies is only roughly known), and each floor edge hidden where
# a face that wide should show, costs _NADIR_COST per pixel beyond. (benchmarks/tray_finding.py within 2%: 132 -> 135 of 160,
# within 5% the same, the worst 10.4% -> 8.6%; path-traced outlines: A 006 4.2% -> under
# 1.5%, C 201 5.3% -> 2.1%, C 205 3.3% -> under 1.5%, A 011 7.4% -> 9.5%; of
# benchmarks/calibration_checks.py's 99 set-ups two more found right, an empty tray whose
# evenly lit walls passed for the rim's top and a daylit one 6% off. A cost of 1.5 took a
# line of A 009's print for the floor's edge, 5.3% off. Trays drawn through a real camera,
# tests/vision/test_tray_finding.py, were found 3.8-5.6% off without it, the far wall's top
# taken for the floor's edge; within 0.3% with it.)
_NADIR_SLACK = 0.15
_NADIR_PX = 2.0
_NADIR_COST = 0.5
# A floor edge hidden behind the rim (wall seen from behind) or too close to the rim's edge to
# be told from it lies at most this share of the view outside the rim's edge, or 8 pixels in
# (two blurred edges closer than that merge into one).
_HIDDEN_OUT = 0.04
_HIDDEN_IN_PX = 8.0
# How much a shadow-like edge, an edge skipped between the rim and the floor (a wall has none
# along its whole length) and a hidden floor edge count against a choice, in step units.
_SHADOW_COST = 0.7
_SKIPPED_COST = 0.5
_HIDDEN_COST = 1.0
# ...and each unit of chromaticity (channel over sum) by which the walls' colours disagree.
_WALL_COST = 30.0


_Choice = tuple[Edge, "Edge | None", float, NDArray[np.float32], NDArray[np.float32]]
"""One side's choice: the rim's edge, the floor's (None: hidden), the floor's gain, the rim's
colour, the wall's chromaticity between them (NaN where no wall shows)."""


def rim_and_floor(
    edges: list[list[Edge]],
    colours: list[NDArray[np.float32]],
    chromas: list[NDArray[np.float32]],
    size: tuple[int, int],
    rim_near: float | None = None,
    floor_near: list[float] | None = None,
    nadir: tuple[float, float] | None = None,
) -> Found | None:
    """The rim's inner edge and the floor's edge on each side (left, top, right, bottom) that
    best explain the view: strong edges, the rim's top one colour all round, the floor's
    rectangle in the rim's proportions, no shadow's edge, no edge left unexplained between
    rim and floor (with the choice's score in step units and up to _RIM_ALTERNATIVES
    runners-up's rims), or None when nothing fits. With `rim_near` (view pixels in from every
    side) the rim's edge is the one within _RIM_NEAR_PX of it, and the proportions must agree
    more closely (the view is then the rim's own, where the floor is exactly its scaled
    copy); with `floor_near` (per side) the floor's edges are those within _REFINE_PX of
    where an earlier look put them."""
    width, height = size
    options: list[list[_Choice]] = []
    for side in range(4):
        choices: list[_Choice] = []
        for number, rim in enumerate(edges[side]):
            if rim_near is not None:
                if abs(rim.offset - rim_near) > _RIM_NEAR_PX:
                    continue
            elif number == 0:
                # The rim's top lies outside its inner edge: some edge must show beyond it.
                continue
            # Just outside the edge, but not past the edge before it: a rim's top may be only a
            # few pixels wide, and beyond it lie the table or the outer wall.
            before = edges[side][number - 1].offset if number > 0 else 0.0
            start = round(max(before + 1.0, rim.offset - 4.0))
            stop = max(start + 1, round(rim.offset - 1.5))
            rim_colour = colours[side][start:stop].mean(axis=0)
            no_wall = np.full(3, np.nan, np.float32)
            if floor_near is None or floor_near[side] <= rim.offset + _HIDDEN_IN_PX:
                choices.append((rim, None, -_HIDDEN_COST, rim_colour, no_wall))
            for floor in edges[side]:
                if floor.offset <= rim.offset + 2:
                    continue
                if floor_near is not None and abs(floor.offset - floor_near[side]) > _REFINE_PX:
                    continue
                skipped = sum(
                    e.step for e in edges[side] if rim.offset + 2.5 < e.offset < floor.offset - 2.5
                )
                gain = floor.step * (1 - _SHADOW_COST * floor.shadow_like) - _SKIPPED_COST * skipped
                wall = no_wall
                if floor.offset - rim.offset >= 6:
                    band = chromas[side][round(rim.offset + 2) : round(floor.offset - 2)]
                    wall = np.median(band, axis=0).astype(np.float32)
                choices.append((rim, floor, gain, rim_colour, wall))
        if not choices:
            return None
        options.append(choices)
    index = np.meshgrid(*[np.arange(len(o)) for o in options], indexing="ij")
    flat = [i.ravel() for i in index]
    rim_at = [np.array([c[0].offset for c in o])[f] for o, f in zip(options, flat, strict=True)]
    floor_at = [
        np.array([np.nan if c[1] is None else c[1].offset for c in o])[f]
        for o, f in zip(options, flat, strict=True)
    ]
    score = sum(
        np.array([c[0].step + c[2] for c in o])[f] for o, f in zip(options, flat, strict=True)
    )
    rim_colours = np.stack(
        [np.stack([c[3] for c in o])[f] for o, f in zip(options, flat, strict=True)]
    )
    spread = np.abs(rim_colours - np.median(rim_colours, axis=0)[None]).max(axis=(0, 2))
    # The inner walls are one material: where two or more show, their chromaticities agree but
    # for the lamp's and the room's tints; a band that also takes in shadowed floor does not.
    walls = np.stack([np.stack([c[4] for c in o])[f] for o, f in zip(options, flat, strict=True)])
    shown = np.isfinite(walls[..., 0])
    filled = np.where(shown[..., None], walls, 0.0)
    wall_mid = filled.sum(axis=0) / np.maximum(shown.sum(axis=0), 1)[:, None]
    wall_gap = np.where(shown[..., None], np.abs(filled - wall_mid[None]), 0.0).max(axis=(0, 2))
    hidden = [np.isnan(f) for f in floor_at]
    rim_w = width - rim_at[0] - rim_at[2]
    rim_h = height - rim_at[1] - rim_at[3]
    scale_x = (width - floor_at[0] - floor_at[2]) / rim_w
    scale_y = (height - floor_at[1] - floor_at[3]) / rim_h
    x_hidden, y_hidden = hidden[0] | hidden[2], hidden[1] | hidden[3]
    # A hidden side takes its scale from the other pair of sides (at most one side per pair).
    # With one hidden in each pair nothing gives the scale: the hidden sides stay on the rim's
    # edge, off by the hidden strip (small: the camera is then above a corner of the tray).
    both = x_hidden & y_hidden
    scale = np.where(x_hidden, scale_y, np.where(y_hidden, scale_x, 0.5 * (scale_x + scale_y)))
    mismatch = np.where(x_hidden | y_hidden, 0.0, np.abs(scale_x - scale_y))
    ok = ~(hidden[0] & hidden[2]) & ~(hidden[1] & hidden[3])
    fills = [
        np.where(hidden[0], width - floor_at[2] - scale * rim_w, floor_at[0]),
        np.where(hidden[1], height - floor_at[3] - scale * rim_h, floor_at[1]),
        np.where(hidden[2], width - floor_at[0] - scale * rim_w, floor_at[2]),
        np.where(hidden[3], height - floor_at[1] - scale * rim_h, floor_at[3]),
    ]
    fills = [np.where(both & hidden[side], rim_at[side], fills[side]) for side in range(4)]
    reach = _HIDDEN_OUT * max(width, height)
    for side in range(4):
        near = (fills[side] <= rim_at[side] + _HIDDEN_IN_PX) & (fills[side] >= rim_at[side] - reach)
        ok &= ~hidden[side] | near
    fitted_w = width - fills[0] - fills[2]
    scale = np.where(both, fitted_w / rim_w, scale)
    tolerance = _SCALE_TOLERANCE if rim_near is None else _SCALE_TOLERANCE_EXACT
    ok &= (scale > 0.6) & (scale < 1.0) & (mismatch <= tolerance) & (spread <= _RIM_SPREAD)
    fit = score - _SPREAD_COST * spread - 200.0 * mismatch - _WALL_COST * wall_gap
    if nadir is not None:
        fit = fit - _NADIR_COST * _faces_off(rim_at, floor_at, hidden, size, nadir)
    total = np.where(ok, fit, -np.inf)
    if not np.isfinite(total).any():
        return None
    best = int(np.argmax(total))
    chosen = [options[side][int(flat[side][best])] for side in range(4)]
    # The runners-up with other rims, best first: a strong crease may pass for the rim's edge
    # here and be found out in the rim's own view.
    others: list[list[Edge]] = []
    seen = {tuple(round(c[0].offset, 1) for c in chosen)}
    for index in np.argsort(-total)[: 50 * (_RIM_ALTERNATIVES + 1)]:
        if not np.isfinite(total[index]) or len(others) == _RIM_ALTERNATIVES:
            break
        rims = [options[side][int(flat[side][index])][0] for side in range(4)]
        key = tuple(round(rim.offset, 1) for rim in rims)
        if key not in seen:
            seen.add(key)
            others.append(rims)
    return Found(
        [c[0] for c in chosen],
        [float(fills[side][best]) for side in range(4)],
        [c[1] for c in chosen],
        float(total[best]),
        others,
        np.median(rim_colours[:, best], axis=0).astype(np.float32),
        float(spread[best]),
        float(scale[best]),
    )


def _faces_off(
    rim_at: list[NDArray[np.float64]],
    floor_at: list[NDArray[np.float64]],
    hidden: list[NDArray[np.bool_]],
    size: tuple[int, int],
    nadir: tuple[float, float],
) -> NDArray[np.float64]:
    """Per choice: how many pixels the wall faces it sees and hides are off where the
    picture's perspective puts the point below the camera (`nadir`, view pixels; see
    _NADIR_SLACK).

    The floor is the rim's outline scaled about that point by one less the walls' height
    over the camera's: each wall's face shows that share of the way from the rim's edge to
    the point, and hides the floor's edge when the point lies beyond it."""
    width, height = size
    towards = [
        nadir[0] - rim_at[0],
        nadir[1] - rim_at[1],
        (width - rim_at[2]) - nadir[0],
        (height - rim_at[3]) - nadir[1],
    ]
    faces = [np.where(hidden[side], 0.0, floor_at[side] - rim_at[side]) for side in range(4)]
    seen = [~h for h in hidden]
    # The share the faces show, fitted to the faces seen (least squares through nought).
    product = sum(np.where(seen[k], faces[k] * towards[k], 0.0) for k in range(4))
    square = sum(np.where(seen[k], towards[k] ** 2, 0.0) for k in range(4))
    share = np.clip(product / np.maximum(square, 1e-6), 0.0, 0.5)
    off = np.zeros(len(share), np.float64)
    for side, extent in enumerate((width, height, width, height)):
        slack = _NADIR_PX + share * _NADIR_SLACK * extent
        expected = share * towards[side]
        shown = np.maximum(np.abs(faces[side] - expected) - slack, 0.0)
        behind = np.maximum(expected - _HIDDEN_IN_PX - slack, 0.0)
        off += np.where(hidden[side], behind, shown)
    return off


class Found(NamedTuple):
    """The rim and floor one look chose (see `rim_and_floor`)."""

    rims: list[Edge]
    offsets: list[float]
    """The floor's, view pixels in from each side."""
    floors: list[Edge | None]
    """None where the floor's edge is hidden."""
    score: float
    others: list[list[Edge]]
    """The runners-up's rims."""
    rim_colour: NDArray[np.float32]
    """The rim top's colour (Lab, the median of its four sides)."""
    rim_spread: float
    """How far the rim top's sides' colours spread (Lab units)."""
    scale: float
    """The floor's size over the rim's inner outline's."""


def unlike_first_look(first: Found, runner_up: Found) -> bool:
    """True when a runner-up's look found what cannot be the first look's tray: a floor
    scaled otherwise (see _SCALE_AGREES), or a rim top of another colour than the first look's
    when that showed one colour all round. The runner-up's "rim" or "floor" is then something
    inside the tray, as a line of a checkerboard print."""
    if abs(runner_up.scale - first.scale) > _SCALE_AGREES:
        return True
    if first.rim_spread > _RIM_ONE_COLOUR:
        return False
    return bool(np.abs(runner_up.rim_colour - first.rim_colour).max() > _RIM_SPREAD)


def convincing(found: Found) -> bool:
    """True when a choice needs no second opinion: every floor edge seen, none like a shadow's
    (the runners-up's rims are looked through only otherwise, to save time)."""
    return all(floor is not None and not floor.shadow_like for floor in found.floors)


__all__ = ["Found", "convincing", "rim_and_floor", "unlike_first_look"]

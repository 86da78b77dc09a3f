"""The shadows the cubes cast: peaks that are one, and cubes seen only by theirs.

Where the light throws shadows clear of the cubes (`cast_offset`), each cube darkens the
floor beside it, on the side away from the light. That shade can pass for a dark cube (tinted
by the room's light, even for a coloured one), so a peak where a found cube throws its
shadow, and that throws none itself, is shade (`without_cast_shadows`). A cube lying in shade
shows its colour as shade does (`lies_in_shade`). Shade no found cube casts (`lone_shade`)
has its caster back along the light, which the colours may have missed (`shadow_casters`).
The set-up's learned shadow (the shadow line, how shade tints the floor) is `shadow`'s; this
module is about where the cubes' own shadows fall.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour
from companion.vision.arrays import channel_medians, pixels_at, regions, square_around
from companion.vision.colours import (
    distances2,
    shade_gap,
)
from companion.vision.found import Found, cube_footprint, explained_by, squares_at
from companion.vision.images import FloatImage, Mask
from companion.vision.likelihood import cast_shadows
from companion.vision.peaks import BOX, MIN_SPACING
from companion.vision.profile import Prepared, Profile

# A shadow counts as cast (and the shade along it as no cube) when its centre lies this many
# cube sides from the cube's.
CAST_AT_LEAST = 0.4
# The dull dark colours: shade passes for them more than for the others (see
# `beside.DARK_FILL`), and a cube of one in shade is shade itself to the shadow test (see
# DARK_IMPLIED_CUBES).
SHADE_LIKE = (COLOURS.index(Colour.BLACK), COLOURS.index(Colour.BROWN))
# Shade with no caster, this share of a cube's footprint, is searched for the cube that
# casts it, this many shadow offsets back along the light; the picture there must fit a
# cube colour this well (squared Mahalanobis distance).
IMPLIED_SHADE_CUBES = 0.5
IMPLIED_STEPS = (0.5, 0.75, 1.0, 1.25)
IMPLIED_FIT_D2 = 9.0
# A black or brown cube lying in another cube's shadow is shade itself to the shadow test
# (floor darkened, hue kept), and that cube's cast zone takes its evidence away; its own
# shadow beyond still gives it away, if only a little of it is lone (DARK_IMPLIED_CUBES of
# a footprint: the other cube's cast zone takes in the rest). Its caster is then shade all
# over, so the median of all the pixels there must fit black's or brown's model this well.
# (Path-traced A and B, as found and 3 nudged passes: 17 fewer wrong passes and none more
# with 0.15; 0.1 and 0.25: 19 and 11 fewer. A fit of 6 made one more wrong.)
DARK_IMPLIED_CUBES = 0.15
DARK_CASTER_D2 = 2.0
# A peak of a colour this much darker (L) than the floor, lying this far along another
# cube's shadow offset (in offsets) and within this far across it (cube sides), is that
# cube's shadow unless the floor one offset beyond it holds this share of changed pixels
# (a box this wide, cube sides). Across: a square cube's shadow is its footprint slid along
# the offset, an L-shaped band whose darkest spot, where a peak lands, may lie anywhere on
# either arm, up to half a side (and a little) off the line through the cube's centre.
# Along: the band starts at the cube's edge, half a side or more from its centre, and most
# lights throw an offset shorter than a side (median 0.56 sides over 211 rendered set-ups),
# so the band's middle lies up to 1.5 offsets out and more. Over 13 seeds the upper bound
# 1.6 took 75 of 302 peaks with no cube under them and 3 of 13825 real cubes (2 more than
# 1.3 did, both blacks half a side from another cube; 15 more of the others).
SHADOW_DARKER = 5.0
CAST_ALONG = (0.4, 1.6)
CAST_ACROSS = 0.55
OWN_SHADOW_BOX = 0.5
OWN_SHADOW_SHARE = 0.25
# A cube throws its own shadow: a peak that could be shade whose box one offset on holds
# under NO_SHADOW_SHARE changed pixels is shade, whichever cube cast it, unless that box lies
# mostly (MOSTLY_SHADED) on floor the empty tray already shows in a wall's shade, where no
# shadow shows. (A cube's box mostly there is lit by the room alone: `on_shaded_floor`.) (Path-traced A, B and C as found and 3 nudged passes: 3 fewer wrong passes,
# none more: a blue peak by A 000's far wall, two white ones on C 204's grey and purple
# checks; 0.05 did the same. Shared renderer seeds 0 and 1: the same pictures right.)
NO_SHADOW_SHARE = 0.12
MOSTLY_SHADED = 0.5
# A peak in another cube's shadow whose own shadow would fall where a third cube lies: the
# third changes the pixels it covers, whatever the peak is. So only the floor it leaves bare
# tells, when at least BARE_LEAST of the spot is. (Path-traced A, B and C as found and 3
# nudged passes: 4 fewer wrong passes, none more; as found, C 207 drop 5's black, shade
# among five cubes whose spot a red cube half covered. Shared renderer seeds 0 and 1: the
# same pictures right.)
BARE_LEAST = 0.25
# Whether a cube lies in shade is told by its shadow this many offsets on (`lies_in_shade`):
# a peak may lie off its cube's centre, and one short offset on, the box then takes in the
# cube's own edge (A 013 drop 1: a brown cube in the wall's shade, its peak 2 view pixels
# off, the offset 1.1 sides; a third of that box changed, none of the box a quarter further
# on). Path-traced A and B, as found and 3 nudged passes, against one offset: 1.15, 3 fewer
# wrong passes; 1.25 and 1.35, 5 fewer; 1.5, 5 fewer in A and 2 more in B.
SHADE_SPOT_AT = 1.25
# A peak this far (a and b) from the floor's colour in shade is no shadow (`shade_gap`). Of
# the peaks the other tests took for cast shadows on rendered trays (7 seeds), 43 of the 63
# real cubes lie further off and 4 of the 77 shadows (tinted by the room's light).
NOT_SHADE = 20.0
# A peak whose box is filled beyond what shade can give (a shade pixel's evidence counts
# likelihood.SHADOW_WEIGHT, 0.8, at most) holds pixels no shadow makes: it is a cube. Of the
# peaks the other tests took for cast shadows on rendered trays (7 seeds), the 22 shadows
# filled 0.47-0.83 of their box, the 5 real cubes (dark ones beside another) 0.96-1.00.
NOT_CAST_FILL = 0.9
# A peak in the very colour of the floor in shade (within FLOOR_IN_SHADE_GAP of it,
# `shade_gap`) that barely fills its box (under WEAK_SHADE_FILL) is shade, whichever cube
# cast it: a turned cube's shadow reaches further across its line than CAST_ACROSS allows,
# and on print of a cube's hue (blue print in shade is a blue cube's colour) it passes for
# that cube. A cube of the print's hue fills its box: on path-traced A and B the real cubes
# so close to the floor's shade filled 0.74 of it and more, but for a brown read as green.
# Black is left out: any floor in deep shade is black's colour, so the gap tells nothing.
# (Like the cast-shadow test, it runs only where the light throws shadows clear of the
# cubes, `cast_offset`. A and B, as found and 3 nudged passes: 10 fewer wrong passes and
# none more; with black not left out, a gap of 4 or 5 read a set-up drop wrong once more.)
WEAK_SHADE_FILL = 0.6
FLOOR_IN_SHADE_GAP = 3.0
_BLACK = COLOURS.index(Colour.BLACK)


def cast_offset(profile: Profile) -> tuple[float, float] | None:
    """Where a cube's shadow lies from it (view pixels), or None when the light is too soft
    to throw it clear of the cube."""
    offset = profile.shadow.offset if profile.shadow is not None else None
    # Under soft light the shadow hugs the cube: sliding by so little would only take away
    # the evidence of dark cubes touching others.
    if offset is not None and float(np.hypot(*offset)) < CAST_AT_LEAST * profile.cube_side:
        return None
    return offset


def without_cast_shadows(
    found: list[tuple[int, int, int, float]],
    offset: tuple[float, float],
    side: float,
    picture: FloatImage,
    floor: FloatImage,
    changed: Mask,
    shaded: Mask | None = None,
) -> list[tuple[int, int, int, float]]:
    """The peaks (colour, x, y, fill) less those that are shadow: another cube's, or any that
    throws none of its own (`picture`: the view in Lab; `floor`: the empty tray in Lab;
    `changed`: what differs from the empty tray, shade included).

    A shadow is the floor darkened, and where the room's light tints it (a warm lamp's
    shadow on a wall lit by the sky) it can pass for a dark cube colour. It then lies where
    a found cube throws its shadow, and throws none itself: a real cube there darkens the
    floor one shadow offset further on, or something covers that spot (where another found
    cube covers part of it, the floor it leaves bare tells: BARE_LEAST). Where that spot is
    unchanged the peak is shade even when no found cube casts it (NO_SHADOW_SHARE; `shaded`:
    the floor the empty tray shows in a wall's shade, where no shadow shows). A colour far
    from the floor's in shade is a cube even there (a brown cube beside a red one on red
    print), and one in that very colour that barely fills its box is shade wherever it lies
    (see WEAK_SHADE_FILL).
    """
    kept: list[tuple[int, int, int, float]] = []
    for number, (colour, x, y, fill) in enumerate(found):
        gap = gap_as_shade((colour, x, y, fill), picture, floor)
        if gap is None:
            kept.append((colour, x, y, fill))
            continue
        if fill < WEAK_SHADE_FILL and gap < FLOOR_IN_SHADE_GAP and colour != _BLACK:
            continue
        cast_by_other = any(
            in_shadow_of((ox, oy), (x, y), offset, side)
            for other, (_, ox, oy, _) in enumerate(found)
            if other != number
        )
        spot = _shadow_spot(x, y, offset, side, changed.shape)
        if spot is None:
            kept.append((colour, x, y, fill))
            continue
        own = _changed_where_bare(changed, spot, found, number, side) if cast_by_other else None
        if own is None:
            own = float(changed[spot].mean())
        casts_none = own < NO_SHADOW_SHARE and (
            shaded is None or float(shaded[spot].mean()) < MOSTLY_SHADED
        )
        if not casts_none and (not cast_by_other or own >= OWN_SHADOW_SHARE):
            kept.append((colour, x, y, fill))
    return kept


def _changed_where_bare(
    changed: Mask,
    spot: tuple[slice, slice],
    found: list[tuple[int, int, int, float]],
    number: int,
    side: float,
) -> float | None:
    """The share of changed pixels in `spot` on the floor no peak of `found` but peak
    `number` covers (each the square a found cube accounts for, `found.squares_at`); None when too
    little of the spot is left bare to tell (BARE_LEAST)."""
    others = [(x, y) for other, (_, x, y, _) in enumerate(found) if other != number]
    bare = squares_at(others, changed.shape, side)[spot] == 0
    if float(bare.mean()) < BARE_LEAST:
        return None
    return float(changed[spot][bare].mean())


def _shadow_spot(
    x: float, y: float, offset: tuple[float, float], side: float, shape: tuple[int, ...]
) -> tuple[slice, slice] | None:
    """The box (OWN_SHADOW_BOX across) round the spot `offset` on from a cube at (x, y),
    where its shadow falls; None when that spot lies beyond the view."""
    height, width = shape[:2]
    sx, sy = round(x + offset[0]), round(y + offset[1])
    if not (0 <= sx < width and 0 <= sy < height):
        return None
    half = max(1, round(OWN_SHADOW_BOX * side / 2))
    return slice(max(0, sy - half), sy + half + 1), slice(max(0, sx - half), sx + half + 1)


def lies_in_shade(
    x: float, y: float, offset: tuple[float, float], side: float, changed: Mask, floor: Mask
) -> bool:
    """Whether a cube at (x, y) lies in shade, the tray wall's or another cube's: where the
    light throws its shadow (SHADE_SPOT_AT offsets on), the `floor` is unchanged (under
    OWN_SHADOW_SHARE of the box there changed, all of it floor).

    Its colour is then judged as this set-up's shade shows each colour too (`found.colour_of`,
    tinted as calibration's shadow line has it): a brown cube in the near wall's shade
    (Lab 23, 3, 6) lies nearer black's model (29, -1, 1) as it is than brown's (41, 8, 13),
    and nearer brown's than black's as shade shows brown at its lightness. A white one
    there (49, -1, -5), tinted by the room's bluer light, lies nearer green's wide model as
    it is, and nearer white's in that tinted shade than in grey shade. A black cube in that
    shade is darker than any lighter colour in the deepest shade allowed
    (`colours.DEEPEST_SHADE`), so it stays black. (Path-traced A and B as found: 34
    cubes judged so, 9 of them read as another colour, each its true one; as found and 3
    nudged passes, 17 fewer wrong passes, none more. Rendered seeds 0 and 1: the same
    pictures right.)
    """
    further = (offset[0] * SHADE_SPOT_AT, offset[1] * SHADE_SPOT_AT)
    spot = _shadow_spot(x, y, further, side, changed.shape)
    return (
        spot is not None
        and bool(floor[spot].all())
        and float(changed[spot].mean()) < OWN_SHADOW_SHARE
    )


def on_shaded_floor(prepared: Prepared, box: tuple[slice, slice]) -> bool:
    """Whether most of a cube's box lies on floor the empty tray shows in shade (a wall's,
    `Reference.shaded`): only the room lights a cube there."""
    shaded = prepared.reference.shaded
    return shaded is not None and float(shaded[box].mean()) >= MOSTLY_SHADED


def gap_as_shade(
    peak: tuple[int, int, int, float], picture: FloatImage, floor: FloatImage
) -> float | None:
    """How far the peak's colour lies from the floor's in shade (`shade_gap`), or None when
    it can be no shadow: a shadow only darkens the floor, so a peak no darker than the floor
    there is none (what the picture shows, not the colour's mean: on a floor darker than a
    black cube, a shadow darker still passes for black in that colour's wide spread); nor is
    a peak filled beyond what shade gives, or far from the floor's colour in shade."""
    _, x, y, fill = peak
    gap = shade_gap(picture[y, x], floor[y, x])
    if (
        fill >= NOT_CAST_FILL
        or float(picture[y, x, 0]) >= float(floor[y, x, 0]) - SHADOW_DARKER
        or gap >= NOT_SHADE
    ):
        return None
    return gap


def in_shadow_of(
    caster: tuple[float, float], spot: tuple[float, float], offset: tuple[float, float], side: float
) -> bool:
    """Whether `spot` lies where a cube at `caster` throws its shadow: along its shadow offset
    from it, and close across it (see CAST_ALONG)."""
    dx, dy = spot[0] - caster[0], spot[1] - caster[1]
    length2 = offset[0] ** 2 + offset[1] ** 2
    along = (dx * offset[0] + dy * offset[1]) / length2
    # (The cross product is the distance off the line times the offset's length.)
    across = abs(dx * offset[1] - dy * offset[0]) / math.sqrt(length2)
    return CAST_ALONG[0] <= along <= CAST_ALONG[1] and across <= CAST_ACROSS * side


def lone_shade(
    cubes: list[Found],
    shade: Mask,
    inside: Mask,
    side: float,
    offset: tuple[float, float] | None,
) -> Mask:
    """The shade on the floor that none of `cubes` casts: not beside any of them, nor (when
    the light throws shadows clear of the cubes) where their shadows fall."""
    covered = explained_by(cubes, inside.shape, side)
    near = cv2.dilate(covered, np.ones((3, 3), np.uint8)).astype(np.bool_)
    if offset is not None and cubes:
        near |= cast_shadows(covered.astype(np.bool_), offset)
    lone: Mask = shade & ~near & inside
    return lone


def shadow_casters(
    cubes: list[Found],
    lone: Mask,
    shade: Mask,
    lab: FloatImage,
    inside: Mask,
    side: float,
    offset: tuple[float, float],
    models: tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.bool_]],
) -> list[Found]:
    """Cubes the colours missed but whose shadows give them away.

    A cube on print of its own colour hardly changes the picture, yet it still throws its
    shadow. Shade that no found cube casts (`lone`, see `lone_shade`), a good part of a cube's
    footprint, has its caster back along the light; where the picture there fits a cube
    colour well, that is the cube (its fill is 0: it is counted, and the reading says how it
    was seen). A caster that is itself shade is a black or brown cube in another's shadow
    (see DARK_IMPLIED_CUBES). `shade` is all the shade in the view, `lab` its colours,
    `inside` the floor, `models` the colours' means, inverse covariances and which were
    clipped.
    """
    n, _, stats, centres = regions(lone.astype(np.uint8), 8)
    footprint = cube_footprint(side)
    half = max(1, int(BOX * side / 2))
    spacing = MIN_SPACING * side
    found: list[Found] = []
    for index in range(1, n):
        lone_area = stats[index, cv2.CC_STAT_AREA] / footprint
        if lone_area < DARK_IMPLIED_CUBES:
            continue
        best: tuple[float, int, int, int, float, int] | None = None
        for step in IMPLIED_STEPS:
            x = round(float(centres[index, 0]) - step * offset[0])
            y = round(float(centres[index, 1]) - step * offset[1])
            if not (0 <= y < inside.shape[0] and 0 <= x < inside.shape[1]) or not inside[y, x]:
                continue
            if any(np.hypot(c.x - x, c.y - y) < spacing for c in cubes + found):
                continue
            area = square_around(x, y, half)
            # The caster's own pixels: not the shade it throws.
            pixels = pixels_at(lab[area], ~shade[area])
            in_shade = len(pixels) < 0.5 * (2 * half + 1) ** 2
            if in_shade:
                pixels = lab[area].reshape(-1, 3)
            elif lone_area < IMPLIED_SHADE_CUBES:
                continue
            median = channel_medians(pixels).astype(np.float32)
            d2 = distances2(median[None, :], *models)[0]
            order = np.argsort(d2)
            fit = float(d2[order[0]])
            if in_shade and (int(order[0]) not in SHADE_LIKE or fit > DARK_CASTER_D2):
                continue
            if best is None or fit < best[0]:
                margin = float(np.sqrt(d2[order[1]]) - np.sqrt(fit))
                best = (fit, int(order[0]), x, y, margin, int(order[1]))
        if best is not None and best[0] <= IMPLIED_FIT_D2:
            fit, colour, x, y, margin, runner_up = best
            found.append(Found(colour, float(x), float(y), 0.0, margin, runner_up))
    return found


__all__ = [
    "cast_offset",
    "gap_as_shade",
    "in_shadow_of",
    "lies_in_shade",
    "lone_shade",
    "on_shaded_floor",
    "shadow_casters",
    "without_cast_shadows",
]

"""Peaks that are something beside a found cube, not a cube of their own.

A cube changes the picture round it too: its shaded side faces, its edge blurred into the
floor, the shade at its foot, a dark strip along a wall's face behind it, shade between
touching cubes. Each can fill a box with a cube colour's evidence and pass for a weaker peak
close beside the cube. Each test here takes out one such kind, by the measure that told it
from a real cube half hidden there (the figures are with each constant); counting keeps
what they took out to say the reading may miss a cube half hidden (`detect.find_cubes`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour
from companion.vision.arrays import square_around
from companion.vision.cast import SHADE_LIKE, gap_as_shade, in_shadow_of
from companion.vision.colours import (
    mix_gaps,
    shade_gap,
)
from companion.vision.found import SURE_FILL, WORKING_SIDE, Found, explained_by
from companion.vision.images import FloatImage, Mask
from companion.vision.peaks import BOX, odd
from companion.vision.shadow import ShadowLine, darkening, linear

# A peak centred more than FLOOR_SURE cube sides beyond the floor's edge (rounded to whole
# pixels: about a pixel) lies over a wall's inner face; it is a cube there (its top, seen
# askew, reaching over the wall) only when its colour's evidence (above STRIP_LEVEL) is at
# least WALL_STRIP sides across every way, and less than WALL_SHADE of it is shade in the
# shadow's own hue. Where cubes lie against a wall they hide part of the room's light from
# it, and the wall's face darkens in a strip along their foot that passes for a dark cube.
# On path-traced trays (benchmarks/pathtraced, 16 set-ups) 49 of the 57 peaks over a wall's
# face were no cube; the width test takes 31 of them (all black, brown or blue) and 1 of
# the 8 cubes, and reads 95 of 153 pictures right, not 86 (0.45 sides: 90; 12 more set-ups
# rendered after: 71 of 120, not 68). On the shared renderer (8 seeds) it takes 11 of 16
# and 7 of 44, and reads as many right: 23 seeds, 6 more and 6 fewer.
# A darkened strip can be wide too (under a row of cubes, or where it meets their shadows).
# Over both path-traced sets, the 6 cubes whose peaks lay over a wall's face were at most
# 3% such shade; 8 of the 15 wide peaks that were no cube, 20-93%, and one more 11%. (As
# found plus three nudged passes: 7 fewer wrong readings, two pictures, A 002/06 and the
# set-up drop 014/06. With colour models learned without their cubes' shadows, measured
# but not landed: 12 fewer, none more; at 0.2, 11 fewer; all shade, whatever its hue, at
# 0.1 and 0.2: 13 and 12 fewer.)
# The evidence is measured without the squares that the cubes of its colour on the floor
# account for: a cube's face seen over the wall, joined to its top, took the top's width
# (B 103 drop 1: a leaning yellow counted twice). Path-traced A, B and C as found and 3
# nudged passes: 2 fewer wrong passes, none more. Shared renderer (seeds 0 and 1): 252 and
# 259 -> 253 and 259 pictures read right, and 7 wrong ones nearer the truth (fewer cubes
# invented under a hand, and one tilted set-up's white).
FLOOR_SURE = 0.15
STRIP_LEVEL = 0.3
WALL_STRIP = 0.6
WALL_SHADE = 0.15
# Shade passes for the dull dark colours (`cast.SHADE_LIKE`) more than for the others, and the
# shade cubes throw lies beside them: their shadows, the gaps between them, their feet. A
# peak of one of those colours within DARK_NEAR sides of another peak is a cube only when
# its box is dark cube through and through: its own colour fills DARK_FILL of it, or the two
# together DARK_UNION (a cube between black and brown splits its evidence). Shade also
# changes most of the box from the empty floor (DARK_CHANGED of it), where a cube on print
# of its own colour leaves much of its box looking like the floor. On path-traced trays
# lone black cubes fill 0.99 of their box (median; 5% under 0.67), and the blacks counted
# where none lay 0.61. See benchmarks/pathtraced/README.md for what it changed.
# Where the light throws shadows clear of the cubes, a thin dark peak whose own shadow lies
# found beside it (a peak in the floor's colour in shade, one offset on) is a cube: its
# shade neighbour is what is not. A brown in the lamp's low light fills its box as little as
# shade does; on path-traced A it was taken while its shadow stayed as a red or green cube.
DARK_FILL = 0.65
DARK_UNION = 0.8
DARK_CHANGED = 0.7
DARK_NEAR = 1.2
# Two cubes lying side by side keep their centres 1/WORKING_SIDE = 0.83 sides apart or
# more (see peaks.MIN_SPACING). So a peak within CLOSE_NEAR sides of a firmer one, filling its box
# under DARK_FILL, whose middle is the floor's colour in shade (`cast.gap_as_shade` under
# CLOSE_SHADE) is the shade at that cube's edge, whatever colour it passes for: a black
# cube's shadow on blue print passes for blue. On path-traced A and B it took 17 peaks, none
# on a cube of its colour (the nearest 0.41 sides off). Over the outline as found and three
# nudged, 5 fewer readings went wrong and none more; as many or one fewer with CLOSE_NEAR 0.7
# or 0.9 or CLOSE_SHADE 14; with a thin fill up to 0.75, 2 more went wrong elsewhere.
CLOSE_NEAR = 0.8
CLOSE_SHADE = 10.0
# A weak peak closer than this (working sides; touching tops lie 0.83 apart) to a cube of
# another colour is that cube's shaded side face when its colour is the cube's in shade: no
# further than this off it in a and b (`shade_gap`), with L + 16 this share of the cube's.
# The lower bound keeps a dark cube beside a light one. On rendered trays (13 seeds, all
# pictures but the set-up drops) such peaks were 19 side faces counted as cubes and no real
# cube; the real cubes nearest to the bounds were two blacks half hidden beside a white
# (0.45 and 0.49) and four with a gap of 14-15. (The shadow line, for tinted shade, found 2
# faces more and no cube.)
SIDE_FACE_AT = 0.67
SIDE_GAP = 10.0
SIDE_DARKEST = 0.55
SIDE_LIGHTEST = 0.9
# A weak peak (filling less than FOOT_FILL of its box) closer than FOOT_REACH working sides to
# a better filled cube is the shade at that cube's foot when its colour lies less than
# FOOT_SHARE (FOOT_SHARE_DARK for black and brown) of the way from the floor's colour beneath
# it to its colour's model. Under soft light that shade falls off the shadow line: the cube
# hides some of the room's light too and throws its own colour back onto the floor; a cube
# there, of any colour, would show its own.
# Of such weak peaks on path-traced trays (three sets, all pictures but the set-up drops) this
# took 41 of the 90 that are no cube and none of the 37 real cubes (the nearest at 0.54); on
# rendered trays (6 seeds) 22 of 55 and 4 of 113 (cubes half hidden, 0.29-0.44). Pictures read
# right: path-traced 245 -> 254 of 373, rendered 5870 -> 5877 of 7570 (23 seeds), no sure
# reading wrong. Path-traced, a reach of 1.2 read as many right; a fill of 0.6 read 7 fewer,
# a reach of 0.85 or a share of 0.35 2 fewer. Nearer their model, colour cannot tell such
# shade from a cube half hidden. The fill was 0.7 until tray finding weighed the wall faces
# and strips on cubes' side faces were told from cubes; at 0.8 since, path-traced A, B and C
# (as found and 3 nudged passes) read 3 passes more right and none fewer (the one peak it
# took as found, A 013 drop 0, is the teal floor darkened at a red cube's foot), and the
# rendered trays (seeds 0 and 1) 252 and 258 -> 252 and 259 of 330 and 320, no sure reading
# wrong more.
FOOT_FILL = 0.8
FOOT_REACH = 1.0
FOOT_SHARE = 0.45
# Shade is dark: the way from a floor to a dull dark colour's model (`cast.SHADE_LIKE`) runs
# through that floor's shade, so a peak of such a colour is taken for foot shade further
# along it. On path-traced A, B and C (as found and 3 nudged passes) 0.55 for black and brown
# read 5 passes more right and none fewer (as found: blacks in A 008 drop 8 and A 013 drop 6,
# shade on dark green and teal print, no cube); the rendered trays (seeds 0 and 1) read the
# same, and 4 cubes fewer were invented under a hand. The same 0.55 for every colour also
# took two real white cubes as found (A 003 drop 8, B 106 drop 5): a white's model lies near
# a light floor, and a white half hidden by its neighbour is as near it as shade. (Those two
# are the only real cubes of the three sets, set-up drops too, between 0.45 and 0.55.)
FOOT_SHARE_DARK = 0.55
# A peak that fills its box is that shade only when its colour is a blend of the floor's and
# its model's, within FOOT_BLEND of the way between them (in lengths of that way), and not of
# a colour the floor's shade runs towards. Such a peak is the floor beside a cube lit by that
# cube's colour, where the colour's model, learned from cubes whose edges blend into the
# floor, stretches towards the floor (B 111: reds on purple print, the red model's b spread
# 17 units). Over the path-traced pictures (A, B and C, all but the set-up drops, as found),
# of the 2772 peaks filling at least FOOT_FILL, 6 lay under FOOT_SHARE within 0.13 of the
# way, none on a cube: 5 of B 111's reds, 14-47 pixels from any red cube, and a black in A
# 013 drop 8. The 5 real cubes under FOOT_SHARE lay 0.48-0.57 off it (whites and reds on A 013's bands, a white on C 204). As found and 3
# nudged passes: 3 passes more right (B 111 drops 0, 2 and 5 as found) and none fewer; the
# rendered trays (seeds 0 and 1) read as many right, two pictures nearer the truth. Taking
# black and brown too lost 3 real black cubes there; taking every peak filling less than 0.96
# whatever its blend read one more path-traced pass right and 5 rendered pictures fewer.
FOOT_BLEND = 0.25
# A peak filling less than FRINGE_FILL of its box, closer than FRINGE_AT working sides to a
# better filled cube of another colour (nearer than touching tops, 0.83), whose colour lies
# within FRINGE_GAP (CIE76) of a blend of that cube's and the floor's beneath it, is that
# cube's blurred edge: on purple print a black or yellow cube's edge blends to red, on blue
# print a green's to blue (see `at_neighbours_edge`). White is left out: on a light floor it
# lies at the floor's end of every such blend, and a white cube half hidden beside another
# passes as well as an edge (on rendered set-up drops 4 real whites went so). Path-traced A
# and B (as found and 3 nudged passes): 13 fewer wrong passes, none more, the 7 peaks taken
# as found all on no cube; a gap of 9 took a real cube (A 008 drop 7), and 12 four; a reach
# of 0.75 or 0.85 read as many right. Rendered trays (seeds 0 and 1): 2 pictures more read
# right, 1 fewer.
FRINGE_FILL = 0.9
FRINGE_AT = 0.8
FRINGE_GAP = 7.0
_WHITE = COLOURS.index(Colour.WHITE)


def _in_shade_of(
    colour: NDArray[np.float32], lit: NDArray[np.float32], line: ShadowLine | None
) -> bool:
    """Whether a Lab `colour` is the Lab colour `lit` of one surface in some shade, as a
    cube's side face turned from the light shows its top's: less of a white light (a and b
    shrink with L + 16), or less of the main light along the set-up's shadow `line` when
    the room's light tints the shade."""
    share = (float(colour[0]) + 16.0) / (float(lit[0]) + 16.0)
    if SIDE_DARKEST <= share <= SIDE_LIGHTEST and shade_gap(colour, lit) <= SIDE_GAP:
        return True
    if line is None:
        return False
    both = cv2.cvtColor(
        np.stack([colour, lit]).reshape(2, 1, 3).astype(np.float32), cv2.COLOR_Lab2BGR
    )
    face, top = np.asarray(np.clip(both * 255.0 + 0.5, 0.0, 255.0), np.uint8)[:, None, :]
    # The shadow line's test, with the cube's top standing in for the floor it darkens.
    top_light = linear(top)
    return bool(line.test(darkening(face, top_light), top_light)[0, 0])


def without_wall_strips(
    cubes: list[Found], maps: NDArray[np.float32], near_floor: Mask, cube_side: float, shade: Mask
) -> tuple[list[Found], list[Found]]:
    """The cubes less the peaks over a wall's face that are a shaded strip along it (see
    FLOOR_SURE; `near_floor`: the floor grown by FLOOR_SURE sides, `shade`: the view's shade
    in the shadow's hue), and those peaks."""
    kept: list[Found] = []
    strips: list[Found] = []
    height, width = near_floor.shape
    reach = int(2 * cube_side) + 1
    on_floor = [cube for cube in cubes if near_floor[round(cube.y), round(cube.x)]]
    for cube in cubes:
        x, y = round(cube.x), round(cube.y)
        if near_floor[y, x]:
            kept.append(cube)
            continue
        grounded = [c for c in on_floor if c.colour == cube.colour]
        alike = explained_by(grounded, near_floor.shape, WORKING_SIDE * cube_side).astype(np.bool_)
        top, left = max(0, y - reach), max(0, x - reach)
        window = (slice(top, min(height, y + reach + 1)), slice(left, min(width, x + reach + 1)))
        # (Without the squares of the cubes of its colour on the floor: a strip joined to the
        # cube above it would take that cube's width.)
        evident = ((maps[cube.colour][window] > STRIP_LEVEL) & ~alike[window]).astype(np.uint8)
        _, labels = cv2.connectedComponents(evident, connectivity=8)
        label = labels[y - top, x - left]
        across = 0.0
        shaded = 0.0
        if label > 0:
            ys, xs = np.nonzero(labels == label)
            points = np.column_stack([xs, ys]).astype(np.float32)
            across = min(cv2.minAreaRect(points)[1])
            shaded = float(shade[window][ys, xs].mean())
        wide = across >= WALL_STRIP * cube_side and shaded < WALL_SHADE
        (kept if wide else strips).append(cube)
    return kept, strips


def without_thin_dark(
    found: list[tuple[int, int, int, float]],
    maps: NDArray[np.float32],
    changed: Mask,
    side: float,
    light: tuple[tuple[float, float], FloatImage, FloatImage] | None = None,
) -> tuple[list[tuple[int, int, int, float]], list[tuple[int, int, int, float]]]:
    """The peaks (colour index, x, y, fill) less those of a dull dark colour beside another
    peak whose box is too thinly that colour and too much `changed` to be more than shade
    (see DARK_FILL), and those peaks.

    `light`: where a cube's shadow lies from it (`cast.cast_offset`), the view and the empty
    tray in Lab; with it, a thin peak that throws a shadow found as a peak is a cube (see
    `_casts_a_found_shadow`)."""
    kept: list[tuple[int, int, int, float]] = []
    thin: list[tuple[int, int, int, float]] = []
    half = odd(BOX * side) // 2
    for peak in found:
        index, x, y, fill = peak
        # (Most peaks are of another colour or well filled: the cheap tests go first.)
        if (
            index not in SHADE_LIKE
            or fill >= DARK_FILL
            or not any(
                other is not peak and math.hypot(other[1] - x, other[2] - y) < DARK_NEAR * side
                for other in found
            )
        ):
            kept.append(peak)
            continue
        box = square_around(x, y, half)
        dark = float(np.mean(sum(maps[k][box] for k in SHADE_LIKE)))
        shade = dark < DARK_UNION and float(np.mean(changed[box])) >= DARK_CHANGED
        if shade and light is not None:
            shade = not _casts_a_found_shadow(peak, found, side, *light)
        (thin if shade else kept).append(peak)
    return kept, thin


def without_close_shade(
    found: list[tuple[int, int, int, float]],
    side: float,
    picture: FloatImage,
    floor: FloatImage,
) -> tuple[list[tuple[int, int, int, float]], list[tuple[int, int, int, float]]]:
    """The peaks (colour index, x, y, fill) less those closer to a firmer peak than a cube
    beside it lies and too thin and shade-like to be a cube of their own (see CLOSE_NEAR),
    and those peaks (`picture` and `floor`: the view and the empty tray in Lab)."""
    kept: list[tuple[int, int, int, float]] = []
    shade: list[tuple[int, int, int, float]] = []
    for peak in found:
        _, x, y, fill = peak
        close = fill < DARK_FILL and any(
            other[3] > fill and math.hypot(other[1] - x, other[2] - y) < CLOSE_NEAR * side
            for other in found
        )
        gap = gap_as_shade(peak, picture, floor) if close else None
        (shade if gap is not None and gap < CLOSE_SHADE else kept).append(peak)
    return kept, shade


def _casts_a_found_shadow(
    peak: tuple[int, int, int, float],
    found: list[tuple[int, int, int, float]],
    side: float,
    offset: tuple[float, float],
    picture: FloatImage,
    floor: FloatImage,
) -> bool:
    """Whether a peak that can be a shadow (`cast.gap_as_shade`) lies where `peak` throws its
    shadow, and `peak` itself lies in no other peak's shadow: then `peak` is the cube and the
    other its shadow, not the other way round."""
    spot = (peak[1], peak[2])
    others = [other for other in found if other is not peak]
    casts = any(
        in_shadow_of(spot, (other[1], other[2]), offset, side)
        and gap_as_shade(other, picture, floor) is not None
        for other in others
    )
    return casts and not any(in_shadow_of((x, y), spot, offset, side) for _, x, y, _ in others)


def without_side_faces(
    cubes: list[Found], colours: list[NDArray[np.float32]], side: float, line: ShadowLine | None
) -> tuple[list[Found], list[Found]]:
    """The cubes less the peaks that are a neighbour's shaded side face, and those peaks
    (`colours`: each cube's median Lab, in the same order).

    A camera leaning from straight above sees the side faces that turn towards it, and the
    main light leaves some of them in shade: a strip beside the cube's top of the same
    surface in less light, which a darker colour's model may fit (a white cube's grey side
    read as black, a brown's as black under a warm lamp). Such a peak lies closer to the cube
    than a touching cube can, fills its box weakly, and its colour is the cube's in shade
    (`_in_shade_of`, with the set-up's shadow `line` when it has one), somewhat darker but not
    as dark as another colour's cube beside a light one.
    """
    kept: list[Found] = []
    faces: list[Found] = []
    for number, cube in enumerate(cubes):
        face = cube.fill < SURE_FILL and any(
            _in_shade_of(colours[number], colours[index], line)
            for index in _better_neighbours(cubes, number, SIDE_FACE_AT * side)
        )
        (faces if face else kept).append(cube)
    return kept, faces


def at_neighbours_edge(
    cubes: list[Found],
    colours: list[NDArray[np.float32]],
    floors: list[NDArray[np.float32]],
    side: float,
) -> list[bool]:
    """Which peaks are a neighbour's blurred edge (`colours`: each cube's median Lab;
    `floors`: the empty tray's median Lab under each). A peak filling FRINGE_FILL of its box
    or more is none.

    Where a cube's edge blurs into the floor, the blend of the two can pass for a third
    colour (purple print and a yellow cube's edge make red). Such a peak lies closer to the
    cube than a touching cube can, fills its box less, and its colour lies on the way from
    the floor's to the cube's (`colours.mix_gaps`). A white one is never taken so (see
    FRINGE_GAP).
    """
    return [
        cubes[number].fill < FRINGE_FILL
        and cubes[number].colour != _WHITE
        and any(
            float(mix_gaps(colours[number], floor, colours[index])) < FRINGE_GAP
            for index in _better_neighbours(cubes, number, FRINGE_AT * side)
        )
        for number, floor in enumerate(floors)
    ]


def _better_neighbours(cubes: list[Found], number: int, reach: float) -> Iterator[int]:
    """The cubes (indices) of another colour than cube `number` that fill their box at least
    as well, closer to it than `reach` (view pixels)."""
    cube = cubes[number]
    for index, other in enumerate(cubes):
        if (
            other.colour != cube.colour
            and other.fill >= cube.fill
            and (other.x - cube.x) ** 2 + (other.y - cube.y) ** 2 < reach**2
        ):
            yield index


def toward_model(
    colours: NDArray[np.float32], floors: NDArray[np.float32], models: NDArray[np.float32]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Where each peak's Lab colour (last axis) lies on the way from the Lab colour of the
    floor beneath it (0) to its colour's model mean (1), projected onto that way; and how far
    off every blend of the two it lies (`colours.mix_gaps`), in lengths of that way."""
    way = models.astype(np.float64) - floors
    length2 = np.maximum(np.sum(way * way, axis=-1), 1e-6)
    along: NDArray[np.float64] = np.sum((colours - floors) * way, axis=-1) / length2
    return along, mix_gaps(colours, floors, models) / np.sqrt(length2)


def at_foot_shade(cubes: list[Found], ways: list[tuple[float, float]], side: float) -> list[bool]:
    """Which cubes are peaks on the shade at another cube's foot (`ways`: each cube's
    `toward_model`, in the same order; see FOOT_SHARE, FOOT_SHARE_DARK and FOOT_BLEND)."""
    reach2 = (FOOT_REACH * side) ** 2
    return [
        _shade_coloured(cube, toward, aside)
        and any(
            other is not cube
            and other.fill >= cube.fill
            and (other.x - cube.x) ** 2 + (other.y - cube.y) ** 2 < reach2
            for other in cubes
        )
        for cube, (toward, aside) in zip(cubes, ways, strict=True)
    ]


def _shade_coloured(cube: Found, toward: float, aside: float) -> bool:
    """Whether a peak `toward` its model from the floor and `aside` from the blends of the
    two (see `toward_model`) is coloured as the shade at a cube's foot may be."""
    if cube.fill < FOOT_FILL:
        return toward < (FOOT_SHARE_DARK if cube.colour in SHADE_LIKE else FOOT_SHARE)
    return cube.colour not in SHADE_LIKE and toward < FOOT_SHARE and aside < FOOT_BLEND


__all__ = [
    "at_foot_shade",
    "at_neighbours_edge",
    "toward_model",
    "without_close_shade",
    "without_side_faces",
    "without_thin_dark",
    "without_wall_strips",
]

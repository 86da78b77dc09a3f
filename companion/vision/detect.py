"""Finding cubes one by one: peaks of per-colour evidence at the size of a cube.

In the top-down view a cube has a known size (the profile's `cube_side`). Each colour's
evidence map is averaged over a box a little smaller than a cube; a cube gives a peak where
that box lies on it. Touching cubes of one colour give one flat top together, so the box
average is lowered by the evidence in a ring around the box: the ring is emptiest at each
cube's own centre. Peaks closer than most of a cube's side to a stronger one are the same
cube. A compact patch of one colour that no peak took, well clear of the cubes found, is a
cube too faint for a peak, counted in doubt. What the peaks leave unexplained (changed area
no cube covers, shadow with no cube beside it, colours between two models) makes the reading
unsure.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Counts
from companion.vision import reasons as doubt
from companion.vision.arrays import box_around, channel_medians, pixels_at, regions, square_around
from companion.vision.beside import (
    FLOOR_SURE,
    at_foot_shade,
    at_neighbours_edge,
    toward_model,
    without_close_shade,
    without_side_faces,
    without_thin_dark,
    without_wall_strips,
)
from companion.vision.cast import (
    cast_offset,
    lies_in_shade,
    lone_shade,
    on_shaded_floor,
    shadow_casters,
    without_cast_shadows,
)
from companion.vision.debug import DebugSink, no_debug
from companion.vision.faint import faint_places
from companion.vision.found import (
    MIN_FILL,
    SURE_MARGIN,
    WORKING_SIDE,
    Detection,
    Found,
    colour_of,
    cube_footprint,
    explained_by,
)
from companion.vision.images import FloatImage, Mask
from companion.vision.likelihood import Evidence, cast_shadows, evidence
from companion.vision.off_colour import off_colour_cubes
from companion.vision.patches import (
    PATCH_EVIDENCE,
    Patches,
    evidence_patches,
    left_over_cubes,
    one_cube_looks_like_two,
    patch_masses,
    without_split_cubes,
)
from companion.vision.peaks import BOX, odd, select
from companion.vision.profile import Prepared, Profile
from companion.vision.segment import Comparison, gradient

T = TypeVar("T")

# Two cubes of one colour closer than this (cube sides) may be one cube found twice.
CLOSE_PAIR = 0.8
# A connected heap of this many cubes may hide one under the others. (5 -> 4 on 13 rendered
# seeds: confident and wrong 13 -> 11, confident and right 983 -> 967; 3 gave 7 and 914.
# A reading in doubt asks the player to look; a confident wrong one changes the game.)
HEAP_CUBES = 4
# Changed area (in cubes) that no found cube explains before the reading is unsure.
UNEXPLAINED_CUBES = 0.3
# An unexplained region this big (cubes), or one reaching over the rim, is a hand.
HAND_CUBES = 3.0
# A region whose area holds this many more cubes than were found in it may hide some.
EXTRA_AREA_CUBES = 0.5
# A patch of one colour's evidence holding this many cubes' worth more than were found in it
# may hide a cube.
LEFT_OVER_CUBES = 0.35
# Shade with no cube to cast it, this share of a cube's footprint, makes a reading unsure.
LONE_SHADE_CUBES = 0.33
# A patch whose evidence falls this many cubes' worth short of the cubes found in it.
SHORT_CUBES = 0.45
# Shadow beyond this many lying cubes' worth (on top of the cubes found) means a stack.
LONG_SHADOW_CUBES = 1.0
# A faint patch (`faint.faint_places`) this many working sides clear of every found cube,
# whose box fits a colour well (FAINT_FIT_D2) and by this margin over the next, is a
# cube of the floor's colour. On rendered trays (13 seeds), of 188 faint patches 132 lay
# 1.0-1.5 sides from a found cube, 6 of them on a missed cube (the rest that cube's shadow
# edge or side face); of the 17 at 2 sides or more, 12 were missed cubes. The margin keeps
# out patches whose colour lies between two. Pictures read right: 3206 -> 3219 (15 up,
# 2 down); on 2 seeds not looked at before, 499 -> 500 of 660.
FAINT_CLEAR = 1.7
FAINT_MARGIN = 0.5 * SURE_MARGIN
# The box round a faint patch takes in floor as well as the cube (the two alike, or the patch
# would not be faint), so its median fits the cube's colour more loosely than a caster's
# does. Of the 48 faint patches clear of every found cube (13 seeds), 12 fitted their best
# colour at d2 9-25: 8 lay on a cube of that colour, 4 did not (the margin keeps out 2).
# Pictures read right at 9 / 16 / 25 / 36: 3241 / 3244 / 3247 / 3247 (the last 8 up, 2 down);
# at 25 on 4 other seeds 1 down of 1320 (a red cube made up on noisy red print, in doubt).
FAINT_FIT_D2 = 25.0
# Counting looks for faint outlines only from half a side beyond each found cube's square:
# nearer, its shadow's edge and side faces leave the like. Before a reading is given as sure,
# the floor from this many sides beyond is searched too, and an outline there makes it
# unsure. (A black cube whose lit top matched a grey floor, against a brown one, showed only
# its outline, and the reading was given as sure. On rendered trays, 17 seeds: that one
# caught, and 8 of the 1033 right sure readings made unsure; from 0.35 sides 4, from 0.25
# sides 17; from 0.4 it is missed.) Neither search looks where the cubes found throw their
# shadows, when the light throws them clear: a low lamp's shadow reaches further than either
# margin, and its soft edge is such an outline. (Readings given as sure, counts unchanged
# and none wrong: path-traced A and B 29 -> 34 of 270, shared renderer seeds 0-1 113 -> 115
# of 660.)
SURE_FAINT_MARGIN = 0.3
# The empty tray's print has an edge where its lightness changes by this much per pixel;
# fewer such pixels than this and the print is too plain to tell anything. An edge keeps
# less than this share of its contrast (beyond the picture's overall) where something
# covers it, and this much covered edge (cube footprints) no cube accounts for is doubted.
PRINT_EDGE = 5.0
MIN_PRINT_EDGES = 50
COVERED_SHARE = 0.3
COVERED_CUBES = 0.15


def _box_median(lab: FloatImage, foreground: Mask, box: tuple[slice, slice]) -> NDArray[np.float32]:
    """The median Lab of the changed pixels in a box (of all of them when none changed)."""
    pixels = pixels_at(lab[box], foreground[box])
    if len(pixels) == 0:
        pixels = lab[box].reshape(-1, 3)
    median: NDArray[np.float32] = channel_medians(pixels).astype(np.float32)
    return median


def _parted(flags: list[bool], items: list[T]) -> tuple[list[T], list[T]]:
    """`items` (as many as `flags`) without and with those whose flag is set."""
    return (
        [item for item, flag in zip(items, flags, strict=True) if not flag],
        [item for item, flag in zip(items, flags, strict=True) if flag],
    )


def profile_evidence(comparison: Comparison, profile: Profile) -> Evidence:
    """The per-colour evidence of a compared view under a profile's colours and shadow."""
    prepared = profile.prepared()
    floor = prepared.reference.lab[:, :, 0]
    shaded = prepared.reference.shaded
    return evidence(
        comparison,
        prepared.means,
        prepared.inverses,
        floor,
        cast_offset(profile),
        profile.cube_side,
        prepared.clipped,
        None if shaded is None else (shaded, prepared.shade_paths),
    )


def find_cubes(
    comparison: Comparison,
    profile: Profile,
    debug: DebugSink = no_debug,
    areas_measured: bool = True,
) -> Detection:
    """The cubes in a compared view, one by one, and the doubts about them.

    `areas_measured`: whether the profile's cube areas are the evidence counting sees (see
    `calibrate`); until they are, no cube is taken for one found twice (`without_split_cubes`
    weighs the evidence against them).
    """
    prepared = profile.prepared()
    side = profile.cube_side * WORKING_SIDE
    seen = profile_evidence(comparison, profile)
    debug("foreground", seen.foreground)
    if debug is not no_debug:
        debug("evidence", np.clip(seen.maps.max(axis=0) * 255.0, 0, 255).astype(np.uint8))
    inside = prepared.reference.inside
    # A cube against the rim still counts: its centre may lie a little outside the floor.
    allowed = prepared.floor_grown(odd(side))
    cubes: list[Found] = []
    half = max(1, int(BOX * side / 2))
    # Only the box around the evidence needs searching: most of a tray is empty floor.
    # (Evidence lies only on foreground pixels: one plane is quicker to look through.)
    found: list[tuple[int, int, int, float]] = []
    box = box_around(seen.foreground, int(side) + 2)
    if box is not None:
        top, left = box[0].start, box[1].start
        present = [k for k in range(len(seen.maps)) if seen.maps[k][box].any()]
        # (Cropped before the colours are picked out: that copies only the box.)
        lightness = comparison.lab[(*box, 0)]
        picked = select(seen.maps[(slice(None), *box)][present], side, allowed[box], lightness)
        found = [(present[k], x + left, y + top, fill) for k, x, y, fill in picked]
    offset = cast_offset(profile)
    changed = seen.foreground | seen.shadow
    light = None if offset is None else (offset, comparison.lab, prepared.reference.lab)
    found, thin = without_thin_dark(found, seen.maps, changed, side, light)
    if offset is not None:
        found = without_cast_shadows(
            found,
            offset,
            side,
            comparison.lab,
            prepared.reference.lab,
            changed,
            prepared.reference.shaded,
        )
    found, close = without_close_shade(found, side, comparison.lab, prepared.reference.lab)
    thin += close
    medians: list[NDArray[np.float32]] = []
    floors: list[NDArray[np.float32]] = []
    for index, x, y, fill in found:
        box = square_around(x, y, half)
        median = _box_median(comparison.lab, seen.foreground, box)
        best, margin, second, _ = colour_of(median, comparison, box, prepared)
        if best == index and (
            on_shaded_floor(prepared, box)
            or (offset is not None and lies_in_shade(x, y, offset, side, changed, inside))
        ):
            # A cube in shade shows its colour as shade does (`lies_in_shade`).
            best, margin, second, _ = colour_of(median, comparison, box, prepared, True)
            index = best
        runner_up = second if best == index else best
        if best != index:
            margin = 0.0
        cubes.append(Found(index, float(x), float(y), fill, margin, runner_up))
        medians.append(median)
        floors.append(channel_medians(prepared.reference.lab[box].reshape(-1, 3)))
    # (All peaks at once: numpy's overhead on one colour is most of the work.)
    towards, asides = toward_model(
        np.reshape(medians, (-1, 3)),
        np.reshape(floors, (-1, 3)),
        prepared.means[[cube.colour for cube in cubes]],
    )
    ways = list(zip(towards.tolist(), asides.tolist(), strict=True))
    at_foot = at_foot_shade(cubes, ways, side)
    cubes, shaded = _parted(at_foot, cubes)
    medians, floors = _parted(at_foot, medians)[0], _parted(at_foot, floors)[0]
    at_edge = at_neighbours_edge(cubes, medians, floors, side)
    cubes, edges = _parted(at_edge, cubes)
    medians = _parted(at_edge, medians)[0]
    line = prepared.reference.shadow
    cubes, faces = without_side_faces(cubes, medians, side, line)
    near_floor = prepared.floor_grown(odd(2.0 * FLOOR_SURE * profile.cube_side))
    # (Shade in a hue no shadow gives the tray is a dark cube's top, not the wall's shade.)
    shade = seen.shadow if comparison.off_hue is None else seen.shadow & ~comparison.off_hue
    cubes, strips = without_wall_strips(cubes, seen.maps, near_floor, profile.cube_side, shade)
    # A cube no colour explains any more (a brighter exposure moved a white off its model) is
    # still counted when one colour explains it far better than the rest, but in doubt.
    accounted: Mask = explained_by(cubes, inside.shape, side).astype(np.bool_)
    unaccounted = seen.unexplained & ~accounted
    judged = (prepared.means, prepared.inverses, prepared.clipped, comparison.ceiling)
    # No evidence map measured its fill: it is given the least a counted cube has, so its
    # confidence is at most 0.5 (and below that when its colour margin is thin).
    off = [
        Found(c.colour, c.x, c.y, MIN_FILL, c.margin, c.runner_up)
        for c in off_colour_cubes(
            unaccounted,
            comparison,
            prepared.reference.lab[:, :, 0],
            inside,
            cube_footprint(side),
            judged,
            prepared.shade_paths,
        )
    ]
    cubes += off
    # (Each colour's patches serve the cubes left over here and the doubts below.)
    patches = [evidence_patches(plane) for plane in seen.maps]
    split: list[Found] = []
    if areas_measured:
        cubes, split = without_split_cubes(
            cubes, patches, seen.maps, prepared.areas, profile.cube_side, prepared.overhead
        )
    cubes += left_over_cubes(patches, cubes, comparison, prepared, allowed)
    # What one found cube accounts for in a region's area: the square its colour covers, and
    # for a lone cube all it changes (never less than that square; 0 in older profiles).
    cube_square = profile.cube_side**2
    lone_cube = max(profile.lone_cube_area, cube_square)
    shadow_area = profile.shadow.area if profile.shadow is not None else 0.0
    # The doubts look only at what changed: the box around it is all they need.
    # (Nothing changed: only covered print can still tell of a cube, anywhere in view.)
    box = box_around(changed, int(2 * side) + 2) or (slice(0, None), slice(0, None))
    top, left = box[0].start, box[1].start
    local = Evidence(
        seen.maps[(slice(None), *box)],
        seen.foreground[box],
        seen.unexplained[box],
        seen.shadow[box],
    )
    moved = [replace(c, x=c.x - left, y=c.y - top) for c in cubes]
    lone = lone_shade(moved, local.shadow, inside[box], side, offset)
    implied: list[Found] = []
    if offset is not None:
        models = (prepared.means, prepared.inverses, prepared.clipped)
        implied = shadow_casters(
            moved, lone, local.shadow, comparison.lab[box], inside[box], side, offset, models
        )
        # What the cubes found by their shadows cast is no longer lone.
        lone = lone_shade(implied, lone, inside[box], side, offset)
    # (Evidence lies only on changed pixels, so every patch lies within the doubts' box.)
    doubts = _doubts(
        moved + implied,
        local,
        side,
        cube_square,
        lone_cube,
        inside[box],
        prepared.areas,
        [None if p is None else p.moved(top, left) for p in patches],
        shadow_area,
        lone,
    )
    for cube in off:
        doubts.append(doubt.OFF_COLOUR.format(colour=COLOURS[cube.colour].value))
    # A side face or the shade at a cube's foot and a cube half hidden behind its neighbour
    # can look alike; so can a wall's shaded strip and a cube's top over the wall that the
    # one beside it hides.
    for cube in shaded + edges + faces + strips:
        doubts.append(doubt.PARTLY_HIDDEN.format(colour=COLOURS[cube.colour].value))
    # A cube taken for one found twice may be the second of two lying close.
    for cube in split:
        doubts.append(doubt.TWO_AS_ONE.format(colour=COLOURS[cube.colour].value))
    if thin:
        doubts.append(doubt.DARK_PATCH)
    for cube in implied:
        doubts.append(doubt.SEEN_BY_SHADOW.format(colour=COLOURS[cube.colour].value))
    if _print_covered(
        comparison, prepared.print_edges, local.shadow, inside, moved + implied, side, box
    ):
        doubts.append(doubt.MAYBE_CUBE)
    cubes += [replace(c, x=c.x + left, y=c.y + top) for c in implied]
    faint = _faint_places_left(comparison, prepared, cubes, profile.cube_side, offset)
    if faint:
        outlined = faint_cubes(faint, cubes, comparison, prepared, side)
        for cube in outlined:
            doubts.append(doubt.SEEN_BY_OUTLINE.format(colour=COLOURS[cube.colour].value))
        # A faint patch not taken for a cube (beside a found one) may still be one.
        if len(outlined) < len(faint):
            doubts.append(doubt.MAYBE_CUBE)
        cubes += outlined
    doubts = list(dict.fromkeys(doubts))
    return Detection(cubes, doubts, seen.foreground)


def faint_outline_near(comparison: Comparison, profile: Profile, cubes: list[Found]) -> bool:
    """Whether the floor round the `cubes` found, from SURE_FAINT_MARGIN sides beyond their
    squares, shows the faint outline of one more (see `faint_places`)."""
    places = _faint_places_left(
        comparison,
        profile.prepared(),
        cubes,
        profile.cube_side,
        cast_offset(profile),
        SURE_FAINT_MARGIN,
    )
    return bool(places)


def _faint_places_left(
    comparison: Comparison,
    prepared: Prepared,
    cubes: list[Found],
    cube_side: float,
    offset: tuple[float, float] | None,
    margin: float = 0.5,
) -> list[tuple[float, float]]:
    """Where the floor away from the cubes found (from `margin` cube sides past their
    squares, and clear of where they throw their shadows when the light throws them clear:
    `offset`; `cube_side` in view pixels) shows the faint outline of one more (a cube on
    print of its own colour, see `faint_places`)."""
    reference = prepared.reference
    # Around each cube found: its square, and by default half a side more for its shadow
    # and edges.
    grow = odd(2.0 * margin * cube_side)
    squares = explained_by(cubes, reference.inside.shape, cube_side * WORKING_SIDE)
    near = cv2.dilate(squares, np.ones((grow, grow), np.uint8)).astype(np.bool_)
    if offset is not None and cubes:
        # A low lamp throws a shadow longer than that margin, and its edge is such an
        # outline.
        near |= cast_shadows(squares.astype(np.bool_), offset)
    quiet = prepared.steady_floor & ~near
    return faint_places(
        comparison.difference, comparison.threshold, reference.local_noise, quiet, cube_side
    )


def faint_cubes(
    places: list[tuple[float, float]],
    cubes: list[Found],
    comparison: Comparison,
    prepared: Prepared,
    side: float,
) -> list[Found]:
    """The cubes at faint `places` (view pixels, strongest first, see `faint_places`) well
    clear of every found cube, where the picture clearly fits one colour (`side`: a working
    side). Their fill is 0: counted, but never sure.

    Near a found cube a faint patch is mostly what that cube leaves (its shadow's edge, a
    side face, blur); well clear of them it is a cube whose colour is the floor's, and its
    box, the floor showing round it included, still looks like that colour.
    """
    half = max(1, int(BOX * side / 2))
    taken: list[Found] = []
    for x, y in places:
        column, row = round(x), round(y)
        if any(math.hypot(c.x - column, c.y - row) < FAINT_CLEAR * side for c in cubes + taken):
            continue
        box = square_around(column, row, half)
        # All the box's pixels: the cube's top hardly passes the change threshold.
        median = channel_medians(comparison.lab[box].reshape(-1, 3)).astype(np.float32)
        best, margin, second, fit = colour_of(median, comparison, box, prepared)
        if fit <= FAINT_FIT_D2 and margin >= FAINT_MARGIN:
            taken.append(Found(best, float(column), float(row), 0.0, margin, second))
    return taken


def _print_covered(
    comparison: Comparison,
    print_edges: FloatImage,
    shade: Mask,
    inside: Mask,
    cubes: list[Found],
    side: float,
    box: tuple[slice, slice],
) -> bool:
    """Whether, within `box` of the view, more print is covered than the found cubes (given
    in the box's coordinates, like `shade`) account for."""
    gone = covered_print(
        np.ascontiguousarray(comparison.lab[box][:, :, 0]), print_edges[box], shade, inside[box]
    )
    explained = cv2.dilate(explained_by(cubes, gone.shape, side), np.ones((3, 3), np.uint8))
    gone &= ~explained.astype(np.bool_)
    return float(gone.sum()) >= COVERED_CUBES * cube_footprint(side)


def covered_print(
    lightness: FloatImage, print_edges: FloatImage, shade: Mask, inside: Mask
) -> Mask:
    """Edges of the tray's print that the picture no longer shows: something lies on them.

    A cube whose colour is the print's average barely changes any pixel's colour on a busy
    print, but it hides the print's edges. A shadow only lowers their contrast, and a softer
    picture (focus, shake) lowers all of them alike, which the overall ratio takes out.
    """
    strong = (print_edges >= PRINT_EDGE) & inside
    none: Mask = np.zeros(inside.shape, np.bool_)
    if int(strong.sum()) < MIN_PRINT_EDGES:
        return none
    now = gradient(lightness)
    overall = float(np.median(now[strong] / print_edges[strong]))
    near_shade = cv2.dilate(shade.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(np.bool_)
    gone: Mask = strong & (now < COVERED_SHARE * overall * print_edges) & ~near_shade
    return gone


def _doubts(
    cubes: list[Found],
    seen: Evidence,
    side: float,
    cube_square: float,
    lone_cube: float,
    inside: Mask,
    areas: NDArray[np.float64],
    patches: list[Patches | None],
    shadow_area: float,
    lone: Mask,
) -> list[str]:
    """Why the cubes found may not be the whole truth, in words a player understands
    (`cube_square`, `lone_cube`: the square one cube's colour covers and all one lone cube
    changes, see `area_doubts`; `patches`: each colour's evidence patches, see
    `evidence_patches`; `lone`: the shade none of them casts, see `lone_shade`)."""
    reasons: list[str] = []
    for cube in cubes:
        if cube.confidence < 0.5:
            colour = COLOURS[cube.colour].value
            if cube.margin < 0.5 * SURE_MARGIN:
                other = COLOURS[cube.runner_up].value
                reasons.append(doubt.BETWEEN.format(colour=colour, other=other))
            else:
                reasons.append(doubt.PARTLY_HIDDEN.format(colour=colour))
    reasons.extend(area_doubts(cubes, seen.foreground, cube_square, lone_cube))
    reasons.extend(_left_over(cubes, seen.maps, areas, patches))
    reasons.extend(_long_shadows(cubes, seen, shadow_area))
    for number, first in enumerate(cubes):
        for second in cubes[number + 1 :]:
            apart = math.hypot(first.x - second.x, first.y - second.y) / side
            if first.colour == second.colour and apart < CLOSE_PAIR:
                # Lying tops cannot be this close: one cube seen twice, or one leaning.
                reasons.append(doubt.FOUND_TWICE.format(colour=COLOURS[first.colour].value))
    reasons.extend(unexplained_doubts(cubes, seen, lone, inside, side))
    footprint = cube_footprint(side)
    # A shadow lies beside the cube that casts it, on the side away from the light; shade
    # with no found cube to cast it is a cube the colours missed (a dark one, or one the
    # print beneath hides) or its shadow.
    n, _, stats, _ = regions(lone.astype(np.uint8), 8)
    # A lying cube's own shadow can be small (a high lamp): a third of a cube's footprint
    # of shade with nothing to cast it is enough to doubt.
    if any(stats[i, cv2.CC_STAT_AREA] >= LONE_SHADE_CUBES * footprint for i in range(1, n)):
        reasons.append(doubt.DARK_PATCH)
    counts = Counts.of({c: sum(1 for f in cubes if f.colour == i) for i, c in enumerate(COLOURS)})
    for colour, number in counts.items():
        if number > CUBES_PER_COLOUR:
            reasons.append(doubt.TOO_MANY.format(limit=CUBES_PER_COLOUR, colour=colour.value))
    return list(dict.fromkeys(reasons))


def unexplained_doubts(
    cubes: list[Found], seen: Evidence, lone: Mask, inside: Mask, side: float
) -> list[str]:
    """Doubts for changed regions no found cube accounts for: a hand when much of one fits
    no colour (or it reaches over the rim), else something that may be a cube.

    Shade a found cube casts, or that lies beside it, is that cube's even where a dark colour
    fits it (`lone` is the shade none of them casts, see `lone_shade`).
    """
    covered = explained_by(cubes, inside.shape, side).astype(np.bool_)
    theirs = seen.shadow & ~lone
    left = (seen.foreground & ~covered & ~theirs).astype(np.uint8)
    area = side * side
    footprint = cube_footprint(side)
    reasons: list[str] = []
    n, labels, stats, _ = regions(left, 8)
    for index in range(1, n):
        # Measured against a cube's own footprint: a cube no colour explains shows that much.
        if float(stats[index, cv2.CC_STAT_AREA]) < UNEXPLAINED_CUBES * footprint:
            continue
        x, y, w, h = (int(v) for v in stats[index, :4])
        region = labels[y : y + h, x : x + w] == index
        over_rim = bool((region & ~inside[y : y + h, x : x + w]).mean() > 0.2)
        unexplained = float((seen.unexplained[y : y + h, x : x + w] & region).sum()) / area
        if unexplained >= HAND_CUBES or (over_rim and unexplained >= 1.0):
            reasons.append(doubt.HAND)
        else:
            reasons.append(doubt.MAYBE_CUBE)
    return reasons


def _left_over(
    cubes: list[Found],
    maps: NDArray[np.float32],
    areas: NDArray[np.float64],
    patches: list[Patches | None],
) -> list[str]:
    """Doubts where one colour's evidence holds clearly more cubes than were found of it.

    Two cubes of a colour leaning together give one peak, and a cube lying on another of
    another colour hides all of it but a sliver: either way the colour's evidence in that
    patch adds up to more than the cubes found there (each worth its colour's `areas` entry,
    the area a lying cube showed at calibration).
    """
    reasons: list[str] = []
    for index, plane in enumerate(maps):
        mass, found = patch_masses(patches[index], [c for c in cubes if c.colour == index])
        extra = mass / float(areas[index]) - found
        name = COLOURS[index].value
        if np.any(extra >= LEFT_OVER_CUBES):
            reasons.append(doubt.HIDDEN_BESIDE.format(colour=name))
        if np.any((found == 1) & (extra > 0.0)) and one_cube_looks_like_two(plane, cubes, index):
            reasons.append(doubt.TWO_AS_ONE.format(colour=name))
        # Too little of a colour for the cubes found in it: one of them is mostly covered
        # (by a cube lying on it, the rim, a hand), or is no cube at all.
        if np.any((found > 0) & (extra <= -SHORT_CUBES)):
            reasons.append(doubt.PARTLY_HIDDEN.format(colour=name))
    return reasons


def _long_shadows(cubes: list[Found], seen: Evidence, shadow_area: float) -> list[str]:
    """A doubt where cubes cast more shadow than that many lying cubes do.

    A cube resting on another stands a cube higher, so its shadow reaches further and joins
    the lower cube's: the one underneath may be all but hidden, yet the shadow gives it away.
    """
    if shadow_area <= 0.0 or not cubes:
        return []
    shaded, found = shade_by_group(cubes, seen)
    if np.any(shaded > (found + LONG_SHADOW_CUBES) * shadow_area):
        return [doubt.ON_ANOTHER]
    return []


def shade_by_group(
    cubes: list[Found], seen: Evidence
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For each group of touching changed pixels, cube and shade alike (8-connected): its
    shade that no cube colour claims (pixels), and how many of `cubes` lie in it."""
    both = (seen.foreground | seen.shadow).astype(np.uint8)
    n, groups = cv2.connectedComponents(both, connectivity=8)
    shade = seen.shadow & (seen.maps.max(axis=0) < np.float32(PATCH_EVIDENCE))
    shaded = np.bincount(groups[shade], minlength=n)
    found = np.zeros(n, np.int64)
    for cube in cubes:
        found[groups[int(cube.y), int(cube.x)]] += 1
    return shaded[1:], found[1:]


def region_counts(
    cubes: list[Found], foreground: Mask
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """For each connected region of changed pixels (4-connected): its area (pixels) and how
    many of `cubes` lie in it."""
    n, labels = cv2.connectedComponents(foreground.astype(np.uint8), connectivity=4)
    found = np.zeros(n, np.int64)
    for cube in cubes:
        found[labels[int(cube.y), int(cube.x)]] += 1
    return np.bincount(labels.ravel(), minlength=n)[1:].astype(np.float64), found[1:]


def area_doubts(
    cubes: list[Found], foreground: Mask, cube_square: float, lone_cube: float
) -> list[str]:
    """Doubts where a connected changed region's area holds clearly more cubes than were
    found in it (a cube hidden in a cluster, two merged into one peak).

    A region holding one cube is measured against `lone_cube`, the area one lone cube changed
    at calibration: with the shaded side faces and blurred edges around the square its colour
    covers (`cube_square`) that is 1.1 to 2.3 times the square, the more so the further the
    camera leans from straight above. In a group the cubes hide each other's sides, and one hidden
    among them shows only a sliver: there each cube is worth just `cube_square`.
    """
    areas, found = region_counts(cubes, foreground)
    if found.size and int(found.max()) >= HEAP_CUBES:
        # Cubes dropped in a heap rest on each other; one underneath leaves no trace.
        return [doubt.HEAP]
    worth = np.where(found == 1, areas / lone_cube, areas / cube_square)
    extra = worth - found
    if np.any((extra >= EXTRA_AREA_CUBES) & (found > 0)):
        return [doubt.CLUSTER]
    return []


__all__ = [
    "area_doubts",
    "covered_print",
    "faint_cubes",
    "faint_outline_near",
    "find_cubes",
    "profile_evidence",
    "region_counts",
    "shade_by_group",
    "unexplained_doubts",
]

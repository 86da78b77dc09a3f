"""Finding the cubes in the top-down view: the steps of counting, in order.

In the view a cube has a known size (the profile's `cube_side`), so each colour's evidence,
averaged over a box a little smaller than a cube, peaks on every cube of that colour (how,
and how touching cubes are told apart, is `peaks`'s to say).

`find_cubes` runs the steps in order, each in a module of its own: the peaks (`peaks`) become
found cubes (`found`) once the filters have taken out those that are a cast shadow (`cast`)
or something else beside a cube (`beside`); patches of evidence add the cubes too faint for a
peak and take out those found twice (`patches`), faint outlines add the cubes the evidence
missed (`faint`), and what is left unexplained becomes the reading's doubts (`doubts`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS
from companion.vision import reasons as doubt
from companion.vision.arrays import box_around, channel_medians, pixels_at, square_around
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
from companion.vision.doubts import doubts_about, print_covered
from companion.vision.faint import faint_cubes, faint_places_left
from companion.vision.found import (
    MIN_FILL,
    WORKING_SIDE,
    Detection,
    Found,
    colour_of,
    cube_footprint,
    explained_by,
)
from companion.vision.images import BGRImage, FloatImage, Mask
from companion.vision.likelihood import Evidence, evidence
from companion.vision.off_colour import off_colour_cubes
from companion.vision.patches import evidence_patches, left_over_cubes, without_split_cubes
from companion.vision.peaks import BOX, Crack, odd, select
from companion.vision.profile import Profile
from companion.vision.seam import seam_between, seam_in_picture
from companion.vision.segment import Comparison
from companion.vision.tray_view import TrayView

T = TypeVar("T")


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


def _crack_finder(
    comparison: Comparison, box: tuple[slice, slice], picture: tuple[BGRImage, TrayView] | None
) -> Crack:
    """Whether a crack shows between two tops in the view's `box` (`peaks.Crack`): in the
    view, or else in the `picture` the view was warped from (`seam.seam_in_picture`)."""
    lightness = comparison.lab[(*box, 0)]
    top, left = box[0].start, box[1].start

    def crack(first: tuple[int, int], second: tuple[int, int], half: int) -> bool:
        if seam_between(lightness, first, second, half):
            return True
        if picture is None:
            return False
        image, view = picture
        at = (float(first[0] + left), float(first[1] + top))
        to = (float(second[0] + left), float(second[1] + top))
        return seam_in_picture(image, view, comparison.tables, at, to, half)

    return crack


def find_cubes(
    comparison: Comparison,
    profile: Profile,
    debug: DebugSink = no_debug,
    areas_measured: bool = True,
    picture: tuple[BGRImage, TrayView] | None = None,
) -> Detection:
    """The cubes in a compared view, one by one, and the doubts about them.

    `areas_measured`: whether the profile's cube areas are the evidence counting sees (see
    `calibrate`); until they are, no cube is taken for one found twice
    (`patches.without_split_cubes` weighs the evidence against them). `picture`: the picture
    and the tray view the compared view was warped with, for a closer look where the view is
    too coarse (None: the view alone).
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
        crack = _crack_finder(comparison, box, picture)
        picked = select(seen.maps[(slice(None), *box)][present], side, allowed[box], crack)
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
            # A cube in shade shows its colour as shade does (`cast.lies_in_shade`).
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
            prepared.reference.lab,
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
    doubts = doubts_about(
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
    if print_covered(
        comparison, prepared.print_edges, local.shadow, inside, moved + implied, side, box
    ):
        doubts.append(doubt.MAYBE_CUBE)
    cubes += [replace(c, x=c.x + left, y=c.y + top) for c in implied]
    faint = faint_places_left(comparison, prepared, cubes, profile.cube_side, offset)
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


__all__ = [
    "find_cubes",
    "profile_evidence",
]

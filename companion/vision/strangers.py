"""Cubes of another colour in a colour calibration picture, told while the colours are learned.

Each colour picture must hold cubes of its own colour alone: a stray cube of another colour
makes that colour's model a blend of both. Once every colour is learned, each picture's lone
cubes are judged against all the models (`check_distinct`): one clearly outside its picture's
colour and well inside another's, of two lone cubes of different hues, one that another colour's
model fits (`pair_strangers`), or a group of whole cubes of another colour than the rest (see
`mixed`) refuse the set. So does a picture of cubes of several colours, heaped so that none
lies alone, whose model has spread wider than one colour's cubes under one light do
(`several_others`). A lone cube's colour is its lit top's where it stands tilted
(`lone_cube_colour`). Shade darkens and greys a colour but keeps its hue, so the hue tests ask
for wider gaps in shade.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour
from companion.vision.colour_models import cores
from companion.vision.colours import chroma, distances2, hue_apart
from companion.vision.cube_regions import CubeRegions
from companion.vision.errors import CalibrationError
from companion.vision.images import FloatImage, Mask
from companion.vision.likelihood import cast_shadows
from companion.vision.mixed import (
    floor_in_shade,
    lighter_kind,
    two_colours,
    two_kinds,
    unlike_floor,
)
from companion.vision.patches import looks_single
from companion.vision.profile import ColourModel
from companion.vision.segment import Comparison
from companion.vision.shadow_model import NOT_THE_CUBE_D2

# A cube in a colour picture is another colour's when that colour's model explains it this
# well (squared Mahalanobis distance, 3 sigma).
STRANGER_FIT_D2 = 9.0
# Cubes in one colour picture are of two colours when their hue angles differ this much
# (degrees), or when one is grey (chroma below GREY_CHROMA) and the other clearly coloured.
MIXED_HUE_DEGREES = 60.0
GREY_CHROMA = 8.0
HUE_CHROMA = 15.0
# Cubes this much darker (L) than the picture's typical cube are in shade and not compared.
SHADED_LIGHTNESS = 10.0
SHADED_HUE_DEGREES = 100.0
# Of two such cubes, one is a stray only when another colour's model explains it this much
# better (Mahalanobis units) than the picture's own. A cube of the picture's colour blurred
# with the print beside it can come out a hair nearer another model: on path-traced B, a
# black on green print fitted brown at 1.7 and black at 2.0 once the tray outline moved
# under half a pixel, and a good set was refused. (Calibration checks, 5 seeds: the same
# 104 of 165 mixed sets refused and the same clean sets accepted with 0.5 as with none;
# with 1.0, one mixed set fewer in the warm condition alone.)
PAIR_MARGIN = 0.5
# A region is a shadow cast clear of its cube when this share of it lies where the other
# regions' cubes cast.
CAST_CLEAR = 0.5
COLOURED_CHROMA = 22.0
# A colour's model this broad in a and b (the root of their variances summed) was learned
# from cubes of more than one colour: one colour's cubes under one light spread at most 20.2
# on the shared renderer (132 clean sets, seeds 21, 13, 5, 0) and 21.3 on path-traced A, B
# and C (40 sets). A picture of a drop of five colours, all in heaps, spread 27.7.
BROAD = 24.0


def _other_hue(
    lab: NDArray[np.float64], centre: NDArray[np.float64], degrees: float | None = None
) -> bool:
    """Whether a cube's colour is another hue than the picture's typical cube.

    Shade lowers lightness and chroma but keeps the hue angle; two colours differ in hue
    angle (both coloured) or one is grey (black, white) where the other is coloured.
    """
    own, typical = chroma(lab), chroma(centre)
    if min(own, typical) < GREY_CHROMA:
        return max(own, typical) > COLOURED_CHROMA
    if min(own, typical) < HUE_CHROMA:
        return False  # too grey for a trustworthy hue angle, too coloured to call grey
    limit = MIXED_HUE_DEGREES if degrees is None else degrees
    return hue_apart(lab, centre) > limit


def of_other_hues(first: NDArray[np.float64], second: NDArray[np.float64]) -> bool:
    """Whether two cubes' colours (Lab) are of other hues (`_other_hue`). One in shade has its
    hue drift (yellow turns olive): the gap asked for is wider then."""
    shaded = abs(first[0] - second[0]) > SHADED_LIGHTNESS
    return _other_hue(first, second, SHADED_HUE_DEGREES if shaded else None)


def _stray_group(
    comparison: Comparison,
    floor: FloatImage,
    found: CubeRegions,
    core: Mask,
    side: float,
    index: int,
    models: tuple[NDArray[np.float32], NDArray[np.float32]],
    offset: tuple[float, float] | None,
) -> list[str]:
    """The colour of a group of whole cubes in one colour picture that is another colour
    than the rest (see `mixed`), named by the other pictures' models; empty when none.
    `offset` is where a cube's shadow lies from the cube (view pixels), when known."""
    # A black stray among lit cubes is all shade, which the core leaves out as a shadow:
    # the regions' darker parts are looked at too, but for where the cubes cast shadows.
    # (A cube on the rim casts one clear of itself, on the floor: on the shared renderer,
    # set-ups 524031652 and 735086228, yellow and blue pictures were refused for holding
    # a blue and a white cube that were such shadows.)
    looked_at = core | found.dark
    if offset is not None and any(offset):
        looked_at &= ~_cast_clear(found, offset)
    groups = two_colours(comparison.lab, floor, looked_at, found.regions, side)
    if groups is None:
        return []
    means, inverses = models
    pair = np.array(groups, np.float32)
    d2 = distances2(pair, means, inverses)
    d2[:, index] = np.inf
    stray = int(np.argmin(d2.min(axis=1)))
    other = int(np.argmin(d2[stray]))
    if not (two_kinds(*groups) or lighter_kind(groups[stray], groups[1 - stray])):
        return []
    # The stray is surely that colour, and the rest surely not.
    if d2[stray, other] <= STRANGER_FIT_D2 and d2[1 - stray, other] > NOT_THE_CUBE_D2:
        return [COLOURS[other].value]
    return []


def _cast_clear(found: CubeRegions, offset: tuple[float, float]) -> Mask:
    """The regions of a colour picture that lie mostly where the other regions' cubes cast
    their shadows (`offset`: a shadow's place from its cube, view pixels)."""
    cast_clear = np.zeros_like(found.mask)
    for number in range(1, int(found.regions.max()) + 1):
        region = found.regions == number
        cast = cast_shadows(found.cube & ~region, offset) & region
        if cast.sum() >= CAST_CLEAR * region.sum():
            cast_clear |= region
    return cast_clear


def pair_strangers(
    medians: list[NDArray[np.float64]],
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    index: int,
) -> list[str]:
    """The other colours that lone cubes of one colour picture (their median Lab) turn out
    to be, judged two by two (`index`: the picture's colour among the models).

    Two colours in one picture make one broad model that explains both; the cubes
    themselves then disagree in hue (a, b); lightness is left out, shading varies it.
    """
    strangers: list[str] = []
    for i, first in enumerate(medians):
        for second in medians[i + 1 :]:
            if not of_other_hues(first, second):
                continue
            pair = np.array([first, second], np.float32)
            d2 = distances2(pair, means, inverses)
            # Either of the two may be the stranger (the broad model sits between them): it
            # is the one another colour's own model explains well, and clearly better than
            # the picture's own (else it is an odd cube of the picture's colour, see
            # PAIR_MARGIN).
            alone = np.sqrt(d2[:, index])
            d2[:, index] = np.inf
            for member in range(2):
                other = int(np.argmin(d2[member]))
                fits = d2[member, other] <= STRANGER_FIT_D2
                if fits and alone[member] - np.sqrt(d2[member, other]) >= PAIR_MARGIN:
                    strangers.append(COLOURS[other].value)
    return strangers


def several_others(
    medians: list[NDArray[np.float64]],
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    index: int,
) -> list[str]:
    """The other colours a colour picture's cube regions (their median Lab, heaps included)
    show, when two of them, of other hues, are each well inside another colour's model; empty
    otherwise (`index`: the picture's colour among the models).

    For a picture whose model is BROAD: its cubes all blend into it, so no test that asks
    another model to fit a cube better than the picture's own can tell them (a drop's worth
    of cubes photographed for the red picture: brown, green and black heaps, each within
    1.7 of the red model and 0.9 of its own). On 132 clean sets of the shared renderer and 40
    path-traced ones no picture had two such regions, broad or not.
    """
    fits: list[tuple[NDArray[np.float64], int]] = []
    for lab in medians:
        d2 = distances2(lab[None, :].astype(np.float32), means, inverses)[0]
        d2[index] = np.inf
        other = int(np.argmin(d2))
        if d2[other] <= STRANGER_FIT_D2:
            fits.append((lab, other))
    others: set[str] = set()
    for number, (first, one) in enumerate(fits):
        for second, two in fits[number + 1 :]:
            if one != two and of_other_hues(first, second):
                others |= {COLOURS[one].value, COLOURS[two].value}
    return sorted(others)


def _broad(model: ColourModel) -> bool:
    """Whether a colour's model spreads wider in a and b than one colour's cubes do."""
    covariance = np.array(model.covariance)
    return float(np.sqrt(covariance[1, 1] + covariance[2, 2])) >= BROAD


def lone_cube_colour(
    pixels: NDArray[np.float64],
    means: NDArray[np.float32],
    inverses: NDArray[np.float32],
    index: int,
) -> NDArray[np.float64]:
    """The colour a lone cube region's pixels (N x 3, Lab) stand for: their median, or the
    median of their lit part (the lightest quarter) when that is lighter by what shade takes
    (SHADED_LIGHTNESS) and, of all the models, nearest the picture's own colour (`index`).

    A cube standing tilted shows a side face in shade beside its top, in view as large as
    the top or larger, darker and greyer than it: the region's median is the face's, which
    passes for black. Its lit top tells its colour."""
    median = np.median(pixels, axis=0)
    lit = np.median(pixels[pixels[:, 0] >= np.percentile(pixels[:, 0], 75)], axis=0)
    if lit[0] - median[0] < SHADED_LIGHTNESS:
        return median
    # (The lit quarter of a dark cube is mostly its edge blurred with the print: it must be
    # the picture's colour before any other.)
    d2 = distances2(lit[None, :].astype(np.float32), means, inverses)[0]
    own = int(np.argmin(d2)) == index and float(d2[index]) <= STRANGER_FIT_D2
    return lit if own else median


def check_distinct(
    models: dict[Colour, ColourModel],
    found: dict[Colour, CubeRegions],
    comparisons: dict[Colour, Comparison],
    typical: float,
    floor: FloatImage,
    offset: tuple[float, float] | None,
) -> None:
    """CalibrationError when a colour picture holds cubes that look like another colour
    (`floor`: the empty tray in Lab, view pixels; `offset`: where a cube's shadow lies from
    the cube, view pixels, when known)."""
    means = np.array([models[c].mean for c in COLOURS], np.float32)
    inverses = np.array(
        [np.linalg.inv(np.array(models[c].covariance)) for c in COLOURS], np.float32
    )
    side = float(np.sqrt(typical))
    for index, colour in enumerate(COLOURS):
        regions = found[colour]
        core, _ = cores(regions, typical, side)
        strangers: list[str] = []
        medians: list[NDArray[np.float64]] = []
        heaps: list[NDArray[np.float64]] = []
        # Heaps are looked at only for a model too broad for one colour (`several_others`).
        broad = _broad(models[colour])
        for number, area in enumerate(regions.areas, start=1):
            if area < 0.6 * typical:
                continue
            region = regions.regions == number
            inner = core & region
            if inner.sum() < 5:
                continue
            ys, xs = np.nonzero(region)
            # Only lone cubes testify alone: odd shapes are shadows, rim glints or cube heaps.
            lone = area <= 1.8 * typical and looks_single(
                np.stack([xs, ys], axis=1).astype(np.float32)
            )
            if not (lone or broad):
                continue
            # A patch of print the exposure changed is no cube of any colour, nor a shadow
            # that keeps the print's hue.
            if not unlike_floor(comparisons[colour].lab, floor, inner) or floor_in_shade(
                comparisons[colour].lab, floor, inner
            ):
                continue
            region_lab = lone_cube_colour(
                comparisons[colour].lab[inner].astype(np.float64), means, inverses, index
            )
            if not lone:
                heaps.append(region_lab)
                continue
            medians.append(region_lab)
            d2 = distances2(region_lab[None, :].astype(np.float32), means, inverses)[0]
            best = int(np.argmin(d2))
            own = float(np.sqrt(d2[index]))
            # Shading and highlights spread a colour widely: only a region clearly outside
            # its own colour and clearly inside another is a stranger.
            # A region darker than the colour's own range is a shadow or shaded side, not a
            # stranger (a darker cube among lighter ones is left to the hue test below).
            # (A darker cube of another hue, black in the blue picture, is no such shade.)
            darker = region_lab[0] < means[index][0] - 2.0 * np.sqrt(
                models[colour].covariance[0][0]
            ) and not _other_hue(region_lab, means[index].astype(np.float64), SHADED_HUE_DEGREES)
            # And a real stranger is a cube of another colour: that colour's own model, learned
            # from its own picture, explains it well.
            fits_other = d2[best] <= STRANGER_FIT_D2
            if (
                best != index
                and not darker
                and fits_other
                and own > 4.0
                and own - np.sqrt(d2[best]) > 3.0
            ):
                strangers.append(COLOURS[best].value)
        strangers += pair_strangers(medians, means, inverses, index)
        if not strangers:
            strangers = _stray_group(
                comparisons[colour], floor, regions, core, side, index, (means, inverses), offset
            )
        if not strangers and broad:
            strangers = several_others(medians + heaps, means, inverses, index)
        if strangers:
            raise CalibrationError(
                f"the {colour.value} picture holds cubes that look {', '.join(sorted(set(strangers)))}; "
                f"take it again with only {colour.value} cubes in the tray"
            )


__all__ = [
    "BROAD",
    "COLOURED_CHROMA",
    "GREY_CHROMA",
    "HUE_CHROMA",
    "MIXED_HUE_DEGREES",
    "PAIR_MARGIN",
    "SHADED_HUE_DEGREES",
    "SHADED_LIGHTNESS",
    "STRANGER_FIT_D2",
    "check_distinct",
    "lone_cube_colour",
    "of_other_hues",
    "pair_strangers",
    "several_others",
]

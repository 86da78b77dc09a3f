"""The calibration pictures counted with the profile learned from them, and what that shows.

Once the colours and the shadow are learned, each colour picture is counted once as any
picture will be (`count_own_pictures`). Cubes of two colours touching in one picture slip
past the check while learning; counting shows them, and refuses the set
(`check_counted_alike`). And the areas counting will weigh a cube by are measured the way it
will see them: each colour's cube area, the changed area of a lone cube and the unclaimed
shade beside one (`measure_areas`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour
from companion.vision.arrays import square_around
from companion.vision.colours import distances2
from companion.vision.detect import find_cubes, profile_evidence
from companion.vision.doubts import region_counts, shade_by_group
from companion.vision.errors import CalibrationError
from companion.vision.found import Found
from companion.vision.images import BGRImage, FloatImage, Mask
from companion.vision.patches import evidence_patches, patch_masses
from companion.vision.profile import Profile
from companion.vision.segment import CLIPPED, Comparison, compare
from companion.vision.shadow_model import NOT_THE_CUBE_D2
from companion.vision.strangers import STRANGER_FIT_D2, of_other_hues

# A cube that counting with the learned colours gives another colour than its picture's, this
# surely, is a stranger (see `check_counted_alike`).
STRANGER_CONFIDENCE = 0.8
# And this many of one colour on one picture's floor refuse the set (one alone can be a
# cube's shadow on a print of that colour).
STRANGERS_TO_REFUSE = 2
# A stranger's middle differs from the empty tray beneath by at least this (CIE76). In the
# calibration checks (benchmarks/calibration_checks.py, 5 seeds) the trace of an exposure
# change on vivid print, where it passed for strangers, measured 5.5-9; the stray cubes in
# those set-ups 13-31 (a brown cube on red print the least).
STRANGER_CHANGE = 11.0
# Nor is a stranger one whose middle is mostly shade (this share of it shadow-like: the
# floor darkened, its hue kept): a cube's shadow on print of a cube colour's hue passes for
# that colour (on tan print, brown), and two cubes cast two. (Calibration checks, 5 seeds:
# re-shots refused 2 -> 1, the same 104 of 165 mixed sets refused.)
SHADED_MIDDLE = 0.5
# A picture's cubes also testify against the other six colours alone: the picture's own
# model, learned with a stray among its cubes, is a blend that fits the stray nearly as well
# as the stray's own colour does, so the counted colour and its confidence cannot show it.
# A cube that another colour's model fits within STRANGER_FIT_D2 (squared Mahalanobis, 3
# sigma) is such a stray in a picture holding a cube that lies beyond ODD_ONE_APART_D2 of
# that model (9 sigma), or beyond NOT_THE_CUBE_D2 (5 sigma) with another hue.
# Measured on the counted cubes' middles (calibration checks, seeds 21, 13 and 5, with
# the clean sets of renderer seeds 0-3 and path-traced A, B and C: 368 clean sets, 32
# mixed ones that reached this check): in clean pictures a cube fitting another model
# within 3 sat beside cubes at most 5.5 from it, and none of another hue at any distance;
# in mixed ones the picture's own cubes lay 6.8-37.7 from the stray's model (20 of the 32
# caught, 19 of them by distance alone).
ODD_ONE_APART_D2 = 81.0
# Only middles this unlike the empty tray take part (94% of the 11228 cubes counted as their
# own picture's colour in the clean sets above): print that the exposure moved, counted as
# cubes at 12 and 16, fitted the red model within 3.2 beside yellow cubes 20 from it in one.
ODD_ONE_CHANGE = 20.0


# Each colour picture compared with the empty tray, and the cubes counting finds in it.
Counted = dict[Colour, tuple[Comparison, list[Found]]]


def count_own_pictures(profile: Profile, per_colour: Mapping[Colour, BGRImage]) -> Counted:
    """Each colour picture compared with the empty tray and counted with `profile`."""
    prepared = profile.prepared()
    counted: Counted = {}
    for colour in COLOURS:
        comparison = compare(profile.view.warp(per_colour[colour]), prepared.reference)
        # (The cube areas are measured from these counts: not yet known to weigh by.)
        counted[colour] = (comparison, find_cubes(comparison, profile, areas_measured=False).cubes)
    return counted


def measure_areas(profile: Profile, counted: Counted) -> Profile:
    """The profile with each colour's cube area, the changed area of a lone cube and the
    unclaimed shade beside one (the shadow's `area`), measured the way counting will see
    them: in the colour pictures, over the cubes counting finds there.

    Counting weighs each pixel's evidence (edges mix with the tray, shading fits loosely), so
    one cube is worth less evidence than the plain changed area used to learn the colours.
    A lone cube changes more than the square its colour covers: its shaded side faces and
    blurred edges too, the more so the further the camera leans from straight above.
    """
    models = dict(profile.colours)
    lone_regions: list[float] = []
    lone_shade: list[float] = []
    for index, colour in enumerate(COLOURS):
        comparison, cubes = counted[colour]
        found = [c for c in cubes if c.colour == index]
        seen = profile_evidence(comparison, profile)
        mass, count = patch_masses(evidence_patches(seen.maps[index]), found)
        # Only patches holding one cube: a miscount in a heap must not set the measure.
        lone = mass[count == 1]
        if len(lone):
            models[colour] = models[colour].model_copy(update={"cube_area": float(np.median(lone))})
        areas, holding = region_counts(cubes, seen.foreground)
        lone_regions.extend(areas[holding == 1].tolist())
        shaded, holding = shade_by_group(cubes, seen)
        lone_shade.extend(shaded[holding == 1].tolist())
    lone_area = float(np.median(lone_regions)) if lone_regions else 0.0
    update: dict[str, object] = {"colours": models, "lone_cube_area": lone_area}
    if profile.shadow is not None and lone_shade:
        # The shade beside a lone cube that no colour claims, as counting sees it (a long-
        # shadow doubt compares with it). Learning counted only the shade unlike the
        # picture's own colour, which on a print that shade resembles was a quarter of it,
        # so every reading with shadows on that print was doubted. Where the colours claim
        # nearly all of a lone cube's shade, that count stays the least: a few pixels of
        # shade would make a doubt.
        area = max(profile.shadow.area, float(np.median(lone_shade)))
        update["shadow"] = profile.shadow.model_copy(update={"area": area})
    # A fresh profile: a copy would keep the arrays prepared from the old models.
    return Profile.model_validate({**dict(profile), **update})


def check_counted_alike(profile: Profile, counted: Counted) -> None:
    """CalibrationError when counting a colour picture with the learned colours surely finds
    cubes of another colour in it.

    The check while learning (`strangers.check_distinct`) trusts only cubes lying alone; cubes
    of two colours touching in one picture slip past it and make that colour's model a blend of
    both. Counting shows it: the strangers, fitting their own colour's model better, are counted
    as that colour, or the blended model takes the other picture's cubes for its own. Only sure
    strangers on the floor count: whatever lies on the rim changes with the light between shots.
    Black is left out: shadows on a dark print read as black cubes. And only where the picture
    differs from the empty tray as much as a cube does: on vivid print near the top of the
    camera's range an exposure change leaves a trace that the per-channel level mapping cannot
    undo, and a cube-sized patch of it can fit the colour printed there (bright green print, the
    green model).

    The strays can also pass as the picture's colour, or as their own but unsure: the
    picture's model, learned with them, is a blend that fits them nearly as well. Judged
    against the other six models alone, they show (`_odd_ones_out`).
    """
    reference = profile.prepared().reference
    # Where the empty tray was at the camera's limit, a darker picture shows a colour the
    # empty one never did (a pale print turns "white"): nothing to judge there.
    floor = reference.inside & (reference.peak < CLIPPED)
    black = COLOURS.index(Colour.BLACK)
    reach = _reach(profile)
    for index, colour in enumerate(COLOURS):
        comparison, cubes = counted[colour]
        strangers = Counter(
            COLOURS[cube.colour].value
            for cube in cubes
            if cube.colour not in (index, black)
            and cube.confidence >= STRANGER_CONFIDENCE
            and floor[int(cube.y), int(cube.x)]
            and _middle_change(comparison.lab, reference.lab, cube, reach) >= STRANGER_CHANGE
            and _middle_shade(comparison, cube, reach) < SHADED_MIDDLE
        )
        others = sorted(
            other for other, number in strangers.items() if number >= STRANGERS_TO_REFUSE
        )
        if not others:
            others = _odd_ones_out(profile, comparison, cubes, index, floor)
        if others:
            named = " or ".join(others)
            raise CalibrationError(
                f"the {colour.value} picture holds cubes that look {named}: either it or the "
                f"{named} picture holds cubes of two colours; take them again with cubes of "
                "one colour in each"
            )


def _odd_ones_out(
    profile: Profile, comparison: Comparison, cubes: list[Found], index: int, floor: Mask
) -> list[str]:
    """The other colours whose models fit one of a colour picture's counted cubes within
    STRANGER_FIT_D2 while another of its cubes lies beyond ODD_ONE_APART_D2 of them, or
    beyond NOT_THE_CUBE_D2 with another hue than the fitting one (`index`: the picture's
    colour; `floor`: where the empty tray shows a colour to judge against)."""
    prepared = profile.prepared()
    reach = _reach(profile)
    middles = [
        _middle_colour(comparison.lab, c, reach)
        for c in cubes
        if floor[int(c.y), int(c.x)]
        and _middle_change(comparison.lab, prepared.reference.lab, c, reach) >= ODD_ONE_CHANGE
        and _middle_shade(comparison, c, reach) < SHADED_MIDDLE
    ]
    if len(middles) < 2:
        return []
    apart = distances2(np.array(middles, np.float32), prepared.means, prepared.inverses)
    odd: list[str] = []
    for other in range(len(COLOURS)):
        # (A clipped model's hue is off by however far the light went beyond the camera's.)
        if other == index or prepared.clipped[other]:
            continue
        fitting = np.flatnonzero(apart[:, other] <= STRANGER_FIT_D2)
        unlike = np.flatnonzero(apart[:, other] > NOT_THE_CUBE_D2)
        far = apart[:, other].max() > ODD_ONE_APART_D2
        if len(fitting) and (
            far or any(of_other_hues(middles[a], middles[b]) for a in fitting for b in unlike)
        ):
            odd.append(COLOURS[other].value)
    return odd


def _reach(profile: Profile) -> int:
    """Half the side (pixels) of the square round a cube's middle that its colour is read in."""
    return max(1, round(0.25 * profile.cube_side))


def _middle_colour(lab: FloatImage, cube: Found, reach: int) -> NDArray[np.float64]:
    """The median colour of the square `reach` pixels round a found cube's middle (`lab`: a
    view in Lab)."""
    square = square_around(round(cube.x), round(cube.y), reach)
    return np.median(lab[square], axis=(0, 1)).astype(np.float64)


def _middle_change(lab: FloatImage, empty: FloatImage, cube: Found, reach: int) -> float:
    """How far (CIE76) the colour of the square `reach` pixels round a found cube's middle
    lies from the empty tray's there (`lab` and `empty`: the views in Lab)."""
    change = _middle_colour(lab, cube, reach) - _middle_colour(empty, cube, reach)
    return float(np.linalg.norm(change))


def _middle_shade(comparison: Comparison, cube: Found, reach: int) -> float:
    """The share of the square `reach` pixels round a found cube's middle that looks like
    shade (see `Comparison.shadow_like`)."""
    square = square_around(round(cube.x), round(cube.y), reach)
    return float(comparison.shadow_like[square].mean())


__all__ = [
    "ODD_ONE_APART_D2",
    "ODD_ONE_CHANGE",
    "SHADED_MIDDLE",
    "STRANGERS_TO_REFUSE",
    "STRANGER_CHANGE",
    "STRANGER_CONFIDENCE",
    "Counted",
    "check_counted_alike",
    "count_own_pictures",
    "measure_areas",
]

"""Learning a camera set-up from an empty-tray picture and one picture per cube colour.

This module holds `calibrate`, which runs the steps in order, and `_learn`, one pass of learning
in a given view; the steps live in modules of their own. The cube's side, which sets the view's
scale, is measured in cube_side; a colour picture's changed regions are told apart into cube and
shadow in cube_regions; what the set-up itself changes between shots (the unstable pixels, the
local noise) is learned in setup_noise; each colour's model comes from colour_models, the check
that no picture holds cubes of another colour from strangers, and the set-up's shadow from
shadow_model. Last, counted_pictures counts the pictures with the learned profile, refuses a set
whose pictures count as holding strangers, and measures the areas counting weighs cubes by.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from companion.core.cubes import COLOURS, Colour
from companion.vision.agreed_outline import agreed_outline
from companion.vision.arrays import grown
from companion.vision.colour_marks import check_apart, check_marks
from companion.vision.colour_models import colour_model
from companion.vision.corners import Corners, whole_picture
from companion.vision.counted_pictures import check_counted_alike, count_own_pictures, measure_areas
from companion.vision.cube_regions import (
    CubeRegions,
    cube_area,
    cube_regions,
    plausible,
    smallest_cube,
)
from companion.vision.cube_side import footprint_side, measure_side
from companion.vision.debug import DebugSink, no_debug
from companion.vision.errors import CalibrationError
from companion.vision.images import BGRImage
from companion.vision.lined_up_set import lined_up_set
from companion.vision.profile import ColourModel, Profile, encode_noise_map, encode_png
from companion.vision.segment import Comparison, Reference, compare
from companion.vision.setup_noise import COVER_REACH, quiet_differences, unstable_pixels
from companion.vision.shadow_model import shadow_model
from companion.vision.strangers import check_distinct
from companion.vision.tray import find_tray
from companion.vision.tray_view import TrayView, view_for

# The view is scaled so a cube's side spans about this many pixels: enough to tell shapes
# and colours apart, small enough to count an 800x600 picture in a few milliseconds.
TARGET_SIDE = 11.0
# A view never grows beyond the input picture, nor beyond this size (pixels).
MAX_VIEW = 900
# The view is learned again when the cubes' own size differs from TARGET_SIDE by more than this.
RESCALE_BEYOND = 0.12


def calibrate(
    empty: BGRImage,
    per_colour: Mapping[Colour, BGRImage],
    *,
    corners: Corners | None = None,
    debug: DebugSink = no_debug,
) -> Profile:
    """A profile for the camera set-up these pictures come from.

    `empty` shows the empty tray; `per_colour` holds one picture for each of the seven colours,
    each showing only cubes of that colour (any number, at least one). `corners` is the tray
    floor's outline in picture pixels when it is already known (shown by hand, or moved on
    purpose by a benchmark); without it the outline is the empty tray's, unless most of the
    pictures show another (`agreed_outline`). Pictures that show the tray elsewhere than the
    last colour picture (white) are first lined up with it (`lined_up_set`), and the profile
    names them; `corners`, like the outline found, lie where the empty tray's picture shows
    them and move with it. Raises CalibrationError with a message naming the problem picture
    when the set is unusable.
    """
    missing = [c.value for c in COLOURS if c not in per_colour]
    if missing:
        raise CalibrationError(f"no calibration picture for {', '.join(missing)}")
    height, width = empty.shape[:2]
    for colour, picture in per_colour.items():
        if picture.shape[:2] != (height, width):
            h, w = picture.shape[:2]
            raise CalibrationError(
                f"the {colour.value} picture is {w}x{h} pixels but the empty tray is "
                f"{width}x{height}; take all pictures with the same camera set-up"
            )
    first_scale = min(1.0, MAX_VIEW / max(width, height))
    # The pictures are lined up first, in the view of the empty tray's outline, so that the
    # outline they agree on is found where all of them show the tray.
    given = corners is not None
    own = corners if given else find_tray(empty)
    view = view_for(whole_picture(width, height) if own is None else own, first_scale)
    lined_up = lined_up_set(empty, per_colour, view)
    empty, per_colour = lined_up.empty, lined_up.per_colour
    own = None if own is None else lined_up.outline(own)
    others = [per_colour[colour] for colour in COLOURS]
    corners = own if given else agreed_outline(own, others)
    tray_found = corners is not None
    if corners is None:
        corners = whole_picture(width, height)
    # First pass at native scale: only to measure the cube size.
    side = measure_side(empty, per_colour, view_for(corners, first_scale))
    scale = first_scale * min(1.0, TARGET_SIDE / side)
    profile = _learn(empty, per_colour, view_for(corners, scale), tray_found, debug)
    # The changed regions that gave the first side include the side faces and the shadow
    # (1.1 to 2.6 times a cube's top, depending on the light). The colour models now tell
    # cube from shadow: measure again on the cubes alone, and learn again at the view size
    # that gives them TARGET_SIDE pixels.
    cube = footprint_side(profile, per_colour)
    if cube is not None and abs(cube / TARGET_SIDE - 1.0) > RESCALE_BEYOND and scale < 1.0:
        scale = min(1.0, scale * TARGET_SIDE / cube)
        profile = _learn(empty, per_colour, view_for(corners, scale), tray_found, debug)
        cube = footprint_side(profile, per_colour)
    # The colours are learned again from the cubes alone, now that the shadow's offset says
    # which part of a changed region is the shadow. The side stays as the first colours
    # measured it: measured again with these, path-traced sets A, B and C read 10 more
    # passes right of 1600 but 3 more rendered tests wrong (benchmarks/pathtraced/README.md).
    if profile.shadow is not None and any(profile.shadow.offset):
        offset = profile.shadow.offset
        profile = _learn(empty, per_colour, profile.view, tray_found, debug, offset)
    if cube is not None:
        profile = Profile.model_validate({**dict(profile), "cube_side": cube})
    check_apart(profile.colours)
    check_marks(profile.colours)
    # Each colour picture counted once with the learned colours: the cubes found do not
    # depend on the areas measured from them.
    counted = count_own_pictures(profile, per_colour)
    check_counted_alike(profile, counted)
    measured = measure_areas(profile, counted)
    return Profile.model_validate({**dict(measured), "moved_pictures": lined_up.moved})


def _learn(
    empty: BGRImage,
    per_colour: Mapping[Colour, BGRImage],
    view: TrayView,
    tray_found: bool,
    debug: DebugSink,
    offset: tuple[float, float] | None = None,
) -> Profile:
    """Colour models and cube areas in the final view; given the shadow's `offset`, learned
    from the cubes without the shadows they cast."""
    empty_view = view.warp(empty)
    debug("empty-view", empty_view)
    views = {colour: view.warp(per_colour[colour]) for colour in COLOURS}
    unstable = unstable_pixels(views, Reference.prepare(empty_view, view.tray_mask(), TARGET_SIDE))
    debug("unstable", unstable)
    first = Reference.prepare(empty_view, view.tray_mask(), TARGET_SIDE, unstable=unstable)
    found: dict[Colour, CubeRegions] = {}
    comparisons: dict[Colour, Comparison] = {}
    noise: list[float] = []
    all_areas: list[float] = []
    all_singles: list[float] = []
    minimum = max(smallest_cube(view), (TARGET_SIDE * 0.4) ** 2)
    for colour in COLOURS:
        picture_view = views[colour]
        comparison = compare(picture_view, first)
        noise.append(float(np.median(comparison.difference[first.inside])))
        regions = cube_regions(comparison, first, offset)
        found[colour] = regions
        comparisons[colour] = comparison
        debug(f"{colour.value}-regions", regions.mask)
        all_areas.extend(plausible(regions.areas, minimum))
        all_singles.extend(plausible(regions.singles, minimum))
    if not all_areas:
        raise CalibrationError("no cubes found in any colour picture; check the pictures")
    # Within half a cube of the walls every picture still counts: the shade the calibration
    # cubes threw on the walls' faces, cubes lying against them throw again, and it is
    # better taken for noise there than for dark cubes (`tests/vision/test_pathtraced.py`).
    floor = ~grown(~view.tray_mask(), 0.5 * TARGET_SIDE)
    local_noise = quiet_differences(
        [comparisons[c].difference for c in COLOURS],
        [grown(found[c].mask, COVER_REACH) & floor for c in COLOURS],
    )
    typical = float(np.median(all_singles)) if len(all_singles) >= 3 else cube_area(all_areas)
    side = float(np.sqrt(typical))
    models: dict[Colour, ColourModel] = {}
    for colour in COLOURS:
        models[colour] = colour_model(colour, found[colour], comparisons[colour], typical, side)
    shadow = shadow_model(models, comparisons, first)
    # Where the shadows fall tells a cube's shadow cast clear of it from a dark stray cube.
    check_distinct(
        models, found, comparisons, typical, first.lab, None if shadow is None else shadow.offset
    )
    provisional = Profile(
        picture_width=empty.shape[1],
        picture_height=empty.shape[0],
        tray_found=tray_found,
        tray_corners=view.corners,
        view_width=view.width,
        view_height=view.height,
        cube_side=side,
        noise=float(np.median(noise)),
        empty_view_png=encode_png(empty_view),
        unstable_png=encode_png(unstable.astype(np.uint8) * 255),
        noise_map_png=encode_noise_map(local_noise),
        colours=models,
        shadow=shadow,
    )
    return provisional

"""`read_tray`: one picture and a profile in, a TrayReading out.

The picture is warped to the top-down tray view (lined up again when the camera or the tray
moved since calibration: `realign`), its light matched to the empty tray's
(`segment.compare`), the cubes found one by one (`detect.find_cubes`) and mapped back to
picture pixels. Anything that makes the count doubtful is said in `reasons`, and then the
reading is not confident. A closer look round the cubes with something beside them counts a
cube lying under one that shows as a strip (`sliver.counted_slivers`), in doubt. A reading
about to be given as sure is not, when two of its cubes touch (one more may lie hidden
under them: `cubes_touch`) or the floor nearer its cubes than counting looks shows a faint
outline (`faint.faint_outline_near`); otherwise it first gets that look round every cube,
for a sliver of any width (`sliver.hidden_slivers`).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Colour, Counts
from companion.vision import reasons as doubt
from companion.vision.annotate import annotate as draw
from companion.vision.arrays import regions
from companion.vision.debug import DebugSink, no_debug
from companion.vision.detect import find_cubes
from companion.vision.errors import ImageError
from companion.vision.faint import faint_outline_near
from companion.vision.images import BGRImage
from companion.vision.profile import Profile
from companion.vision.reading import CONFIDENT_AT, CubeSighting, TrayReading, unsure
from companion.vision.realign import lined_up_view
from companion.vision.segment import Comparison, Reference, compare
from companion.vision.sliver import (
    COUNT_OFF_MIX,
    Sliver,
    changed_beside,
    counted_slivers,
    hidden_slivers,
    side_faces,
    slivers_round,
)
from companion.vision.tray_view import VIEW_MARGIN

# Mean brightness (0..255) below which a picture is too dark to read.
TOO_DARK = 18.0
# Share of the tray that must still look like the empty tray, or the set-up has changed...
MIN_MATCHING = 0.55
# ... unless this share of the view round the floor still does: the set-up drop's 30 to 49
# cubes can cover more of the floor than that. Measured on rendered pictures (13 seeds): of
# the set-up drops under MIN_MATCHING, 40 of 42 kept 0.60-0.99 of the surround; pictures of
# something else under MIN_MATCHING (and not refused for their structure) kept at most 0.40.
# (A hand over most of the floor keeps the surround too: 6 of the 380 rendered pictures
# with a hand, once refused as no tray, are now read, in doubt, as a smaller hand was.)
MIN_SURROUND = 0.5
# The picture's brightness pattern must correlate this well with the empty tray's.
MIN_STRUCTURE = 0.3
# Whatever covers the floor, the tray's walls, rim and the table round them still look as
# at calibration over at least this share, unless the camera sees something else: on
# rendered pictures (seeds 0 and 1, every condition, 840 pictures) trays kept 0.47 of it
# or more (a hand over the rim), but for one knocked camera the realignment missed (0.05,
# read wrong); pictures of something else kept 0-0.27 in 52 of 60, and one of them, whose
# middle is a plain colour like the floor's, was read as 30 cubes.
MIN_SURROUND_ALONE = 0.2
# Per-channel light factors beyond these mean the room's light is no longer the calibrated one.
GAIN_LIMITS = (0.4, 2.5)
# A change at the view's edge counts when it exceeds the calibration shots' differences there
# this many times and covers this share of a cube's side along the edge ring.
EDGE_NOISE_FACTOR = 3.0
EDGE_CUBES = 0.5
# A colour the floor looks like over this share of the tray (`camouflage`) hides its cubes
# wherever they lie: a reading that found some may have missed one more. On rendered trays
# (13 seeds) this made 3 of the 11 confident wrong readings unsure, and 9 of 987 right ones.
HIDING_SHARE = 0.5
# A cube seen only as a strip beside another is counted at this confidence (in doubt).
STRIP_CONFIDENCE = 0.3
# Two found cubes whose centres lie closer than this many cube sides touch. Cubes that touch
# fell together, and a drop that piles cubes up may have stacked one out of sight: such a
# reading is not given as sure. (On rendered trays, 17 seeds: of the 1280 readings otherwise
# given as sure, this made 4 of the 5 wrong ones unsure, each missing a cube that lay under
# another, though not always under the two that touch; and 242 of the 1275 right ones.
# Closer than 1.0 side: 3 wrong, 145 right. Of all 5590 pictures, those with two cubes' true
# centres within 1.3 true sides were read exactly in 66% of cases, the others in 92%.
# Letting one pair through when it changes and shades no more than two lone cubes gave, on
# seeds 0-8, 305 sure readings rather than 246 and one of them wrong: a cube under the pair
# that changed too little to see. benchmarks/pathtraced/README.md, twenty-seventh session.)
TOUCHING = 1.2


def check_size(image: BGRImage, profile: Profile) -> None:
    """ImageError when the picture's size differs from the profile's calibration pictures."""
    height, width = image.shape[:2]
    if (width, height) != (profile.picture_width, profile.picture_height):
        raise ImageError(
            f"picture is {width}x{height} pixels but the profile was calibrated with "
            f"{profile.picture_width}x{profile.picture_height} pictures; use the same camera "
            "set-up or calibrate again"
        )


def read_tray(
    image: BGRImage,
    profile: Profile,
    *,
    annotate: bool = False,
    debug: DebugSink = no_debug,
) -> TrayReading:
    """Count the cubes in a picture taken with the profile's camera set-up.

    Raises ImageError only for a picture of another size; everything else that makes the
    picture hard to read gives a reading with `confident` False and the reasons.
    """
    check_size(image, profile)
    # Every fourth row tells the brightness as well as all of them (whole rows: OpenCV would
    # first copy a sample strided along the row too).
    if float(np.mean(cv2.mean(image[::4])[:3])) < TOO_DARK:
        return unsure(
            [doubt.TOO_DARK],
            image.copy() if annotate else None,
        )
    prepared = profile.prepared()
    tray_view = profile.view
    view = tray_view.warp(image)
    comparison = compare(view, prepared.reference)
    at_edge = change_at_view_edge(comparison, profile)
    moved = None
    # A camera or tray moved since calibration changes the view's edge (the rim moved) or
    # loses the tray; only then is the move measured (about 4 ms).
    if at_edge or _tray_lost(comparison, prepared.reference):
        moved = lined_up_view(
            view, prepared.empty_grey, prepared.empty_small, tray_view, profile.cube_side
        )
    if moved is not None:
        tray_view = moved
        view = tray_view.warp(image)
        comparison = compare(view, prepared.reference)
        # The rim and walls still show the move (they stand up from the floor it was undone
        # on), so the view's edge differs from calibration whatever lies there.
        at_edge = False
    debug("view", view)
    debug("difference", comparison.difference)
    debug("shadow-like", comparison.shadow_like)
    if _tray_lost(comparison, prepared.reference):
        lost = [doubt.TRAY_LOST]
        return unsure(lost, _annotated(image, [], profile, False, lost) if annotate else None)
    reasons: list[str] = []
    if moved is not None:
        reasons.append(doubt.MOVED)
    low, high = GAIN_LIMITS
    if max(comparison.gains) > high or min(comparison.gains) < low:
        reasons.append(doubt.LIGHT_CHANGED)
    if at_edge:
        reasons.append(doubt.AT_EDGE)
    detection = find_cubes(comparison, profile, debug, picture=(image, tray_view))
    reasons.extend(detection.doubts)
    found = [(c.colour, c.x, c.y) for c in detection.cubes]
    # A closer look round the cubes with something beside them that is no blend of theirs
    # with the floor, for cubes lying under them that show only as a strip (about 1 ms a
    # cube looked round).
    beside = changed_beside(
        detection.foreground,
        comparison.lab,
        prepared.reference.lab,
        prepared.means,
        found,
        profile.cube_side,
    )
    slivers = slivers_round(image, tray_view, comparison, prepared, found, beside, COUNT_OFF_MIX)
    if prepared.overhead is not None:
        faces = side_faces(slivers, found, prepared.means, prepared.overhead, profile.cube_side)
        slivers = [s for s, face in zip(slivers, faces, strict=True) if not face]
    under = _strips_to_count(slivers, found, profile.cube_side)
    for strip in under:
        reasons.append(doubt.SEEN_AS_STRIP.format(colour=COLOURS[strip.colour].value))
    seen = [(c.colour, c.x, c.y, c.confidence) for c in detection.cubes]
    seen += [(s.colour, s.x, s.y, STRIP_CONFIDENCE) for s in under]
    centres = np.array([[x, y] for _, x, y, _ in seen], np.float64).reshape(-1, 2)
    points = tray_view.to_picture(centres)
    cubes = [
        CubeSighting(COLOURS[colour], float(p[0]), float(p[1]), sure)
        for (colour, _, _, sure), p in zip(seen, points, strict=True)
    ]
    counts = Counts.of({colour: sum(1 for c in cubes if c.colour == colour) for colour in COLOURS})
    # (Only when some were found: cubes of a colour come into the tray together. Doubting
    # every reading of the set-up caught no more wrong ones and lost 73 right, not 9.)
    for index, colour in enumerate(COLOURS):
        if counts[colour] and prepared.hiding[index] >= HIDING_SHARE:
            reasons.append(doubt.HIDING_PRINT.format(colour=colour.value))
    confidence = min([c.confidence for c in cubes] + [1.0])
    if confidence < CONFIDENT_AT and not reasons:
        reasons.append(doubt.UNCERTAIN)
    if not reasons and cubes_touch(found, profile.cube_side):
        reasons.append(doubt.TOUCHING)
    if not reasons and faint_outline_near(comparison, profile, detection.cubes):
        reasons.append(doubt.MAYBE_CUBE)
    if not reasons:
        # A reading about to be given as sure gets the closer look round every cube, and
        # even a narrow sliver makes it unsure.
        for index in hidden_slivers(image, tray_view, comparison, prepared, found):
            reasons.append(doubt.HIDDEN_BESIDE.format(colour=COLOURS[index].value))
    reasons = list(dict.fromkeys(reasons))
    if reasons:
        confidence = min(confidence, CONFIDENT_AT - 0.1)
    confident = confidence >= CONFIDENT_AT and not reasons
    picture = _annotated(image, cubes, profile, confident, reasons) if annotate else None
    return TrayReading(counts, cubes, confidence, confident, reasons, picture)


def cubes_touch(found: list[tuple[int, float, float]], cube_side: float) -> bool:
    """Whether any two of the `found` cubes (colour index, x, y in view pixels) lie against
    each other: their centres closer than TOUCHING cube sides."""
    if len(found) < 2:
        return False
    centres = np.array([[x, y] for _, x, y in found], np.float64)
    apart = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    np.fill_diagonal(apart, np.inf)
    return bool(apart.min() < TOUCHING * cube_side)


def _strips_to_count(
    slivers: list[Sliver], found: list[tuple[int, float, float]], cube_side: float
) -> list[Sliver]:
    """The slivers to count as cubes (`sliver.counted_slivers`), as long as their colour
    stays within the cubes one colour has."""
    counts = [sum(1 for colour, _, _ in found if colour == index) for index in range(len(COLOURS))]
    chosen = []
    for strip in counted_slivers(slivers, cube_side):
        if counts[strip.colour] < CUBES_PER_COLOUR:
            counts[strip.colour] += 1
            chosen.append(strip)
    return chosen


def _tray_lost(comparison: Comparison, reference: Reference) -> bool:
    """Whether the picture no longer looks like the calibrated tray (`reference`): neither
    the floor nor what lies round it (a full tray covers its floor, not its walls and rim),
    hardly anything round the floor, or its brightness pattern is another."""
    covered = comparison.matching < MIN_MATCHING and comparison.surround < MIN_SURROUND
    # (A view that is all floor, the tray's outline not found, has nothing round it.)
    gone = reference.surround_sample.size > 0 and comparison.surround < MIN_SURROUND_ALONE
    return covered or gone or comparison.structure < MIN_STRUCTURE


def change_at_view_edge(comparison: Comparison, profile: Profile) -> bool:
    """Whether a cube-sized change touches the view's outer edge.

    The view keeps a margin around the floor for cubes against the walls; something that
    reaches its very edge may lie partly outside what is counted (a cube on the rim, or a
    tray outline found too small). The rim flickers between shots, so this asks for a change
    well above what calibration saw there, unstable pixels included.
    """
    prepared = profile.prepared()
    edge = prepared.edge
    limit: NDArray[np.float32] | float = comparison.threshold
    if prepared.reference.local_noise is not None:
        limit = np.maximum(limit, EDGE_NOISE_FACTOR * prepared.reference.local_noise.ravel()[edge])
    strong = (comparison.difference.ravel()[edge] > limit) & ~comparison.shadow_like.ravel()[edge]
    needed = EDGE_CUBES * profile.cube_side * prepared.edge_width
    if float(strong.sum()) < needed:
        return False
    # A cube there changes one compact patch of the band; grain or print outside the tray
    # under a slightly different light scatters single pixels all along it.
    band = np.zeros(comparison.difference.shape, np.uint8)
    band.ravel()[edge[strong]] = 1
    n, _, stats, _ = regions(band, 8)
    return n > 1 and float(stats[1:, cv2.CC_STAT_AREA].max()) >= needed


def _annotated(
    image: BGRImage,
    cubes: list[CubeSighting],
    profile: Profile,
    confident: bool,
    reasons: list[str],
) -> BGRImage:
    """The annotated picture for a reading."""
    counts: dict[Colour, int] = {c: sum(1 for s in cubes if s.colour == c) for c in COLOURS}
    corners = np.array(profile.tray_corners)
    # Roughly how many picture pixels one view pixel spans (the view adds a margin all round).
    floor_width = profile.view_width * (1.0 - 2.0 * VIEW_MARGIN)
    per_view = float(np.linalg.norm(corners[1] - corners[0])) / floor_width
    return draw(image, cubes, counts, profile.cube_side * per_view * 0.6, confident, reasons)


__all__ = ["change_at_view_edge", "check_size", "cubes_touch", "read_tray"]

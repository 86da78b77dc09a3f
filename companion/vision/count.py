"""`read_tray`: one picture and a profile in, a TrayReading out."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Colour, Counts
from companion.vision.annotate import annotate as draw
from companion.vision.blobs import Blob, find_blobs
from companion.vision.colours import UNKNOWN, classify, vote
from companion.vision.debug import DebugSink, no_debug
from companion.vision.errors import ImageError
from companion.vision.images import BGRImage, Mask
from companion.vision.profile import Profile
from companion.vision.reading import CONFIDENT_AT, CubeSighting, TrayReading, unsure
from companion.vision.segment import Comparison, compare

# Mean brightness (0..255) below which a picture is too dark to read.
TOO_DARK = 18.0
# Share of the tray that must still look like the empty tray, or the set-up has changed.
MIN_MATCHING = 0.55
# The picture's brightness pattern must correlate this well with the empty tray's.
MIN_STRUCTURE = 0.3
# Shadow-like pixels count as cube only when a colour model explains them this well.
SHADOW_KEEP_D2 = 9.0
# ... and only a colour at least this much darker (L) than the empty floor beneath.
DARKER_THAN_FLOOR = 8.0
# A shadow-like patch with no cube beside it, at least this many cubes' area, is reported.
LONE_SHADOW_CUBES = 0.5
# A patch beside a cube is suspicious when this share of it fits a cube colour this loosely.
COLOURISH_D2 = 16.0
COLOURISH_SHARE = 0.35
# Label of dark patches set aside as shadow with nothing beside them to cast it.
DARK = UNKNOWN + 1
# A patch of one clear colour, this share of a cube, outvoted by its neighbours' colour.
OUTVOTED_CUBES = 0.08
# A change at the view's edge counts when it exceeds the calibration shots' differences there
# this many times and covers this share of a cube's side along the edge ring.
EDGE_NOISE_FACTOR = 3.0
EDGE_CUBES = 0.5
# An unexplained region of this many cubes' area, or reaching over the rim, is a hand.
HAND_CUBES = 3.0


def check_size(image: BGRImage, profile: Profile) -> None:
    """ImageError when the picture's size differs from the profile's calibration pictures."""
    height, width = image.shape[:2]
    if (width, height) != (profile.picture_width, profile.picture_height):
        raise ImageError(
            f"picture is {width}x{height} pixels but the profile was calibrated with "
            f"{profile.picture_width}x{profile.picture_height} pictures; use the same camera "
            "set-up or calibrate again"
        )


def foreground(
    changed: Mask, shadow_like: Mask, lab: NDArray[np.float32], profile: Profile
) -> tuple[Mask, NDArray[np.int8], Mask]:
    """Pixels that belong to cubes or other objects (shadows removed), their raw labels, and
    the changed pixels a cube colour explains at least loosely."""
    prepared = profile.prepared()
    kernel = np.ones((3, 3), np.uint8)
    opened = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, kernel).astype(np.bool_)
    labels, d2 = classify(lab, opened, prepared.means, prepared.inverses)
    best = d2.min(axis=1) if len(d2) else np.zeros(0, np.float32)
    # A shadow-like pixel may still be a dark cube on a floor of its own hue, but only a
    # colour darker than the floor there can darken it: a white cube never looks like a
    # shadow on a orange floor, however grey the room's light makes that shadow.
    floor_lightness = prepared.reference.lab[:, :, 0][opened]
    best_index = np.argmin(d2, axis=1) if len(d2) else np.zeros(0, np.int64)
    darker_colour = prepared.means[best_index, 0] < floor_lightness - DARKER_THAN_FLOOR
    keep = np.zeros_like(opened)
    keep[opened] = (~shadow_like[opened]) | ((best <= SHADOW_KEEP_D2) & darker_colour)
    keep = cv2.morphologyEx(keep.astype(np.uint8), cv2.MORPH_OPEN, kernel).astype(np.bool_)
    labels[~keep] = -1
    colourish = np.zeros_like(opened)
    colourish[opened] = best <= COLOURISH_D2
    return keep, labels, colourish


def _lone_shadows(dropped: Mask, kept: Mask, colourish: Mask, profile: Profile) -> Mask:
    """Cube-sized dark regions set aside as shadow that may be a cube after all.

    A shadow lies next to the cube that casts it; a dark patch on its own is more likely a
    dark cube whose colour the models miss, and so is a patch beside a cube whose pixels a
    cube colour explains (a brown cube on an olive tray only looks darker). Such patches
    make the reading unsure.
    """
    result: Mask = np.zeros_like(dropped)
    smallest = LONE_SHADOW_CUBES * profile.cube_side**2
    if dropped.sum() < smallest:
        return result
    # Work in the box around everything changed: much faster than the whole view.
    both = dropped | kept
    rows, cols = np.flatnonzero(both.any(axis=1)), np.flatnonzero(both.any(axis=0))
    box = (slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1))
    dropped, kept, colourish = dropped[box], kept[box], colourish[box]
    n, regions, stats, _ = cv2.connectedComponentsWithStats(
        dropped.astype(np.uint8), connectivity=8
    )
    # Only a real object casts a shadow: specks of kept pixels do not count as neighbours.
    k, pieces, sizes, _ = cv2.connectedComponentsWithStats(kept.astype(np.uint8), connectivity=8)
    big = [i for i in range(1, k) if sizes[i, cv2.CC_STAT_AREA] >= 0.3 * profile.cube_side**2]
    casters = np.isin(pieces, big).astype(np.uint8)
    reach = max(3, round(profile.cube_side * 0.4)) | 1
    near = cv2.dilate(casters, np.ones((reach, reach), np.uint8)).astype(np.bool_)
    touching = set(np.unique(regions[near & dropped]).tolist())
    big_enough = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= smallest]
    lone = [
        i
        for i in big_enough
        if i not in touching or colourish[regions == i].mean() >= COLOURISH_SHARE
    ]
    result[box] = np.isin(regions, lone)
    return result


def analyse(comparison: Comparison, profile: Profile, debug: DebugSink = no_debug) -> list[Blob]:
    """The labelled regions of a view compared with the empty tray, each counted."""
    prepared = profile.prepared()
    debug("difference", comparison.difference)
    debug("shadow-like", comparison.shadow_like)
    mask, raw, colourish = foreground(
        comparison.changed, comparison.shadow_like, comparison.lab, profile
    )
    debug("foreground", mask)
    lone = _lone_shadows(comparison.changed & ~mask, mask, colourish, profile)
    lone &= prepared.reference.inside
    window = max(3, round(profile.cube_side * 0.5))
    labels = vote(raw, mask, window)
    debug("labels", ((labels.astype(np.int16) + 1) * 28).astype(np.uint8))
    hidden = _outvoted(raw, labels, profile)
    dark = (
        [_dark_patch(lone, profile)]
        if lone.sum() >= LONE_SHADOW_CUBES * profile.cube_side**2
        else []
    )
    return (
        hidden
        + dark
        + find_blobs(
            labels,
            comparison.lab,
            comparison.shadow_like,
            prepared.reference.inside,
            prepared.means,
            prepared.inverses,
            prepared.areas,
            prepared.reference.lab,
        )
    )


def _outvoted(raw: NDArray[np.int8], voted: NDArray[np.int8], profile: Profile) -> list[Blob]:
    """Doubts for patches of one clear colour that the neighbours' vote gave another colour.

    The vote cleans cube edges, but it also swallows a cube that peeks out from under
    another (a red sliver beside a brown cube lying on it): such a patch, wider than an edge
    fringe, makes the reading unsure. Counted as nothing, reported as a hidden cube.
    """
    found: list[Blob] = []
    kernel = np.ones((2, 2), np.uint8)
    smallest = OUTVOTED_CUBES * profile.cube_side**2
    for index in range(len(COLOURS)):
        lost = ((raw == index) & (voted != index) & (voted >= 0)).astype(np.uint8)
        if lost.sum() < smallest:
            continue
        # An edge fringe is a line one pixel wide: a 2 x 2 opening removes it, a sliver stays.
        lost = cv2.morphologyEx(lost, cv2.MORPH_OPEN, kernel)
        n, _, stats, centroids = cv2.connectedComponentsWithStats(lost, connectivity=8)
        for region in range(1, n):
            area = float(stats[region, cv2.CC_STAT_AREA])
            if area >= smallest:
                centre = centroids[region : region + 1].astype(np.float64)
                found.append(
                    Blob(
                        index,
                        area,
                        area / profile.cube_side**2,
                        0,
                        centre,
                        0.0,
                        1.0,
                        index,
                        0.0,
                        False,
                    )
                )
    return found


def _dark_patch(lone: Mask, profile: Profile) -> Blob:
    """A region for dark patches no cube explains (reported as a doubt, never counted)."""
    ys, xs = np.nonzero(lone)
    centre = np.array([[xs.mean(), ys.mean()]], np.float64)
    cubes = float(lone.sum()) / profile.cube_side**2
    return Blob(DARK, float(lone.sum()), cubes, 0, centre, 0.0, 0.0, UNKNOWN, 1.0, False)


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
    brightness = float(np.mean(cv2.mean(image)[:3]))
    if brightness < TOO_DARK:
        return unsure(
            ["picture too dark (is the light on and the lens uncovered?)"],
            image.copy() if annotate else None,
        )
    warped = profile.view.warp(image)
    debug("view", warped)
    comparison = compare(warped, profile.prepared().reference)
    reasons: list[str] = []
    if comparison.matching < MIN_MATCHING or comparison.structure < MIN_STRUCTURE:
        reasons.append("tray not found: the picture does not look like the calibrated tray")
        return unsure(reasons, _annotated(image, [], profile, False, reasons) if annotate else None)
    gains = comparison.gains
    if max(gains) > 2.5 or min(gains) < 0.4:
        reasons.append("the light differs a lot from calibration; calibrate again")
    if _change_at_view_edge(comparison, profile):
        reasons.append(
            "something lies at the edge of the tray's view: a cube on the rim or beyond it"
        )
    blobs = analyse(comparison, profile, debug)
    cubes = _sightings(blobs, profile)
    counts = Counts.of({colour: sum(1 for c in cubes if c.colour == colour) for colour in COLOURS})
    reasons.extend(_doubts(blobs, counts))
    confidence = min([c.confidence for c in cubes] + [1.0])
    if confidence < CONFIDENT_AT and not reasons:
        reasons.append("a cube's colour or size is uncertain")
    if reasons:
        confidence = min(confidence, CONFIDENT_AT - 0.1)
    confident = confidence >= CONFIDENT_AT and not reasons
    reasons = _unique(reasons)
    picture = _annotated(image, cubes, profile, confident, reasons) if annotate else None
    return TrayReading(counts, cubes, confidence, confident, reasons, picture)


def _change_at_view_edge(comparison: Comparison, profile: Profile) -> bool:
    """Whether a cube-sized change touches the view's outer edge.

    The view keeps a margin around the floor for cubes against the walls; something that
    reaches its very edge may lie partly outside what is counted (a cube on the rim, or a
    tray outline found too small). The rim flickers between shots, so this asks for a change
    well above what calibration saw there, unstable pixels included.
    """
    reference = profile.prepared().reference
    limit = np.float32(max(comparison.threshold, 0.0))
    if reference.local_noise is not None:
        limit = np.maximum(limit, EDGE_NOISE_FACTOR * reference.local_noise)
    strong = (comparison.difference > limit) & ~comparison.shadow_like
    width = max(2, round(profile.cube_side * 0.3))
    ring = np.ones_like(strong)
    ring[width:-width, width:-width] = False
    return float((strong & ring).sum()) >= EDGE_CUBES * profile.cube_side * width


def _sightings(blobs: list[Blob], profile: Profile) -> list[CubeSighting]:
    """Cubes in picture pixels, each with the confidence of the region it came from."""
    view = profile.view
    cubes: list[CubeSighting] = []
    for blob in blobs:
        if blob.label >= UNKNOWN or blob.count == 0 or blob.tray_like:
            continue
        # Cubes in the margin count too: the floor's outline is found a little inside the
        # walls, and a cube against the rim is still in the tray.
        points = view.to_picture(blob.centres)
        confidence = min(blob.size_confidence, blob.colour_confidence)
        for x, y in points:
            cubes.append(CubeSighting(COLOURS[blob.label], float(x), float(y), confidence))
    return cubes


def _doubts(blobs: list[Blob], counts: Counts) -> list[str]:
    """Why the reading may be wrong, in words a player understands."""
    reasons: list[str] = []
    for blob in blobs:
        if blob.label == DARK:
            reasons.append("a dark patch that may be a cube or a shadow")
            continue
        if blob.label == UNKNOWN:
            if blob.cubes >= HAND_CUBES and (blob.touches_margin or blob.cubes >= 2 * HAND_CUBES):
                reasons.append("hand in the picture")
            elif blob.cubes >= 0.5:
                reasons.append("something that is not a cube")
            continue
        colour = COLOURS[blob.label]
        if blob.tray_like:
            reasons.append("the light changed on part of the tray")
            continue
        if blob.count == 0:
            reasons.append(f"a {colour.value} cube may be hidden under others")
            continue
        if blob.size_confidence < 0.5:
            if blob.cubes > blob.count:
                reasons.append(
                    f"{colour.value} cubes may be merged (count {blob.count}, area of {blob.cubes:.1f})"
                )
            else:
                reasons.append(f"a {colour.value} cube may be partly hidden or not a cube")
        if blob.colour_confidence < 0.5:
            other = COLOURS[blob.runner_up] if blob.runner_up < len(COLOURS) else colour
            reasons.append(f"colour between {colour.value} and {other.value}")
    for colour, n in counts.items():
        if n > CUBES_PER_COLOUR:
            reasons.append(f"more than {CUBES_PER_COLOUR} {colour.value} cubes counted")
    return reasons


def _annotated(
    image: BGRImage,
    cubes: list[CubeSighting],
    profile: Profile,
    confident: bool,
    reasons: list[str],
) -> BGRImage:
    """The annotated picture for a reading."""
    counts: dict[Colour, int] = {c: sum(1 for s in cubes if s.colour == c) for c in COLOURS}
    radius = profile.cube_side * _picture_per_view(profile) * 0.6
    return draw(image, cubes, counts, radius, confident, reasons)


def _picture_per_view(profile: Profile) -> float:
    """Roughly how many picture pixels one view pixel spans."""
    corners = np.array(profile.tray_corners)
    width = float(np.linalg.norm(corners[1] - corners[0]))
    return width / (profile.view_width * 0.92)


def _unique(reasons: list[str]) -> list[str]:
    """Reasons in first-seen order without repeats."""
    return list(dict.fromkeys(reasons))


__all__ = ["analyse", "read_tray"]

"""Calibration and counting on rendered set-ups: exact counts, or an honest "unsure"."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from conftest import calibrate_set

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.tray_render import CalibrationSet, TrayScene, calibration_set, render
from companion.vision import CalibrationError, Profile, read_tray
from companion.vision import reasons as doubt
from companion.vision.count import (
    EDGE_CUBES,
    MIN_MATCHING,
    TOUCHING,
    change_at_view_edge,
    cubes_touch,
)
from companion.vision.segment import compare

# A true cube showing less than this share of its outline is out of any camera's sight.
HIDDEN = 0.2
# (condition, calibration-set seed): a spread of light, camera and arrangement.
CONDITIONS = [
    ("neutral", 2001),
    ("warm", 2002),
    ("daylight", 2003),
    ("tilted", 2004),
    ("clustered", 2005),
    ("noisy", 2006),
    ("colourful", 2007),
]


def test_counts_are_exact_or_marked_unsure() -> None:
    """Never a wrong count marked confident; a fair share exactly right over all conditions."""
    exact = total = 0
    refused: list[str] = []
    for condition, seed in CONDITIONS:
        cal = calibration_set(seed, condition, tests=5)
        try:
            profile = calibrate_set(cal)
        except CalibrationError as error:
            refused.append(f"{condition}: {error}")
            continue
        for shot in cal.tests:
            reading = read_tray(shot.image, profile)
            # A cube all but hidden under another leaves nothing for any camera to see.
            hidden = any(cube.visible_fraction < HIDDEN for cube in shot.cubes)
            if reading.confident:
                assert reading.counts == shot.counts or hidden, (condition, reading.reasons)
            else:
                assert reading.reasons
            assert len(reading.cubes) == reading.counts.total
            exact += reading.counts == shot.counts
            total += 1
    # Calibration refuses a set now and then (see the report); most sets must calibrate.
    assert len(refused) <= 2, refused
    assert exact >= 0.25 * total, f"only {exact} of {total} pictures counted exactly"


def test_cubes_touch_only_when_two_centres_lie_within_the_touching_distance() -> None:
    side = 10.0
    apart = TOUCHING * side
    assert not cubes_touch([], side)
    assert not cubes_touch([(0, 50.0, 50.0)], side)
    # Colour plays no part: a cube of any colour may rest on one more.
    assert cubes_touch([(0, 50.0, 50.0), (3, 50.0 + 0.9 * apart, 50.0)], side)
    assert not cubes_touch([(0, 50.0, 50.0), (0, 50.0 + 1.1 * apart, 50.0)], side)
    far = [(1, 20.0, 20.0), (2, 80.0, 80.0), (4, 20.0, 80.0)]
    assert not cubes_touch(far, side)
    assert cubes_touch([*far, (5, 80.0, 80.0 - 0.5 * apart)], side)


def test_empty_tray_never_invents_cubes() -> None:
    for seed in (3001, 3002, 3003):
        cal = calibration_set(seed, "empty", tests=2)
        profile = calibrate_set(cal)
        for shot in (cal.empty, *cal.tests):
            reading = read_tray(shot.image, profile)
            assert reading.counts == Counts(), reading.cubes
            assert reading.cubes == []


def test_cubes_are_placed_where_they_are(cal: CalibrationSet, profile: Profile) -> None:
    for shot in cal.tests:
        reading = read_tray(shot.image, profile)
        if not reading.confident:
            continue
        truth = np.array([[c.x, c.y] for c in shot.cubes])
        for cube in reading.cubes:
            distance = np.linalg.norm(truth - np.array([cube.x, cube.y]), axis=1)
            nearest = int(np.argmin(distance))
            assert distance[nearest] < 0.9 * np.sqrt(profile.colours[cube.colour].cube_area) * (
                shot.image.shape[1] / profile.view_width
            )
            assert shot.cubes[nearest].colour == cube.colour
            assert 0.0 <= cube.confidence <= 1.0


def test_annotated_picture_matches_input(cal: CalibrationSet, profile: Profile) -> None:
    shot = cal.tests[0]
    reading = read_tray(shot.image, profile, annotate=True)
    assert reading.picture is not None
    assert reading.picture.shape == shot.image.shape
    assert not np.array_equal(reading.picture, shot.image)
    assert read_tray(shot.image, profile).picture is None


def test_reading_json_has_all_colours(cal: CalibrationSet, profile: Profile) -> None:
    data = read_tray(cal.tests[1].image, profile).as_json()
    assert list(data["counts"]) == [c.value for c in COLOURS]
    assert set(data) == {"counts", "confidence", "confident", "reasons", "cubes"}
    assert all(set(c) == {"colour", "x", "y", "confidence"} for c in data["cubes"])


def test_only_a_compact_change_at_the_view_edge_doubts_the_reading(
    cal: CalibrationSet, profile: Profile
) -> None:
    prepared = profile.prepared()
    comparison = compare(profile.view.warp(cal.empty.image), prepared.reference)
    assert not change_at_view_edge(comparison, profile)
    height, width = comparison.difference.shape
    ys, xs = np.divmod(prepared.edge, width)
    needed = EDGE_CUBES * profile.cube_side * prepared.edge_width
    # Wood grain outside the tray under a slightly changed light: single pixels all along
    # the band, together many times what a cube needs.
    grain = (ys % 2 == 0) & (xs % 2 == 0)
    assert grain.sum() > 10 * needed
    scattered = np.zeros_like(comparison.difference)
    scattered.ravel()[prepared.edge[grain]] = 100.0
    assert not change_at_view_edge(replace(comparison, difference=scattered), profile)
    # A cube on the rim: one patch of the band at the top, just the area a cube needs.
    top = ys < height // 2
    reach = 1
    while ((np.abs(xs - width // 2) <= reach) & top).sum() < needed:
        reach += 1
    patch = np.zeros_like(comparison.difference)
    patch.ravel()[prepared.edge[(np.abs(xs - width // 2) <= reach) & top]] = 100.0
    assert change_at_view_edge(replace(comparison, difference=patch), profile)


@pytest.mark.parametrize("condition", ["hand", "no-tray", "dark"])
def test_hand_other_picture_and_dark_are_unsure(
    cal: CalibrationSet, profile: Profile, condition: str
) -> None:
    # A picture of something else keeps the camera (size) but shows no tray.
    setup = replace(cal.setup, has_tray=False) if condition == "no-tray" else cal.setup
    for seed in (1, 2):
        scene = TrayScene.random(seed, condition, setup=setup)
        reading = read_tray(render(scene).image, profile)
        assert not reading.confident
        assert reading.reasons


def test_a_picture_of_something_else_with_a_floor_like_middle_is_no_tray() -> None:
    # The table with no tray on it, half of it under a purple sheet: mapped to the striped
    # floor's levels, two thirds of the floor still matched, and the picture was read as 30
    # white cubes (in doubt). Round the floor, where the walls and rim were, nothing does.
    other = calibration_set(1549546578, "no-tray", tests=10, jpeg=False)
    profile = calibrate_set(other)
    shot = next(s for s in other.tests if s.scene.seed == 1276542390)
    reading = read_tray(shot.image, profile)
    assert reading.reasons == [doubt.TRAY_LOST] and reading.counts.total == 0, reading.counts


def test_a_white_clipped_at_calibration_is_found_in_a_darker_picture() -> None:
    # Daylight: the white cubes clip in their calibration picture, so the white model's tint
    # is the clip's; in a later, darker picture a white cube shows a yellower tint, far from
    # that model. Judged loosely (it is lighter than the clipped white), it is counted.
    daylight = calibration_set(1169834635, "daylight", tests=2, jpeg=False)
    profile = calibrate_set(daylight)
    assert profile.colours[Colour.WHITE].clipped
    assert not profile.colours[Colour.BLACK].clipped
    shot = daylight.tests[1]
    assert shot.counts == Counts(green=1, white=1)
    assert read_tray(shot.image, profile).counts == shot.counts


@pytest.mark.parametrize(
    ("setup", "condition", "whites"),
    [
        # Warm light on a cream print: the tops are lighter than the floor, but the shadows are
        # most of what changed. Learned from them, a cube's shadow passed for a white cube.
        (207020260, "warm", 0),
        # Warm light from low down: a top is only about 3 L lighter than the floor. Learned
        # from the long shadows, the white was darker than the floor and no white was counted.
        (1584217567, "hard-pairs", 4),
    ],
)
def test_a_white_on_a_cream_print_is_learned_from_its_top_not_its_shadow(
    setup: int, condition: str, whites: int
) -> None:
    cal = calibration_set(setup, condition, tests=2, jpeg=False)
    profile = calibrate_set(cal)
    reference = profile.prepared().reference
    floor = float(np.median(reference.lab[:, :, 0][reference.inside]))
    assert profile.colours[Colour.WHITE].mean[0] > floor
    shot = cal.tests[1]
    assert shot.counts.white == whites
    assert read_tray(shot.image, profile).counts == shot.counts


def test_dark_cubes_away_from_the_lit_ones_teach_the_dark_model() -> None:
    # Black cubes under a strong lamp. Two touch by a wall, where enough of them looks no
    # darker than the floor to pass for lit cubes; the two alone on the bright floor are all
    # shade.
    # Weighed by area, lit narrowly beat shaded, the lone two were taken for shadows, and
    # black was learned from the pair alone (L 43 for cubes that read 30-37): every black
    # cube was then read as blue.
    cal = calibration_set(258930642, "clustered", tests=5, jpeg=False)
    profile = calibrate_set(cal)
    for shot in cal.tests:
        assert shot.counts.black >= 1
        assert read_tray(shot.image, profile).counts.black == shot.counts.black


def test_an_empty_tray_a_third_brighter_than_at_calibration_holds_no_cube() -> None:
    # Orange and yellow print: exposed a third to a half brighter (gains 1.31-1.46), red clips
    # over much of it, and the clipped print read as 22 green cubes.
    cal = calibration_set(429560331, "empty", tests=10, jpeg=False)
    profile = calibrate_set(cal)
    shot = cal.tests[9]
    assert shot.counts.total == 0
    assert read_tray(shot.image, profile).counts.total == 0


def test_a_rim_clipped_in_red_does_not_turn_a_red_floors_highlight_into_cubes() -> None:
    # A red floor in a yellow rim the camera clips in red. In pictures 16% and 25% brighter
    # than at calibration the rim, and its edge blurred into the floor, hardly brighten in
    # red; learned from, they mapped the floor's brightest red onto the rim's, and the
    # floor's highlight read as red cubes.
    cal = calibration_set(1332180813, "empty", tests=6)
    profile = calibrate_set(cal)
    for shot in (cal.tests[3], cal.tests[5]):
        assert shot.counts.total == 0
        reading = read_tray(shot.image, profile)
        assert reading.counts.total == 0, reading.cubes


def test_a_set_up_drop_covering_most_of_the_floor_is_read_not_lost() -> None:
    # 46 cubes leave under half the floor as it was; the walls and rim round it still look
    # like the empty tray's, so this is the tray, full, not a picture of something else.
    full = calibration_set(880440397, "setup-drop", tests=2, jpeg=False)
    profile = calibrate_set(full)
    shot = full.tests[1]
    assert shot.counts.total == 46
    comparison = compare(profile.view.warp(shot.image), profile.prepared().reference)
    assert comparison.matching < MIN_MATCHING <= comparison.surround
    reading = read_tray(shot.image, profile)
    assert doubt.TRAY_LOST not in reading.reasons
    assert not reading.confident
    # Some lie hidden under others, so the reading is in doubt, but near.
    assert shot.counts.total - 6 <= reading.counts.total <= shot.counts.total


# Rendered trays read surely and wrongly: all that reading the 1048 trays of seeds 5-9 of
# `calibration_set(sub_seed(seed, set-up, condition))` found (the thirtieth session; each
# tray in four noise frames for seed 5, two for the others, wrong and sure in at least one).
SURELY_WRONG = [
    # Warm light: a black cube against the wall, between a yellow and a red one, in full view
    # (truth: 100% visible) but on a near-black stripe of the striped print. It is still not
    # found, but beside the red cube, off the side the light throws its shadow to, it shows as
    # a patch of blue in shade: a cube may be hidden there.
    pytest.param(
        386507616, "hard-pairs", 4, id="a black cube missed on a near-black stripe of print"
    ),
    # Two black cubes touch, one behind the other, and the near wall's rim hides a third of
    # the one against it (truth: 68% visible). Frames 2 and 3 doubt a hidden white.
    pytest.param(
        1236877461,
        "tilted",
        3,
        marks=pytest.mark.xfail(
            strict=True,
            reason="the pair's changed region is cut off by the near wall's rim: 1.1 times the "
            "area one lone cube changes, under the 1.3 that makes a lone cube's region "
            "doubtful, and only one cube is found in it",
        ),
        id="two black cubes against the near wall read as one",
    ),
    # A green cube rests on a brown one, which shows 23% of itself beside it: on the beige
    # tray, in the floor's very colour in shade, but on the side the light throws no shadow
    # to (test_sliver.py).
    pytest.param(765422431, "noisy", 6, id="a brown cube under a green one missed"),
]


@pytest.mark.parametrize(("seed", "condition", "index"), SURELY_WRONG)
def test_a_tray_once_read_surely_wrong_is_read_right_or_in_doubt(
    seed: int, condition: str, index: int
) -> None:
    cal = calibration_set(seed, condition, tests=index + 1)
    profile = calibrate_set(cal)
    shot = cal.tests[index]
    reading = read_tray(shot.image, profile)
    assert reading.counts == shot.counts or not reading.confident


@pytest.mark.xfail(
    strict=True,
    reason="since the colours are learned without the cubes' shadows, red's model is the "
    "vivid red of the cubes' tops, and the red floor, brighter in the yellow picture, passes "
    "for red cubes there: the calibration set is refused as mixed",
)
def test_a_floor_the_camera_clips_sooner_than_the_gain_says_holds_no_cube() -> None:
    # A red floor, 17% brighter than at calibration: by the gain most of its red would stay
    # under the camera's limit (median 94% of it), yet half the view shows at the limit, and
    # the ring where it gets there read as red cubes.
    cal = calibration_set(807234680, "empty", tests=5)
    profile = calibrate_set(cal)
    shot = cal.tests[4]
    assert shot.counts.total == 0
    reading = read_tray(shot.image, profile)
    assert reading.counts.total == 0, reading.cubes


def test_a_white_cube_s_shaded_side_face_is_not_read_as_a_cube_of_its_own() -> None:
    # The camera sees the white cube's side face turned towards it, in shade: a strip of
    # greyish white beside its top that the red model fitted loosely (fill 0.51), once
    # counted as a red cube.
    cal = calibration_set(1573716115, "colourful", tests=2)
    profile = calibrate_set(cal)
    shot = cal.tests[1]
    reading = read_tray(shot.image, profile)
    assert reading.counts == shot.counts, reading.cubes
    assert doubt.PARTLY_HIDDEN.format(colour="red") in reading.reasons

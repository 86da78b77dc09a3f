"""Calibration and counting on generated set-ups: exact counts, or an honest "unsure"."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scenes import SetUp, random_counts

from companion.core.cubes import COLOURS, Counts
from companion.vision import Profile, calibrate, read_tray


def test_empty_tray_has_no_cubes(setup: SetUp, profile: Profile) -> None:
    for seed in range(3):
        reading = read_tray(setup.shoot([], 50 + seed).image, profile)
        assert reading.counts == Counts()
        assert reading.cubes == []
        assert reading.confident


@pytest.mark.parametrize("setup_seed", [11, 12, 13, 14])
def test_counts_are_exact_or_marked_unsure(setup_seed: int) -> None:
    scene = SetUp(setup_seed)
    empty, pictures = scene.calibration(setup_seed * 100)
    profile = calibrate(empty, pictures)
    exact = 0
    for k in range(8):
        counts = random_counts(setup_seed * 10 + k)
        shot = scene.shoot(scene.place(counts, k), setup_seed + k)
        reading = read_tray(shot.image, profile)
        if reading.confident:
            assert reading.counts == shot.counts, reading.reasons
        exact += reading.counts == shot.counts
        assert len(reading.cubes) == reading.counts.total
    assert exact >= 7


def test_cubes_are_placed_where_they_are(setup: SetUp, profile: Profile) -> None:
    counts = Counts.from_tuple([1, 1, 1, 1, 1, 1, 1])
    cubes = setup.place(counts, 5, clustered=False)
    shot = setup.shoot(cubes, 6)
    reading = read_tray(shot.image, profile)
    assert reading.counts == counts
    truth = np.array([[x, y] for _, x, y, _ in cubes], np.float32)
    import cv2

    where = cv2.perspectiveTransform(truth.reshape(-1, 1, 2), setup.homography).reshape(-1, 2)
    for cube in reading.cubes:
        distance = np.linalg.norm(where - np.array([cube.x, cube.y]), axis=1)
        nearest = int(np.argmin(distance))
        assert distance[nearest] < setup.side * 0.5
        assert cubes[nearest][0] == cube.colour
        assert 0.0 <= cube.confidence <= 1.0


def test_annotated_picture_matches_input(setup: SetUp, profile: Profile) -> None:
    shot = setup.shoot(setup.place(Counts(red=2, white=1), 8), 9)
    reading = read_tray(shot.image, profile, annotate=True)
    assert reading.picture is not None
    assert reading.picture.shape == shot.image.shape
    assert not np.array_equal(reading.picture, shot.image)
    plain = read_tray(shot.image, profile)
    assert plain.picture is None


def test_reading_json_has_all_colours(setup: SetUp, profile: Profile) -> None:
    reading = read_tray(setup.shoot(setup.place(Counts(blue=1), 2), 3).image, profile)
    data = reading.as_json()
    assert list(data["counts"]) == [c.value for c in COLOURS]
    assert set(data) == {"counts", "confidence", "confident", "reasons", "cubes"}
    assert all(set(c) == {"colour", "x", "y", "confidence"} for c in data["cubes"])

"""Bad pictures, bad calibration sets and bad profile files: clear errors or unsure readings."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_scenes import SetUp

from companion.core.cubes import COLOURS, Colour, Counts
from companion.vision import (
    CalibrationError,
    ImageError,
    Profile,
    ProfileError,
    calibrate,
    decode_image,
    load_image,
    read_tray,
)


def _jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()


def test_truncated_and_garbage_files_are_refused(tmp_path: Path, setup: SetUp) -> None:
    data = _jpeg(setup.shoot([], 1).image)
    with pytest.raises(ImageError, match="truncated JPEG"):
        decode_image(data[: len(data) // 2])
    _, png = cv2.imencode(".png", setup.shoot([], 1).image)
    with pytest.raises(ImageError, match="truncated PNG"):
        decode_image(png.tobytes()[:-100])
    with pytest.raises(ImageError, match="empty"):
        decode_image(b"")
    with pytest.raises(ImageError, match="not a picture"):
        decode_image(b"hello, this is text")
    with pytest.raises(ImageError, match="does not exist"):
        load_image(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="folder"):
        load_image(tmp_path)


def test_other_picture_size_is_an_error(setup: SetUp, profile: Profile) -> None:
    small = cv2.resize(setup.shoot([], 2).image, (640, 480))
    with pytest.raises(ImageError, match=r"640x480.*800x600"):
        read_tray(small, profile)


def test_black_frame_is_unsure(profile: Profile) -> None:
    reading = read_tray(np.zeros((600, 800, 3), np.uint8), profile)
    assert not reading.confident
    assert reading.counts == Counts()
    assert any("dark" in reason for reason in reading.reasons)


def test_picture_of_something_else_is_unsure(profile: Profile) -> None:
    rng = np.random.default_rng(0)
    other = SetUp(99).shoot([], 3).image
    noise = rng.integers(0, 255, (600, 800, 3), dtype=np.uint8)
    for picture in (other, noise):
        reading = read_tray(picture, profile)
        assert not reading.confident
        assert reading.reasons


def test_hand_or_object_makes_reading_unsure(setup: SetUp, profile: Profile) -> None:
    shot = setup.shoot(setup.place(Counts(red=2), 4), 5)
    picture = shot.image.copy()
    # A skin-coloured arm reaching in over the rim from the bottom edge.
    cv2.ellipse(picture, (420, 560), (90, 220), 0, 0, 360, (120, 160, 215), -1)
    reading = read_tray(picture, profile)
    assert not reading.confident
    assert any("hand" in r or "not a cube" in r for r in reading.reasons)


def test_calibration_refuses_incomplete_or_inconsistent_sets(setup: SetUp) -> None:
    empty, pictures = setup.calibration(700, per_colour=3)
    partial = {c: p for c, p in pictures.items() if c != Colour.GREEN}
    with pytest.raises(CalibrationError, match="green"):
        calibrate(empty, partial)
    resized = dict(pictures)
    resized[Colour.RED] = cv2.resize(pictures[Colour.RED], (640, 480))
    with pytest.raises(CalibrationError, match="red picture is 640x480"):
        calibrate(empty, resized)
    no_cubes = dict(pictures)
    no_cubes[Colour.BLUE] = setup.shoot([], 701).image
    with pytest.raises(CalibrationError, match="no cubes found in the blue picture"):
        calibrate(empty, no_cubes)


def test_calibration_refuses_a_mixed_colour_picture(setup: SetUp) -> None:
    empty, pictures = setup.calibration(800, per_colour=4)
    mixed = dict(pictures)
    cubes = setup.place(Counts(brown=3, yellow=2), 801, clustered=False)
    mixed[Colour.BROWN] = setup.shoot(cubes, 802).image
    with pytest.raises(CalibrationError, match="brown picture holds cubes that look yellow"):
        calibrate(empty, mixed)


def test_profile_round_trip_and_load_errors(tmp_path: Path, profile: Profile) -> None:
    path = tmp_path / "profile.json"
    profile.save(path)
    loaded = Profile.load(path)
    assert loaded.model_dump() == profile.model_dump()
    assert set(loaded.colours) == set(COLOURS)
    with pytest.raises(ProfileError, match="does not exist"):
        Profile.load(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ProfileError, match="not JSON"):
        Profile.load(tmp_path / "bad.json")
    data = json.loads(path.read_text())
    data["version"] = 99
    (tmp_path / "v99.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="version 99"):
        Profile.load(tmp_path / "v99.json")
    data["version"] = 1
    del data["colours"]["white"]
    (tmp_path / "nowhite.json").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="white"):
        Profile.load(tmp_path / "nowhite.json")

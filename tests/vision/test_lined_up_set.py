"""Calibration pictures taken after a knock, lined up with the others
(`companion.vision.lined_up_set`, the move measured by `companion.vision.realign`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.core.cubes import COLOURS, Colour
from companion.devices.tray_render import (
    CalibrationSet,
    RenderedTray,
    TrayScene,
    calibration_set,
    render,
    write_set,
)
from companion.vision import calibrate, read_tray
from companion.vision.calibrate import MAX_VIEW
from companion.vision.images import BGRImage
from companion.vision.lined_up_set import lined_up_set
from companion.vision.segment import correlation
from companion.vision.tray import find_tray
from companion.vision.tray_view import TrayView, view_for

# The knock (`TrayScene.knocked`'s seed) the tests take pictures after.
KNOCK = 4


def _view(empty: BGRImage) -> TrayView:
    """The view calibration lines the pictures up in: the empty tray's outline, full size."""
    corners = find_tray(empty)
    assert corners is not None
    return view_for(corners, min(1.0, MAX_VIEW / max(empty.shape[:2])))


def _turned(picture: BGRImage, degrees: float, dx: float, dy: float) -> BGRImage:
    """`picture` as a camera turned by `degrees` about its middle and moved by (dx, dy)
    pixels would show it."""
    height, width = picture.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2.0, height / 2.0), degrees, 1.0)
    matrix[:, 2] += (dx, dy)
    turned = cv2.warpAffine(picture, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(turned, np.uint8)


def _alike(view: TrayView, first: BGRImage, second: BGRImage) -> float:
    """How alike two pictures are on the tray's floor: the correlation of its brightness
    (-1..1; a brighter or dimmer shot keeps it)."""
    floor = view.tray_mask()
    rows, columns = np.flatnonzero(floor.any(axis=1)), np.flatnonzero(floor.any(axis=0))
    box = np.s_[rows[0] : rows[-1] + 1, columns[0] : columns[-1] + 1]
    views = [view.warp(picture)[box].astype(np.float32) for picture in (first, second)]
    return correlation(views[0], views[1], 1)


def _knocked(scene: TrayScene) -> RenderedTray:
    """`scene` shot after the tests' knock, the cubes where they lay."""
    return render(scene.knocked(KNOCK))


def test_an_unmoved_set_is_left_as_it_is(cal: CalibrationSet) -> None:
    pictures = {colour: shot.image for colour, shot in cal.colours}
    lined_up = lined_up_set(cal.empty.image, pictures, _view(cal.empty.image))
    assert lined_up.moved == ()
    assert lined_up.empty is cal.empty.image
    assert all(lined_up.per_colour[colour] is pictures[colour] for colour in COLOURS)


@pytest.mark.parametrize(("degrees", "dx", "dy"), [(2.5, 12.0, -8.0), (3.0, -45.0, 20.0)])
def test_a_turned_picture_is_lined_up_with_the_others(
    cal: CalibrationSet, degrees: float, dx: float, dy: float
) -> None:
    # The camera turned and moved by up to 2 cubes: the picture is turned back to within a
    # whisker of the one taken before, on the whole floor; the others are left alone.
    pictures = {colour: shot.image for colour, shot in cal.colours}
    view = _view(cal.empty.image)
    turned = {**pictures, Colour.RED: _turned(pictures[Colour.RED], degrees, dx, dy)}
    lined_up = lined_up_set(cal.empty.image, turned, view)
    assert lined_up.moved == ("red",)
    assert _alike(view, turned[Colour.RED], pictures[Colour.RED]) < 0.9
    assert _alike(view, lined_up.per_colour[Colour.RED], pictures[Colour.RED]) > 0.95
    unmoved = [colour for colour in COLOURS if colour != Colour.RED]
    assert all(lined_up.per_colour[colour] is turned[colour] for colour in unmoved)


@pytest.fixture(scope="module")
def dotted() -> CalibrationSet:
    """Warm light on green dots in rows on an orange floor, two test pictures."""
    return calibration_set(1553855255, "warm", tests=2)


def test_a_knock_on_a_dotted_print_is_found(dotted: CalibrationSet) -> None:
    # The camera knocked before the blue cubes' picture (the tray's corners moved by 0.9 of
    # a cube): ECC started from no move stops near it (correlation 0.26 with the empty
    # tray). Started from where the whole empty tray matches the picture best too, it finds
    # the knock (0.72).
    pictures = {colour: shot.image for colour, shot in dotted.colours}
    shot = dotted.colours[COLOURS.index(Colour.BLUE)][1]
    after = _knocked(shot.scene).image
    view = _view(dotted.empty.image)
    lined_up = lined_up_set(dotted.empty.image, {**pictures, Colour.BLUE: after}, view)
    assert lined_up.moved == ("blue",)
    assert _alike(view, after, shot.image) < 0.5
    assert _alike(view, lined_up.per_colour[Colour.BLUE], shot.image) > 0.8


def test_after_a_knock_that_stays_the_pictures_before_are_lined_up_with_the_last(
    dotted: CalibrationSet,
) -> None:
    # The camera knocked before the red cubes' picture and left where it was: the drops to
    # come will show the tray where the red to white pictures do, so the empty tray's picture
    # and the blue and black ones are lined up with those, and the outline found in the
    # empty tray's picture moves with them.
    knocked = {
        colour: _knocked(shot.scene) if COLOURS.index(colour) >= 2 else shot
        for colour, shot in dotted.colours
    }
    view = _view(dotted.empty.image)
    pictures = {colour: shot.image for colour, shot in knocked.items()}
    lined_up = lined_up_set(dotted.empty.image, pictures, view)
    assert lined_up.moved == ("empty", "blue", "black")
    assert all(lined_up.per_colour[colour] is pictures[colour] for colour in COLOURS[2:])
    # The empty tray as the knocked camera would show it.
    empty_now = _knocked(dotted.empty.scene)
    assert _alike(view, dotted.empty.image, empty_now.image) < 0.5
    assert _alike(view, lined_up.empty, empty_now.image) > 0.8
    outline = lined_up.outline(view.corners)
    true_now = np.array(empty_now.tray_corners)
    was_off = np.abs(np.array(view.corners) - true_now).max()
    assert np.abs(np.array(outline) - true_now).max() < min(4.0, was_off / 5)


def test_after_a_knock_that_stays_the_drops_read_as_before(dotted: CalibrationSet) -> None:
    # Calibrated with the knock before the red picture, the drops the knocked camera takes
    # next read as the clean set reads them unknocked, and none says the camera moved (lined
    # up with the empty tray's picture instead, every one did).
    pictures = {
        colour: _knocked(shot.scene).image if COLOURS.index(colour) >= 2 else shot.image
        for colour, shot in dotted.colours
    }
    profile = calibrate(dotted.empty.image, pictures)
    assert profile.moved_pictures == ("empty", "blue", "black")
    clean = calibrate(dotted.empty.image, {colour: shot.image for colour, shot in dotted.colours})
    for picture in dotted.tests:
        reading = read_tray(_knocked(picture.scene).image, profile)
        assert reading.counts == read_tray(picture.image, clean).counts == picture.counts
        assert not any("moved" in reason for reason in reading.reasons)


def test_calibration_learns_a_knocked_picture_s_colour_from_its_cubes(
    dotted: CalibrationSet,
) -> None:
    # Not lined up, the knocked blue picture was refused as holding "cubes that look
    # green" (the dots' edges). Lined up, blue is learned as from the picture taken before
    # the knock, the profile names the picture, and the test pictures read alike.
    pictures = {colour: shot.image for colour, shot in dotted.colours}
    clean = calibrate(dotted.empty.image, pictures)
    shot = dotted.colours[COLOURS.index(Colour.BLUE)][1]
    knocked = calibrate(dotted.empty.image, {**pictures, Colour.BLUE: _knocked(shot.scene).image})
    assert clean.moved_pictures == ()
    assert knocked.moved_pictures == ("blue",)
    was, now = (np.array(p.colours[Colour.BLUE].mean) for p in (clean, knocked))
    assert np.linalg.norm(was - now) < 2.5
    for picture in dotted.tests:
        assert read_tray(picture.image, knocked).counts == read_tray(picture.image, clean).counts


def test_companion_calibrate_says_which_pictures_were_lined_up(
    dotted: CalibrationSet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_set(dotted, tmp_path)
    shot = dotted.colours[COLOURS.index(Colour.BLUE)][1]
    assert cv2.imwrite(str(tmp_path / "blue.png"), _knocked(shot.scene).image)
    assert main(["calibrate", str(tmp_path), "--out", str(tmp_path / "profile.json")]) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if "moved" in line]
    assert warnings == [
        "warning: the tray (or the camera) moved between the pictures: the blue picture was "
        "lined up with the last one (white), where the tray lies now. If it moves again, "
        "calibrate again"
    ]

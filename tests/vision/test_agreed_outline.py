"""The tray outline a calibration's pictures agree on (`companion.vision.agreed_outline`)."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from companion.core.cubes import COLOURS
from companion.vision import load_image
from companion.vision.agreed_outline import agreed_outline
from companion.vision.corners import Corners
from companion.vision.images import BGRImage
from companion.vision.tray import find_tray

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "pathtraced"))

# (A module of the benchmark scripts, not of the package: the path-traced set-up's geometry.)
from scenes import SetUp, floor_outline

LOW_LAMP = Path(__file__).parents[1] / "fixtures" / "vision" / "pathtraced_low_lamp"


def _pictures() -> list[BGRImage]:
    """The low-lamp set-up's calibration pictures, the empty tray's first."""
    folder = LOW_LAMP / "calibration"
    names = ["empty", *(colour.value for colour in COLOURS)]
    return [load_image(folder / f"{name}.jpg") for name in names]


def _saved_again(picture: BGRImage) -> BGRImage:
    """The picture saved once more as a JPEG (quality 92)."""
    _, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)


def _plain(like: BGRImage) -> BGRImage:
    """A grey noisy picture the size of `like`: no tray in it."""
    rng = np.random.default_rng(1)
    return np.clip(rng.normal(128.0, 6.0, like.shape), 0, 255).astype(np.uint8)


def _off(corners: Corners | None) -> float:
    """How far the outline's furthest corner lies from the floor's true one, as a share of
    the floor's diagonal."""
    assert corners is not None
    truth = floor_outline(SetUp.load(LOW_LAMP / "setup.json"))
    furthest = np.linalg.norm(np.array(corners) - truth, axis=1).max()
    return float(furthest / np.linalg.norm(truth[2] - truth[0]))


def test_the_outline_most_pictures_show_outvotes_the_empty_tray_s_own() -> None:
    # A plain magenta floor under a low lamp: the right wall's shadow lies along the floor's
    # right edge. In the empty tray's picture alone its edge scores about as well as the
    # floor's (2.7% off); saved once more as a JPEG, better (14% off). The seven colour
    # pictures find the floor's edge.
    pictures = _pictures()
    assert _off(find_tray(pictures[0])) > 0.02
    assert _off(agreed_outline(find_tray(pictures[0]), pictures[1:])) < 0.01
    again = _saved_again(pictures[0])
    assert _off(find_tray(again)) > 0.1
    assert _off(agreed_outline(find_tray(again), pictures[1:])) < 0.01


def test_the_empty_tray_s_outline_stands_when_most_pictures_agree_with_it() -> None:
    # Its own outline, not their average: the cubes in the others can pull an edge by a
    # pixel. (The seven colour pictures agree, corners up to 0.9 pixels from their mean; the
    # blue one stands in for the empty tray's.)
    pictures = _pictures()[1:]
    own = find_tray(pictures[0])
    assert own is not None
    assert agreed_outline(own, pictures[1:]) == own
    outlines = [find_tray(picture) for picture in pictures]
    mean = np.mean([np.array(outline) for outline in outlines], axis=0)
    assert np.abs(mean - np.array(own)).max() > 0.5


def test_the_empty_tray_s_outline_gives_way_only_to_one_half_the_pictures_show() -> None:
    # Three pictures of eight finding another outline are not enough: a line of a checked
    # print can fool that many alike.
    pictures = _pictures()
    again = _saved_again(pictures[0])
    plain = _plain(again)
    own = find_tray(again)
    assert agreed_outline(own, [*pictures[3:6], plain, plain, plain, plain]) == own
    assert _off(agreed_outline(own, [*pictures[3:7], plain, plain, plain])) < 0.01


def test_no_outline_is_learned_when_the_empty_tray_s_picture_shows_none() -> None:
    # The others' cubes and shadows make them no surer: calibration then uses the whole
    # picture and says so, as before.
    pictures = _pictures()
    plain = _plain(pictures[0])
    assert find_tray(plain) is None
    assert agreed_outline(find_tray(plain), pictures[1:]) is None


def test_pictures_that_show_no_tray_are_left_out() -> None:
    pictures = _pictures()
    plain = _plain(pictures[0])
    again = _saved_again(pictures[0])
    others = [plain, *pictures[3:7], plain, plain]
    assert _off(agreed_outline(find_tray(again), others)) < 0.01

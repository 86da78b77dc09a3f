"""A cube whose colour drifted off every model is still counted, in doubt, when one colour
explains it far better than the rest; strips, shade, in-between colours and the rim are not."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import last_reading

from companion.core.cubes import Colour
from companion.devices.tray_render import RenderedTray
from companion.vision import TrayReading
from companion.vision import reasons as doubt
from companion.vision.colours import DEEPEST_SHADE, in_shade_distances2
from companion.vision.off_colour import OffColour, off_colour_cubes
from companion.vision.segment import Comparison
from companion.vision.shadow import ShadowLine

# Two models, white and yellow, each with a spread of 3 L/a/b units.
MEANS = np.array([[85.0, 0.0, 5.0], [80.0, 5.0, 60.0]], np.float32)
INVERSES = np.array([np.eye(3) / 9.0, np.eye(3) / 9.0], np.float32)
MODELS = (MEANS, INVERSES, np.zeros(2, np.bool_), MEANS.copy())
FLOOR_L = 50.0
# A lying cube's colour covers 10 x 10 view pixels.
SQUARE = 100.0
# Off the white model (d² 33, beyond the strict bound of 28), far from yellow (d² 170).
DRIFTED_WHITE = (88.0, 0.0, 22.0)


Patch = tuple[slice, slice, tuple[float, float, float]]
Models = tuple[
    np.ndarray[tuple[int, int], np.dtype[np.float32]],
    np.ndarray[tuple[int, int, int], np.dtype[np.float32]],
    np.ndarray[tuple[int], np.dtype[np.bool_]],
    np.ndarray[tuple[int, int], np.dtype[np.float32]],
]


def _scene(
    patches: list[Patch],
    models: Models = MODELS,
    floor_l: float = FLOOR_L,
    paths: np.ndarray[tuple[int, int, int], np.dtype[np.float32]] | None = None,
    floor_ab: tuple[float, float] = (0.0, 0.0),
) -> list[OffColour]:
    """The off-colour cubes of a 60 x 80 view of floor (lightness `floor_l` in the empty
    tray, grey unless `floor_ab` is given) with the given patches painted on it, each changed
    and unexplained; the tray's floor is the middle 50 x 70. `paths`: the models in this
    set-up's shade, if learned."""
    lab = np.zeros((60, 80, 3), np.float32)
    lab[:, :] = (FLOOR_L, *floor_ab)
    left = np.zeros((60, 80), np.bool_)
    for rows, cols, colour in patches:
        lab[rows, cols] = colour
        left[rows, cols] = True
    inside = np.zeros((60, 80), np.bool_)
    inside[5:55, 5:75] = True
    ones = np.ones((60, 80), np.float32)
    deficit = np.zeros((60, 80, 3), np.float32)
    comparison = Comparison(
        lab, ones, left, np.zeros_like(left), ones, (1.0, 1.0, 1.0), 1.0, 1.0, 1.0, 7.0, deficit
    )
    floor = np.zeros((60, 80, 3), np.float32)
    floor[:, :] = (floor_l, *floor_ab)
    return off_colour_cubes(left, comparison, floor, inside, SQUARE, models, paths)


def test_a_drifted_white_square_is_a_white_cube_at_its_centre() -> None:
    found = _scene([(slice(20, 30), slice(30, 40), DRIFTED_WHITE)])
    assert [(f.colour, round(f.x, 1), round(f.y, 1)) for f in found] == [(0, 34.5, 24.5)]
    assert found[0].runner_up == 1
    # sqrt(170) - sqrt(33)
    assert abs(found[0].margin - 7.29) < 0.05


def test_a_strip_of_the_same_colour_is_no_cube() -> None:
    # The rim's edge or a band of print under other light: as many pixels as a cube, too long.
    assert _scene([(slice(20, 24), slice(20, 50), DRIFTED_WHITE)]) == []


def test_a_patch_darker_than_the_floor_is_no_cube() -> None:
    # Grey-brown shade off every model and nearest a dark colour: maybe shade the shadow test
    # missed, so it is left to the "something that may be a cube" doubt.
    dark = np.array([[30.0, 0.0, 5.0], [80.0, 5.0, 60.0]], np.float32)
    models = (dark, INVERSES, np.zeros(2, np.bool_), dark.copy())
    shade = (slice(20, 30), slice(30, 40), (33.0, 0.0, 22.0))
    assert _scene([shade], models) == []
    # The same patch lighter than the floor beneath it is a cube.
    assert [f.colour for f in _scene([shade], models, floor_l=20.0)] == [0]


def test_a_patch_barely_lighter_than_the_floor_is_a_cube_when_shade_cannot_make_its_hue() -> None:
    # A red top lit brighter than its calibration picture, on green print barely darker
    # (rendered daylight set-up: (54, 52, 27) on (47, -38, 15), red's model (37, 52, 31)).
    spreads = np.array([[4.0, 5.5, 3.2], [3.5, 1.9, 1.6]], np.float32)
    means = np.array([[37.0, 52.0, 31.0], [52.0, -34.0, 20.0]], np.float32)
    inverses = np.array([np.diag(1.0 / s**2) for s in spreads], np.float32)
    models = (means, inverses, np.zeros(2, np.bool_), means.copy())
    green = (-38.0, 15.0)
    red = (slice(20, 30), slice(30, 40), (54.0, 52.0, 27.0))
    assert [f.colour for f in _scene([red], models, 47.0, floor_ab=green)] == [0]
    # The floor's own hue as little lighter (a light that flickered) is no cube: the green
    # model explains it well enough, but so would shade the shadow test missed.
    paler = (slice(20, 30), slice(30, 40), (52.0, -40.0, 16.0))
    assert _scene([paler], models, 47.0, floor_ab=green) == []
    # Darker than the floor, the red patch stays out too: it may be shade of other print.
    assert _scene([red], models, 56.0, floor_ab=green) == []


def test_a_colour_far_too_dark_for_the_patch_does_not_crowd_its_own() -> None:
    # A white cube exposed darker than its calibration picture, as rendered: its tint moved
    # off the white model (d² 41), and a black model's wide spread in L (tops and sides)
    # makes black nearly as near (d² 69, under APART times 41). No light turns a black cube
    # this light.
    means = np.array([[74.0, -2.0, 19.0], [22.0, 5.0, 9.0]], np.float32)
    spreads = np.array([[9.8, 2.8, 4.5], [9.0, 2.1, 3.9]], np.float32)
    inverses = np.array([np.diag(1.0 / s**2) for s in spreads], np.float32)
    models = (means, inverses, np.zeros(2, np.bool_), means.copy())
    white = (slice(20, 30), slice(30, 40), (76.0, 16.0, 18.0))
    found = _scene([white], models)
    assert [(f.colour, f.runner_up) for f in found] == [(0, 1)]
    assert np.isfinite(found[0].margin)
    # A colour the light could have made this light still does: the same models with black
    # as light as a grey leave the patch between the two, no cube.
    grey = means.copy()
    grey[1, 0] = 60.0
    assert _scene([white], (grey, inverses, np.zeros(2, np.bool_), grey.copy())) == []


def test_a_white_cube_in_shade_is_white_though_a_wide_model_lies_nearer_as_it_is() -> None:
    # Models learned on a tray (means and spreads): black, a red spread wide in a, white.
    means = np.array([[32.0, -2.0, -3.0], [43.0, 32.0, 20.0], [77.0, -0.5, 2.6]], np.float32)
    spreads = np.array([[9.0, 4.1, 7.6], [4.6, 13.6, 5.7], [4.2, 3.0, 2.3]], np.float32)
    inverses = np.array([np.diag(1.0 / s**2) for s in spreads], np.float32)
    models = (means, inverses, np.zeros(3, np.bool_), means.copy())
    # A white cube in the wall's shade (L 57 over a floor of 47): as it is, red lies nearer
    # (d 5.0) than white (5.8); shade shows white at this lightness at a = -0.4, b = 2.0.
    shaded_white = (slice(20, 30), slice(30, 40), (57.0, 2.0, -2.0))
    found = _scene([shaded_white], models, floor_l=47.0)
    assert [(f.colour, f.runner_up) for f in found] == [(2, 1)]
    assert found[0].margin > 2.0
    # Twice as dark (L + 16 at 0.49 of white's) takes deeper shade than a room's light
    # leaves: that patch is no white cube, even with black's model out of the way.
    deep = (slice(20, 30), slice(30, 40), (30.0, 1.0, -1.0))
    assert [f.colour for f in _scene([deep], models, floor_l=20.0)] == [0]
    no_black = (means[1:], inverses[1:], np.zeros(2, np.bool_), means[1:].copy())
    assert 1 not in [f.colour for f in _scene([deep], no_black, floor_l=20.0)]


def test_a_white_cube_in_shade_the_rooms_light_tints_is_white_along_its_path() -> None:
    # Black, red and white models; a white cube in a warm lamp's shade, which the room's
    # bluer light tints (49, -1, -5), over a floor of L 40. In grey shade white would show
    # b = 1.8 there, off for its narrow b spread and hardly nearer than red: no cube. Along
    # its path through this set-up's shade (`shadow.ShadowLine.darkened`) it is white.
    means = np.array([[24.0, 0.0, -1.0], [43.0, 32.0, 20.0], [77.0, -0.5, 2.6]], np.float32)
    spreads = np.array([[6.0, 3.0, 3.0], [4.6, 13.6, 5.7], [4.2, 3.0, 2.3]], np.float32)
    inverses = np.array([np.diag(1.0 / s**2) for s in spreads], np.float32)
    models = (means, inverses, np.zeros(3, np.bool_), means.copy())
    tinted = (slice(20, 30), slice(30, 40), (49.0, -1.0, -5.0))
    assert 2 not in [f.colour for f in _scene([tinted], models, floor_l=40.0)]
    paths = ShadowLine((0.48, 0.58, 0.66), 1.16, 0.1).darkened(means)
    assert [f.colour for f in _scene([tinted], models, floor_l=40.0, paths=paths)] == [2]


def test_shade_scales_a_models_colour_and_its_spread_alike() -> None:
    white = np.array([[77.0, 0.0, 3.0]], np.float32)
    inverse = np.array([np.diag(1.0 / np.array([4.0, 3.0, 2.0]) ** 2)], np.float32)
    # L + 16 at about 0.6 of white's: white would show b = 1.8 with a spread of 1.2 there.
    colour = np.array([40.0, 0.0, 0.0], np.float32)
    assert abs(float(in_shade_distances2(colour, white, inverse, DEEPEST_SHADE)[0]) - 2.25) < 1e-3
    # Deeper shade than DEEPEST_SHADE, or none at all (a colour as light as the model's or
    # lighter), is not shade the model can be in.
    for lightness in (39.0, 77.0, 80.0):
        darker = np.array([lightness, 0.0, 0.0], np.float32)
        assert np.isinf(in_shade_distances2(darker, white, inverse, DEEPEST_SHADE)[0])


def test_shade_the_rooms_light_tints_is_judged_along_the_colours_path_in_it() -> None:
    # A white model, and the white cube in a wall's shade that a bluer room light tints:
    # (49, -1, -5). Scaled as grey shade would show it, white lies at b = 3.4 there, far off
    # for white's narrow b spread; on its path through this set-up's shade, it lies close.
    white = np.array([[78.0, 1.0, 5.0]], np.float32)
    inverse = np.array([np.diag(1.0 / np.array([4.6, 2.3, 2.3]) ** 2)], np.float32)
    colour = np.array([49.0, -1.0, -5.0], np.float32)
    path = ShadowLine((0.48, 0.58, 0.66), 1.16, 0.1).darkened(white)
    grey = float(in_shade_distances2(colour, white, inverse, DEEPEST_SHADE)[0])
    tinted = float(in_shade_distances2(colour, white, inverse, DEEPEST_SHADE, path)[0])
    assert grey > 4.0**2
    assert tinted < 2.0**2
    # A colour lighter than the model, or darker than its path reaches, is not its shade.
    for lightness in (80.0, 10.0):
        other = np.array([lightness, 0.0, 0.0], np.float32)
        assert np.isinf(in_shade_distances2(other, white, inverse, 0.0, path)[0])


def test_a_colour_between_two_models_or_far_from_all_is_no_cube() -> None:
    # Half-way from white to yellow: yellow is not far enough behind to choose.
    between = (82.5, 2.5, 32.5)
    # A pale blue card: far nearer white than yellow (d² 236 against 1139), but far from both.
    stranger = (95.0, 0.0, -40.0)
    assert _scene([(slice(20, 30), slice(20, 30), between)]) == []
    assert _scene([(slice(20, 30), slice(20, 30), stranger)]) == []


def test_a_patch_reaching_over_the_rim_is_no_cube() -> None:
    assert _scene([(slice(20, 30), slice(0, 10), DRIFTED_WHITE)]) == []


def test_too_small_or_too_big_a_patch_is_no_cube() -> None:
    # A speck under a tenth of a cube's square.
    assert _scene([(slice(20, 23), slice(30, 33), DRIFTED_WHITE)]) == []
    # Two cubes' worth in one compact blob: not one cube (it is left to the doubts).
    assert _scene([(slice(15, 29), slice(30, 44), DRIFTED_WHITE)]) == []


def test_a_small_patch_is_a_cube_only_when_its_colour_is_unmistakable() -> None:
    # A third of a cube's square (the rest of its top explained by its neighbours' colours or
    # shade): yellow 5.2 times as far as white is far enough...
    small = (slice(20, 26), slice(30, 36))
    assert [f.colour for f in _scene([(*small, DRIFTED_WHITE)])] == [0]
    # ...yellow 2.3 times as far (d² 125 against 54) only for a whole cube's patch.
    nearer = (85.0, 1.5, 27.0)
    assert _scene([(*small, nearer)]) == []
    assert [f.colour for f in _scene([(slice(20, 30), slice(30, 40), nearer)])] == [0]


def _counted_in_doubt(picture: RenderedTray, reading: TrayReading, colour: Colour) -> None:
    """The reading counts the picture right, one cube of `colour` among them, and says the
    cube looks unlike its calibration picture."""
    assert reading.counts == picture.counts
    assert reading.counts[colour] == 1
    assert not reading.confident
    assert doubt.OFF_COLOUR.format(colour=colour.value) in reading.reasons


def test_a_white_cube_the_exposure_moved_off_its_model_is_counted_in_doubt() -> None:
    # Rendered clustered set-up: this test picture is exposed darker than the empty
    # tray (gains 0.67-0.76), and its white cube reads (84, 12, 42) against the white model's
    # (79, 19, 32), d² 32: beyond the reach of every colour, so it used to be missed.
    picture, reading = last_reading(728613178, "clustered", 5)
    _counted_in_doubt(picture, reading, Colour.WHITE)
    recovered = [c for c in reading.cubes if c.colour is Colour.WHITE and c.confidence <= 0.5]
    truth = [c for c in picture.cubes if c.colour is Colour.WHITE]
    assert len(recovered) == 1
    assert min(np.hypot(recovered[0].x - t.x, recovered[0].y - t.y) for t in truth) < 8.0


@pytest.mark.xfail(
    strict=True,
    reason="since the colours are learned without the cubes' shadows, the yellow cube fits "
    "its own colour (no longer off every model) and the black one it leans on is taken for "
    "shade: missed, the reading unsure",
)
def test_a_yellow_cube_mostly_claimed_by_the_black_one_it_leans_on_is_counted_in_doubt() -> None:
    # Rendered tilted set-up: in this test picture a yellow cube leans on a black one. The
    # black cube's square takes most of the yellow's top; what is left (a quarter of a
    # cube's square) lies off every model (yellow's d² 39), but red is 6 times as far. It
    # used to be missed.
    picture, reading = last_reading(1521487928, "tilted", 2)
    _counted_in_doubt(picture, reading, Colour.YELLOW)

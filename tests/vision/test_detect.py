"""Finding cubes as evidence peaks: touching cubes give one peak each, shadows give no
evidence, and on rendered trays `read_tray` finds what lies there."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.core.cubes import COLOURS, Colour, Counts
from companion.devices.tray_render import CalibrationSet
from companion.vision import ImageError, Profile, read_tray
from companion.vision import reasons as doubt
from companion.vision.beside import (
    SIDE_GAP,
    at_foot_shade,
    at_neighbours_edge,
    toward_model,
    without_close_shade,
    without_side_faces,
    without_thin_dark,
    without_wall_strips,
)
from companion.vision.cast import lies_in_shade, lone_shade, shadow_casters, without_cast_shadows
from companion.vision.colours import (
    DEEPEST_SHADE,
    LOOSE_SLACK,
    distances2,
    in_shade_distances2,
    seen_at_limit,
    shade_gap,
)
from companion.vision.doubts import area_doubts, covered_print, unexplained_doubts
from companion.vision.found import Found
from companion.vision.likelihood import Evidence, evidence
from companion.vision.overhead import Overhead, camera_over
from companion.vision.patches import evidence_patches, without_split_cubes
from companion.vision.peaks import select
from companion.vision.segment import Comparison, gradient
from companion.vision.shadow import ShadowLine

SIDE = 12.0
# A profile's cube side is measured on whole changed regions (the top, the side faces the
# camera sees, the shadow's edge); the evidence of one cube's top spans about 3/4 of it.
TOP = 9


def _squares(centres: list[tuple[int, int]], size: tuple[int, int] = (60, 90)) -> np.ndarray:
    """One colour's evidence map: 1 on cube-sized squares at the centres (x, y), else 0."""
    plane = np.zeros(size, np.float32)
    for x, y in centres:
        plane[y - TOP // 2 : y - TOP // 2 + TOP, x - TOP // 2 : x - TOP // 2 + TOP] = 1.0
    return plane


def _found(centres: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Peaks of one colour plane after the spacing rule, as (x, y)."""
    maps = _squares(centres)[None, :, :]
    return [(x, y) for _, x, y, _ in select(maps, SIDE, np.ones(maps.shape[1:], np.bool_))]


@pytest.mark.parametrize(
    "centres",
    [
        [(30, 30)],
        [(30, 30), (39, 30)],
        # The blur of the centre score pulls a row's end cubes inwards; their peaks must
        # move back out, or the middle cube is lost between them.
        [(30, 30), (39, 30), (48, 30)],
        [(30, 25), (39, 25), (30, 34), (39, 34)],
        [(20, 30), (29, 30), (38, 30), (47, 30), (56, 30), (65, 30)],
    ],
    ids=["one", "two touching", "three in a row", "two by two", "six in a row"],
)
def test_touching_cubes_of_one_colour_give_one_peak_each(centres: list[tuple[int, int]]) -> None:
    found = _found(centres)
    assert len(found) == len(centres)
    for x, y in centres:
        nearest = min(np.hypot(x - a, y - b) for a, b in found)
        assert nearest <= 2.0


def test_a_cube_half_under_one_of_another_colour_is_found() -> None:
    # A red cube lies over a green one: of the green, a strip 4 pixels wide (less than half
    # a cube) shows beside the red top, their centres half a cube apart.
    red = _squares([(30, 30)])
    green = np.zeros_like(red)
    green[26:35, 35:39] = 1.0
    maps = np.stack([red, green])
    found = select(maps, SIDE, np.ones(red.shape, np.bool_))
    assert sorted(k for k, _, _, _ in found) == [0, 1]
    # The same strip in the red cube's own colour is the red cube's edge, not a cube.
    maps = np.stack([red + green, np.zeros_like(red)])
    assert len(select(maps, SIDE, np.ones(red.shape, np.bool_))) == 1


def test_a_cube_and_a_half_is_one_cube() -> None:
    # A strip half a cube wide beside a cube (a side face, a shadow that fit a colour) must
    # not become a second cube.
    plane = _squares([(30, 30)])
    plane[26:35, 35:39] = 1.0
    found = select(plane[None, :, :], SIDE, np.ones(plane.shape, np.bool_))
    assert len(found) == 1


def _region(size: tuple[int, int], *cubes: tuple[int, int]) -> tuple[np.ndarray, list[Found]]:
    """A changed region of `size` (width, height) pixels from (10, 10), and a cube found at
    each (x, y)."""
    foreground = np.zeros((60, 90), np.bool_)
    foreground[10 : 10 + size[1], 10 : 10 + size[0]] = True
    return foreground, [Found(0, float(x), float(y), 1.0, 9.0, 1) for x, y in cubes]


def test_a_lone_cube_is_measured_against_the_side_faces_a_lone_cube_shows() -> None:
    square = 100.0  # the square a cube's colour covers: 10 x 10 pixels
    # One cube and the shaded side faces a camera looking from the side sees: 16 x 10 pixels.
    foreground, cubes = _region((16, 10), (18, 15))
    assert area_doubts(cubes, foreground, square, 150.0) == []
    # Measured against that square alone, it would look like a cube and a half.
    assert area_doubts(cubes, foreground, square, square) == [doubt.CLUSTER]
    # Clearly more than a lone cube shows is one hidden beside it.
    foreground, cubes = _region((24, 10), (18, 15))
    assert area_doubts(cubes, foreground, square, 150.0) == [doubt.CLUSTER]


def test_a_lone_cube_showing_a_third_more_than_one_may_rest_on_another() -> None:
    # 20 x 10 pixels against the 150 a lone cube shows: 1.33 times, short of half a cube more
    # (EXTRA_AREA_CUBES), but the taller faces of a cube resting on another show that much.
    foreground, cubes = _region((20, 10), (18, 15))
    assert area_doubts(cubes, foreground, 100.0, 150.0) == [doubt.CLUSTER]
    # A little more than one lone cube shows is no doubt: 18 x 10 is 1.2 times.
    foreground, cubes = _region((18, 10), (18, 15))
    assert area_doubts(cubes, foreground, 100.0, 150.0) == []
    # A profile that saw no cube lying alone has only the square to go by (140 pixels are
    # 1.4 of it), which any cube's side faces exceed: there half a cube more is the bound.
    foreground, cubes = _region((14, 10), (16, 15))
    assert area_doubts(cubes, foreground, 100.0, 100.0) == []


def test_four_touching_cubes_may_hide_a_fifth() -> None:
    # A 2 x 2 block: each cube's square is all the area holds, yet one may lie under them.
    foreground = np.zeros((60, 90), np.bool_)
    foreground[10:30, 10:30] = True
    block = [Found(0, float(x), float(y), 1.0, 9.0, 1) for x in (15, 25) for y in (15, 25)]
    assert area_doubts(block, foreground, 100.0, 150.0) == [doubt.HEAP]
    # Three found there: not a heap, but the area holds a fourth.
    assert area_doubts(block[:3], foreground, 100.0, 150.0) == [doubt.CLUSTER]


def test_in_a_group_each_cube_is_worth_the_square_its_colour_covers() -> None:
    # Two touching cubes hide each other's side faces, and a third hidden under them shows
    # only a sliver: 26 x 10 pixels hold more than two squares even though two lone cubes
    # would show 300 pixels.
    foreground, cubes = _region((26, 10), (15, 15), (25, 15))
    assert area_doubts(cubes, foreground, 100.0, 150.0) == [doubt.CLUSTER]
    foreground, cubes = _region((22, 10), (15, 15), (25, 15))
    assert area_doubts(cubes, foreground, 100.0, 150.0) == []


def test_shade_beside_a_found_cube_is_that_cube_s_even_where_a_dark_colour_fits_it() -> None:
    shape = (60, 90)
    inside = np.ones(shape, np.bool_)
    cube = Found(0, 30.0, 30.0, 1.0, 9.0, 1)
    foreground = np.zeros(shape, np.bool_)
    foreground[26:35, 26:35] = True
    # Shade beyond the square the cube explains, fitting a dark colour well enough to count
    # as foreground.
    strip = np.zeros(shape, np.bool_)
    strip[26:35, 38:46] = True
    foreground |= strip
    none = np.zeros(shape, np.bool_)
    seen = Evidence(np.zeros((1, *shape), np.float32), foreground, none, strip)
    # The cube casts it (no shade is lone): nothing is left unexplained.
    assert unexplained_doubts([cube], seen, none, inside, SIDE) == []
    # Shade no found cube casts may be a dark cube.
    assert unexplained_doubts([cube], seen, strip, inside, SIDE) == [doubt.MAYBE_CUBE]


def _comparison(lab: np.ndarray, shadow: np.ndarray) -> Comparison:
    """A comparison where every pixel changed; `shadow` marks the shadow-like ones."""
    shape = lab.shape[:2]
    ones = np.ones(shape, np.float32)
    changed = np.ones(shape, np.bool_)
    deficit = np.zeros((*shape, 3), np.float32)
    return Comparison(
        lab, ones, changed, shadow, ones, (1.0, 1.0, 1.0), 1.0, 1.0, 1.0, 7.0, deficit
    )


def test_evidence_goes_to_the_colour_that_explains_a_pixel_and_not_to_plain_shadow() -> None:
    means = np.array([[30.0, 0.0, -30.0], [60.0, 0.0, 60.0]], np.float32)
    inverses = np.array([np.eye(3) / 9.0, np.eye(3) / 9.0], np.float32)
    lab = np.zeros((12, 12, 3), np.float32)
    lab[:, :6] = means[0]
    # The right half is a darker tray: grey, far from both colours.
    lab[:, 6:] = (40.0, 2.0, 2.0)
    shadow = np.zeros((12, 12), np.bool_)
    shadow[:, 6:] = True
    seen = evidence(_comparison(lab, shadow), means, inverses)
    assert seen.maps[0][:, 1:5].min() > 0.9
    assert seen.maps[1][:, :6].max() < 0.1
    assert seen.maps[:, :, 7:].max() == 0.0
    assert seen.shadow[:, 7:].all() and not seen.foreground[:, 7:].any()


def test_a_pixel_lighter_than_the_floor_that_only_darker_colours_explain_is_unexplained() -> None:
    # A white cube in the wall's shade on a darker floor: black fits it best, but black
    # cannot look lighter than the floor, so no colour claims it and it is left over for
    # `off_colour_cubes` rather than lost.
    means = np.array([[32.0, -2.0, -3.0], [77.0, 0.0, 3.0]], np.float32)
    inverses = np.array([np.eye(3) / 81.0, np.eye(3) / 9.0], np.float32)
    lab = np.full((12, 12, 3), (57.0, 2.0, -2.0), np.float32)
    no_shadow = np.zeros((12, 12), np.bool_)
    dark_floor = np.full((12, 12), 47.0, np.float32)
    seen = evidence(_comparison(lab, no_shadow), means, inverses, floor=dark_floor)
    assert seen.maps.max() == 0.0
    assert seen.unexplained.all()
    # On a floor lighter than it, black's claim stands and the pixel is explained.
    light_floor = np.full((12, 12), 70.0, np.float32)
    seen = evidence(_comparison(lab, no_shadow), means, inverses, floor=light_floor)
    assert seen.maps[0].min() > 0.9
    assert not seen.unexplained.any()


def test_a_cube_on_floor_only_the_room_lights_shows_its_colour_in_that_shade() -> None:
    # A red cube against the wall lies where the wall hides the lamp: lit by the room alone it
    # shows Lab (23, 30, 21), too dark for red's model (44, 37, 30) and no nearer brown's. As
    # the room's light shows red at that lightness it is red.
    means = np.array([[44.0, 37.0, 30.0], [40.0, 8.0, 23.0]], np.float32)
    inverses = np.array([np.eye(3) / 16.0] * 2, np.float32)
    lab = np.full((12, 12, 3), (23.0, 30.0, 21.0), np.float32)
    no_shadow = np.zeros((12, 12), np.bool_)
    shaded = np.zeros((12, 12), np.bool_)
    shaded[:, :6] = True
    seen = evidence(_comparison(lab, no_shadow), means, inverses, room_lit=(shaded, None))
    assert seen.maps[0][:, :6].min() > 0.9 and not seen.unexplained[:, :6].any()
    # Where the lamp lights the floor, the lamp lights a cube too: no colour explains it.
    assert seen.maps[:, :, 6:].max() == 0.0 and seen.unexplained[:, 6:].all()
    # Plain shade there is the floor darkened, not a cube.
    seen = evidence(_comparison(lab, ~no_shadow), means, inverses, room_lit=(shaded, None))
    assert seen.maps.max() == 0.0


def test_a_white_cube_only_the_room_lights_is_white_though_darker_than_the_floor() -> None:
    # In a wall's shade on floor of L 54 a white cube shows (49, -1, -6): blue's wide model
    # explains it as it is (its lightness), white as the room's light shows white far better.
    # Judged so it is white's shade, so its lying darker than the floor does not rule white out.
    means = np.array([[38.0, 12.0, -33.0], [78.0, 0.0, 5.0]], np.float32)
    inverses = np.array([np.eye(3) / 49.0, np.eye(3) / 16.0], np.float32)
    lab = np.full((12, 12, 3), (49.0, -1.0, -6.0), np.float32)
    no_shadow = np.zeros((12, 12), np.bool_)
    floor = np.full((12, 12), 54.0, np.float32)
    room_lit = (np.ones((12, 12), np.bool_), None)
    seen = evidence(_comparison(lab, no_shadow), means, inverses, floor, room_lit=room_lit)
    assert seen.maps[1].min() > 0.9 and seen.maps[0].max() < 0.1
    # Where the lamp lights the floor it is what it looks: blue.
    seen = evidence(_comparison(lab, no_shadow), means, inverses, floor)
    assert seen.maps[0].min() > 0.9 and seen.maps[1].max() == 0.0


def test_colours_judged_in_shade_at_once_are_judged_as_one_by_one() -> None:
    means = np.array([[77.0, 0.0, 3.0], [44.0, 37.0, 30.0]], np.float32)
    inverses = np.array([np.eye(3) / 9.0, np.eye(3) / 16.0], np.float32)
    colours = np.array([[50.0, 1.0, 2.0], [30.0, 25.0, 20.0], [90.0, 0.0, 0.0]], np.float32)
    at_once = in_shade_distances2(colours, means, inverses, DEEPEST_SHADE)
    for colour, row in zip(colours, at_once, strict=True):
        assert np.allclose(in_shade_distances2(colour, means, inverses, DEEPEST_SHADE), row)
    # Lighter than every model: no shade explains it.
    assert np.isinf(at_once[2]).all()


def test_a_dark_cube_is_not_hidden_by_the_shadow_of_its_own_lit_edge() -> None:
    # A black cube on a light floor darkens it like a shadow does; only a thin rim of its
    # top catches the light. That rim casts no shadow: only solid objects do.
    black = np.array([[15.0, 5.0, 10.0]], np.float32)
    inverses = np.array([np.eye(3) / 9.0], np.float32)
    lab = np.full((40, 40, 3), (60.0, 5.0, 15.0), np.float32)
    shadow = np.zeros((40, 40), np.bool_)
    lab[10:21, 10:21] = black[0]
    shadow[10:21, 10:21] = True
    lab[10:21, 8:10] = (45.0, 5.0, 12.0)  # the lit rim: changed, not shadow-like
    changed = np.zeros((40, 40), np.bool_)
    changed[10:21, 8:21] = True
    ones = np.ones((40, 40), np.float32)
    deficit = np.zeros((40, 40, 3), np.float32)
    view = Comparison(
        lab, ones, changed, shadow, ones, (1.0, 1.0, 1.0), 1.0, 1.0, 1.0, 7.0, deficit
    )
    seen = evidence(view, black, inverses, shadow_offset=(6.0, 0.0), cube_side=11.0)
    assert seen.maps[0][12:19, 12:19].min() > 0.5
    # A solid caster beside it still claims its shadow.
    lab[10:21, 22:33] = (40.0, 40.0, 30.0)
    changed[10:21, 22:33] = True
    seen = evidence(view, black, inverses, shadow_offset=(-6.0, 0.0), cube_side=11.0)
    assert seen.maps[0][12:19, 12:19].max() == 0.0


def test_a_cube_on_print_of_its_own_colour_is_found_by_its_shadow() -> None:
    # Red print, a red cube on it that changes nothing, and its shadow two thirds of a cube
    # to the right. A green cube elsewhere casts its own shadow, which implies nothing.
    means = np.array([[40.0, 50.0, 30.0], [45.0, -40.0, 30.0]], np.float32)
    inverses = np.array([np.eye(3) / 9.0, np.eye(3) / 9.0], np.float32)
    lab = np.full((60, 90, 3), (41.0, 49.0, 31.0), np.float32)
    lab[20:31, 60:71] = means[1]
    shadow = np.zeros((60, 90), np.bool_)
    shadow[20:31, 31:39] = True  # the red cube's (at 20..30 x 20..30)
    shadow[20:31, 71:79] = True  # the green cube's
    green = Found(1, 65.0, 25.0, 1.0, 10.0, 0)
    inside = np.ones((60, 90), np.bool_)
    lone = lone_shade([green], shadow, inside, SIDE, (8.0, 0.0))
    # The green cube's own shadow is accounted for; the red cube's is not.
    assert lone[25, 34] and not lone[25, 75]
    models = (means, inverses, np.zeros(len(means), np.bool_))
    implied = shadow_casters([green], lone, shadow, lab, inside, SIDE, (8.0, 0.0), models)
    assert [c.colour for c in implied] == [0]
    # Back along the light from its shadow, within half a cube of where it lies.
    assert abs(implied[0].x - 25.0) <= SIDE / 2 and abs(implied[0].y - 25.0) <= 1.0
    assert implied[0].confidence < 0.5
    # Plain floor of no cube colour under the shade: a shadow, but no cube to name.
    lab[:, :50] = (70.0, 0.0, 10.0)
    assert shadow_casters([green], lone, shadow, lab, inside, SIDE, (8.0, 0.0), models) == []


def _checker(size: int = 60, square: int = 6) -> np.ndarray:
    """Lightness of a checkered print, L 30 and 50, slightly softened like a camera's."""
    rows, cols = np.indices((size, size))
    plain = np.where(((rows // square) + (cols // square)) % 2 == 0, 30.0, 50.0)
    return np.asarray(cv2.GaussianBlur(plain.astype(np.float32), (0, 0), 0.8), np.float32)


def test_a_cube_the_colour_of_the_print_hides_its_edges() -> None:
    empty = _checker()
    edges = gradient(empty)
    inside = np.ones(empty.shape, np.bool_)
    none = np.zeros(empty.shape, np.bool_)
    # A grey cube of the print's average lightness: no pixel's colour is far off, but the
    # checker's edges under it are gone.
    picture = empty.copy()
    picture[20:31, 20:31] = 40.0
    gone = covered_print(picture, edges, none, inside)
    assert gone[20:31, 20:31].sum() >= 20 and not gone[40:, 40:].any()
    # A shadow only darkens the print: its edges stay, weaker.
    shaded = empty.copy()
    shaded[20:31, 20:31] *= 0.5
    assert not covered_print(shaded, edges, none, inside).any()
    # A softer picture weakens every edge alike.
    soft = np.asarray(cv2.GaussianBlur(empty, (0, 0), 1.2), np.float32)
    assert not covered_print(soft, edges, none, inside).any()


def test_the_empty_tray_has_no_cubes(cal: CalibrationSet, profile: Profile) -> None:
    reading = read_tray(cal.empty.image, profile)
    assert reading.counts == Counts()
    assert reading.confident


def test_calibration_pictures_are_counted_one_colour_each(
    cal: CalibrationSet, profile: Profile
) -> None:
    exact = 0
    for colour, shot in cal.colours:
        reading = read_tray(shot.image, profile)
        # About as many of the picture's colour as lie there; a sure reading is right.
        assert abs(reading.counts[colour] - shot.counts[colour]) <= 1, (colour, reading.counts)
        assert reading.counts == shot.counts or not reading.confident, (colour, reading.counts)
        exact += reading.counts == shot.counts
    assert exact >= 5


def test_found_cubes_are_placed_on_the_true_cubes(cal: CalibrationSet, profile: Profile) -> None:
    corners = np.array(profile.tray_corners)
    picture_per_view = float(np.linalg.norm(corners[1] - corners[0])) / profile.view_width
    # Within half a cube's side of a true cube's top (the benchmark allows 0.8).
    tolerance = 0.5 * profile.cube_side * picture_per_view
    for colour in (Colour.BLUE, Colour.GREEN, Colour.WHITE):
        shot = dict(cal.colours)[colour]
        reading = read_tray(shot.image, profile)
        assert reading.cubes
        for cube in reading.cubes:
            nearest = min(np.hypot(cube.x - t.x, cube.y - t.y) for t in shot.cubes)
            assert nearest < tolerance, (colour, nearest, tolerance)


def test_calibration_measures_what_a_lone_cube_shows(profile: Profile) -> None:
    # Its top and the side faces the camera sees: more than the top, less than three tops.
    assert 1.0 < profile.lone_cube_area / profile.cube_side**2 < 3.0


def test_a_picture_of_another_size_is_refused(profile: Profile) -> None:
    with pytest.raises(ImageError, match="calibrate again"):
        read_tray(np.zeros((50, 60, 3), np.uint8), profile)


def test_a_black_frame_is_unsure(profile: Profile) -> None:
    black = np.zeros((profile.picture_height, profile.picture_width, 3), np.uint8)
    reading = read_tray(black, profile)
    assert not reading.confident and reading.counts == Counts()
    assert "too dark" in reading.reasons[0]


def test_a_clipped_colour_is_judged_loosely_only_where_lighter() -> None:
    # A white model learned from clipped pixels: a lighter pixel of another tint gets the
    # slack (the clip hid both), a darker one (a brown beside it) does not; a pixel at the
    # camera's limit gets the slack against every colour.
    means = np.array([[90.0, 5.0, 5.0], [45.0, 10.0, 20.0]], np.float32)
    inverses = np.stack([np.eye(3, dtype=np.float32) / 4.0] * 2)
    pixels = np.array([[99.0, -5.0, 14.0], [70.0, 5.0, 5.0]], np.float32)
    plain = distances2(pixels, means, inverses)
    clipped = np.array([True, False])
    loose = distances2(pixels, means, inverses, clipped)
    assert loose[0, 0] == pytest.approx(plain[0, 0] / LOOSE_SLACK)
    assert loose[1, 0] == pytest.approx(plain[1, 0])
    assert np.allclose(loose[:, 1], plain[:, 1])
    saturated = np.array([False, True])
    both = distances2(pixels, means, inverses, clipped, saturated)
    assert np.allclose(both[1], plain[1] / LOOSE_SLACK)
    assert both[0, 0] == pytest.approx(plain[0, 0] / LOOSE_SLACK)


def _lab(bgr: tuple[float, float, float]) -> np.ndarray:
    """One BGR colour (0..1 levels) as Lab."""
    return cv2.cvtColor(np.array([[bgr]], np.float32), cv2.COLOR_BGR2Lab)[0, 0]


def test_a_white_with_its_red_clipped_still_looks_white() -> None:
    # A pinkish white learned at calibration (red near the top of the range) and a pale
    # green: in a brighter picture the white's red stops at the camera's limit, and its Lab
    # comes nearer the green's than its own. Judged against the models as that limit shows
    # them, it is white again; an unclipped pixel is judged as before.
    white, green = _lab((0.59, 0.71, 0.99)), _lab((0.50, 0.72, 0.70))
    means = np.stack([white, green]).astype(np.float32)
    inverses = np.stack([np.eye(3, dtype=np.float32) / 9.0] * 2)
    ceiling = (1.0, 1.0, 0.75)
    pixels = np.stack([_lab((0.59, 0.71, 0.75)), white]).astype(np.float32)
    seen = seen_at_limit(pixels[:1], means, ceiling)[0]
    assert np.allclose(seen[0], pixels[0], atol=0.5)
    assert np.allclose(seen[1], green, atol=0.5)
    plain = distances2(pixels, means, inverses)
    assert plain[0, 1] < plain[0, 0]
    saturated = np.array([True, False])
    aware = distances2(pixels, means, inverses, None, saturated, ceiling)
    assert aware[0, 0] < 0.1 < aware[0, 1]
    assert np.allclose(aware[1], plain[1])


def test_a_white_in_brighter_light_than_calibration_still_looks_white_but_a_brown_no_yellow() -> (
    None
):
    # The white cube lies nearer the lamp than calibration's did: its blue and green are a
    # fifth brighter and its red is held at the limit, so it looks yellower than the white
    # model even as the limit shows that. Brightened as far as its unclipped channels tell,
    # the white model matches it. A brown that even brightened stays below the limit is
    # left as it is: a yellow at the limit must not pass for a bright brown.
    white, brown, yellow = _lab((0.55, 0.66, 0.86)), _lab((0.12, 0.28, 0.45)), _lab((0.1, 0.7, 0.8))
    means = np.stack([white, brown, yellow]).astype(np.float32)
    ceiling = (1.0, 1.0, 0.9)
    brighter = _lab((0.66, 0.79, 0.9))
    seen = seen_at_limit(brighter[None, :].astype(np.float32), means, ceiling)[0]
    assert np.allclose(seen[0], brighter, atol=0.5)
    assert np.allclose(seen[1], brown, atol=0.5)
    at_limit = _lab((0.15, 0.85, 0.9))
    seen = seen_at_limit(at_limit[None, :].astype(np.float32), means, ceiling)[0]
    assert np.allclose(seen[1], brown, atol=0.5)
    assert np.linalg.norm(seen[2] - at_limit) < np.linalg.norm(yellow - at_limit)


def _grey(lightness: np.ndarray) -> np.ndarray:
    """A grey Lab picture of the given lightness (a and b 0)."""
    return np.dstack([lightness, np.zeros_like(lightness), np.zeros_like(lightness)])


def test_a_shadow_that_passes_for_a_dark_cube_is_dropped_but_a_real_one_beside_a_cube_is_not() -> (
    None
):
    # A lamp throws shadows 10 pixels up (cube side 12). A blue cube at (40, 40); a peak of
    # black 7 pixels up, where the blue's shadow falls, shows L 20 on a floor of L 50.
    offset = (0.0, -10.0)
    floor = np.full((80, 80), 50.0, np.float32)
    lightness = floor.copy()
    lightness[34:47, 34:47] = 30.0  # the blue cube and the shade beside it
    lightness[28:39, 35:46] = 20.0
    changed = np.zeros((80, 80), np.bool_)
    changed[28:47, 34:47] = True
    found = [(0, 40, 40, 1.0), (1, 40, 33, 0.7)]
    kept = without_cast_shadows(found, offset, SIDE, _grey(lightness), _grey(floor), changed)
    assert kept == [found[0]]
    # Filled beyond what shade gives (a shade pixel counts likelihood.SHADOW_WEIGHT, 0.8, at
    # most), it is a cube even there: by a wall, the floor beyond it cannot show its shadow.
    filled = [found[0], (1, 40, 33, 0.97)]
    assert (
        without_cast_shadows(filled, offset, SIDE, _grey(lightness), _grey(floor), changed)
        == filled
    )
    # A real black cube there darkens the floor a shadow offset further on: it stays.
    changed[18:29, 36:45] = True
    assert (
        without_cast_shadows(found, offset, SIDE, _grey(lightness), _grey(floor), changed) == found
    )
    # Away from where the blue's shadow falls, or no darker than the floor, a peak stays.
    changed[18:29, 36:45] = False
    aside = [(0, 40, 40, 1.0), (1, 51, 40, 0.7)]
    assert (
        without_cast_shadows(aside, offset, SIDE, _grey(lightness), _grey(floor), changed) == aside
    )
    lighter = lightness.copy()
    lighter[28:39, 35:46] = 90.0
    light = [(0, 40, 40, 1.0), (2, 40, 33, 0.7)]
    assert without_cast_shadows(light, offset, SIDE, _grey(lighter), _grey(floor), changed) == light


def test_only_the_bare_floor_tells_whether_a_peak_in_a_cube_s_shadow_throws_its_own() -> None:
    # As above: a black peak in a blue cube's shadow, L 20 on a floor of L 50. A red cube
    # lies beside the spot where the peak's own shadow would fall and covers part of it: its
    # pixels there are changed, but it is no shadow. The floor left bare is unchanged, so the
    # peak throws none and is shade (path-traced C 207 drop 5: shade among five cubes).
    offset = (0.0, -10.0)
    floor = np.full((80, 80), 50.0, np.float32)
    lightness = floor.copy()
    lightness[34:47, 34:47] = 30.0
    lightness[28:39, 35:46] = 20.0
    changed = np.zeros((80, 80), np.bool_)
    changed[28:47, 34:47] = True
    changed[16:31, 42:55] = True  # the red cube
    found = [(0, 40, 40, 1.0), (1, 40, 33, 0.7), (2, 48, 23, 1.0)]
    picture, empty = _grey(lightness), _grey(floor)
    kept = without_cast_shadows(found, offset, SIDE, picture, empty, changed)
    assert kept == [found[0], found[2]]
    # A real black cube there darkens the bare floor beyond it too: it stays.
    changed[18:29, 36:42] = True
    assert without_cast_shadows(found, offset, SIDE, picture, empty, changed) == found


def test_a_dark_peak_that_throws_no_shadow_of_its_own_is_shade() -> None:
    # A lamp throws shadows 10 pixels up (cube side 12). A black peak at (40, 40), L 30 on a
    # floor of L 50, with no found cube to cast it: the floor where its own shadow would fall
    # is unchanged, so it is shade.
    offset = (0.0, -10.0)
    floor = np.full((80, 80), 50.0, np.float32)
    lightness = floor.copy()
    lightness[34:47, 34:47] = 30.0
    changed = np.zeros((80, 80), np.bool_)
    changed[34:47, 34:47] = True
    lone = [(1, 40, 40, 0.7)]
    picture, empty = _grey(lightness), _grey(floor)
    assert without_cast_shadows(lone, offset, SIDE, picture, empty, changed) == []
    # A real cube there darkens the floor beyond it with its shadow.
    cast = changed.copy()
    cast[24:34, 34:47] = True
    assert without_cast_shadows(lone, offset, SIDE, picture, empty, cast) == lone
    # Where a wall already shades the floor beyond it in the empty tray, no shadow can show.
    walled = np.zeros((80, 80), np.bool_)
    walled[:34, :] = True
    assert without_cast_shadows(lone, offset, SIDE, picture, empty, changed, walled) == lone


def test_a_cube_lies_in_shade_when_the_floor_where_its_shadow_falls_is_unchanged() -> None:
    # A lamp throws shadows 10 pixels up (cube side 12); a cube lies at (40, 40).
    offset = (0.0, -10.0)
    changed = np.zeros((80, 80), np.bool_)
    changed[34:47, 34:47] = True  # the cube
    floor = np.ones((80, 80), np.bool_)
    assert lies_in_shade(40, 40, offset, SIDE, changed, floor)
    # Its peak may lie off its centre, towards the light's far side: the cube's own edge
    # then reaches into the box one offset on, but not further on.
    assert lies_in_shade(40, 42, offset, SIDE, changed, floor)
    # Its shadow shows: it lies in the light.
    shadowed = changed.copy()
    shadowed[26:35, 35:46] = True
    assert not lies_in_shade(40, 40, offset, SIDE, shadowed, floor)
    # Where the shadow would fall is no floor (the wall's face) or beyond the view: unknown,
    # and a cube is taken as lit.
    walled = floor.copy()
    walled[:31, :] = False
    assert not lies_in_shade(40, 40, offset, SIDE, changed, walled)
    assert not lies_in_shade(40, 6, offset, SIDE, changed, floor)


def test_a_dark_cube_where_a_shadow_falls_stays_when_its_colour_is_no_shade_of_the_floor() -> None:
    # Red print (L 50, a 60, b 45); a red cube at (40, 40) and, where its shadow falls, a
    # peak of L 35. Red print in shade would keep a and b near 60 and 45 times 51/66; a
    # brown cube's (a 22, b 30) lie far off that, so it stays. A peak the print's own hue,
    # darker, is the shadow and goes.
    offset = (0.0, -10.0)
    floor = np.dstack([np.full((80, 80), v, np.float32) for v in (50.0, 60.0, 45.0)])
    picture = floor.copy()
    picture[34:47, 34:47] = (50.0, 62.0, 47.0)  # the red cube
    picture[28:39, 35:46] = (35.0, 22.0, 30.0)  # a brown cube where its shadow falls
    changed = np.zeros((80, 80), np.bool_)
    changed[28:47, 34:47] = True
    found = [(0, 40, 40, 1.0), (1, 40, 33, 0.7)]
    assert without_cast_shadows(found, offset, SIDE, picture, floor, changed) == found
    picture[28:39, 35:46] = (35.0, 60.0 * 51 / 66, 45.0 * 51 / 66)
    assert without_cast_shadows(found, offset, SIDE, picture, floor, changed) == [found[0]]


def test_a_weak_peak_in_the_colour_of_the_floor_in_shade_is_shade_wherever_it_lies() -> None:
    # Blue print (L 50, a 10, b -40); a red cube at (40, 40) whose shadow falls 10 pixels up.
    # A blue peak lies a whole side to the left, further across that shadow's line than a
    # peak it casts may lie, in the print's very colour in shade (L 30).
    offset = (0.0, -10.0)
    floor = np.dstack([np.full((80, 80), v, np.float32) for v in (50.0, 10.0, -40.0)])
    picture = floor.copy()
    picture[34:47, 34:47] = (45.0, 60.0, 45.0)  # the red cube
    factor = (30.0 + 16.0) / (50.0 + 16.0)
    picture[25:36, 23:34] = (30.0, 10.0 * factor, -40.0 * factor)  # the print in shade
    changed = np.zeros((80, 80), np.bool_)
    changed[34:47, 34:47] = True
    changed[25:36, 23:34] = True
    weak = [(2, 40, 40, 1.0), (0, 28, 30, 0.5)]
    assert without_cast_shadows(weak, offset, SIDE, picture, floor, changed) == [weak[0]]
    # Filling its box as a cube does, it stays; so does a weak black one, black being any
    # floor's colour in deep shade; and so does a weak one in a colour off the print's shade.
    # (Each a cube, it throws its own shadow up: a peak that throws none is shade, see
    # test_a_dark_peak_that_throws_no_shadow_of_its_own_is_shade.)
    changed[15:25, 23:34] = True
    filled = [weak[0], (0, 28, 30, 0.8)]
    assert without_cast_shadows(filled, offset, SIDE, picture, floor, changed) == filled
    black = [weak[0], (1, 28, 30, 0.5)]
    assert without_cast_shadows(black, offset, SIDE, picture, floor, changed) == black
    picture[25:36, 23:34] = (30.0, 12.0, -20.0)  # a blue cube, duller than the print
    assert without_cast_shadows(weak, offset, SIDE, picture, floor, changed) == weak


def test_a_peak_on_the_arm_of_a_cubes_l_shaped_shadow_is_dropped_too() -> None:
    # The lamp throws shadows 4 pixels left and 6 up (cube side 12): the blue cube at (40, 40)
    # darkens an L-shaped band along its left and top sides. Noise keeps the band from
    # looking like shade, and its darkest spot, found as a black peak, lies on the left arm,
    # half a side across the line the offset draws through the cube.
    offset = (-4.0, -6.0)
    floor = np.full((80, 80), 50.0, np.float32)
    lightness = floor.copy()
    lightness[28:41, 30:43] = 20.0  # the cube's square slid along the offset
    lightness[34:47, 34:47] = 45.0  # the blue cube on top of it
    changed = np.zeros((80, 80), np.bool_)
    changed[28:41, 30:43] = True
    changed[34:47, 34:47] = True
    found = [(0, 40, 40, 1.0), (1, 31, 37, 0.7)]
    assert without_cast_shadows(found, offset, SIDE, _grey(lightness), _grey(floor), changed) == [
        found[0]
    ]
    # A black peak as far along but most of a side across is no shadow of the blue: it stays
    # (a cube, it changes the floor and throws its own shadow).
    lightness[35:46, 23:34] = 20.0
    changed[35:46, 23:34] = True
    changed[29:40, 19:30] = True
    beside = [(0, 40, 40, 1.0), (1, 28, 40, 0.7)]
    assert (
        without_cast_shadows(beside, offset, SIDE, _grey(lightness), _grey(floor), changed)
        == beside
    )


def test_a_shadow_on_a_floor_darker_than_black_is_no_black_cube() -> None:
    # The floor (L 14) is darker than a black cube's top (L 20), but the shadow on it is
    # darker still (L 7), and a wide black model takes it: what the picture shows there
    # decides, not the colour's mean.
    offset = (10.0, 0.0)
    floor = np.full((80, 80), 14.0, np.float32)
    lightness = floor.copy()
    lightness[35:46, 35:46] = 45.0  # a blue cube at (40, 40)
    lightness[36:45, 46:56] = 7.0  # its shadow, to the right
    changed = np.zeros((80, 80), np.bool_)
    changed[35:46, 35:56] = True
    found = [(0, 40, 40, 1.0), (1, 48, 40, 0.7)]
    assert without_cast_shadows(found, offset, SIDE, _grey(lightness), _grey(floor), changed) == [
        found[0]
    ]
    # A black cube there shows its own top, lighter than the floor: it stays.
    lightness[36:45, 46:56] = 20.0
    assert (
        without_cast_shadows(found, offset, SIDE, _grey(lightness), _grey(floor), changed) == found
    )


def test_a_short_shadow_is_dropped_where_its_band_lies_beyond_the_cube_s_edge() -> None:
    # A high lamp throws shadows 6 pixels up, half a side: the blue cube at (40, 40) darkens
    # a band from its top edge (row 34) to row 28, whose middle lies 1.5 offsets from the
    # cube's centre. A black peak there is the shadow.
    offset = (0.0, -6.0)
    floor = np.full((80, 80), 50.0, np.float32)
    lightness = floor.copy()
    lightness[34:47, 34:47] = 45.0  # the blue cube
    lightness[28:34, 34:47] = 20.0  # its shadow
    changed = np.zeros((80, 80), np.bool_)
    changed[28:47, 34:47] = True
    found = [(0, 40, 40, 1.0), (1, 40, 31, 0.7)]
    assert without_cast_shadows(found, offset, SIDE, _grey(lightness), _grey(floor), changed) == [
        found[0]
    ]
    # A black cube touching the blue lies a side, two offsets, out: past the band, it stays.
    lightness[22:34, 34:47] = 20.0
    lightness[16:22, 34:47] = 30.0
    changed[16:34, 34:47] = True
    touching = [(0, 40, 40, 1.0), (1, 40, 28, 0.7)]
    assert (
        without_cast_shadows(touching, offset, SIDE, _grey(lightness), _grey(floor), changed)
        == touching
    )


def test_a_weak_peak_beside_a_cube_in_that_cube_s_colour_in_shade_is_its_side_face() -> None:
    # A white cube's top (L 90, b 5) at (38, 40), cube side 12; the side face the camera sees
    # beside it, in shade, is the same white in less light: L + 16 at 0.62 of the top's, a
    # and b scaled alike. A black peak found on it, 7 pixels off (closer than touching cubes
    # lie), filling half its box, is that face.
    white, black, blue = (COLOURS.index(c) for c in (Colour.WHITE, Colour.BLACK, Colour.BLUE))
    factor = 66.0 / 106.0
    lit = np.array([90.0, 0.0, 5.0], np.float32)
    shade = np.array([66.0 - 16.0, 0.0, 5.0 * factor], np.float32)
    top = Found(white, 38.0, 40.0, 1.0, 5.0, black)
    peak = Found(black, 45.0, 40.0, 0.5, 1.0, white)
    assert without_side_faces([top, peak], [lit, shade], SIDE, None) == ([top], [peak])
    # A black cube half hidden there shows a black top, far darker than any white in shade.
    dark = np.array([25.0, 0.0, 1.0], np.float32)
    assert without_side_faces([top, peak], [lit, dark], SIDE, None) == ([top, peak], [])
    # A blue one shows a hue no white in shade has.
    bluish = np.array([50.0, 10.0, -40.0], np.float32)
    blue_peak = Found(blue, 45.0, 40.0, 0.5, 1.0, white)
    assert without_side_faces([top, blue_peak], [lit, bluish], SIDE, None) == (
        [top, blue_peak],
        [],
    )
    # The shaded white again: a peak that fills its box well, or lies where a touching cube
    # would, is a cube of its own.
    filled = Found(black, 45.0, 40.0, 0.9, 1.0, white)
    assert without_side_faces([top, filled], [lit, shade], SIDE, None) == ([top, filled], [])
    touching = Found(black, 48.0, 40.0, 0.5, 1.0, white)
    assert without_side_faces([top, touching], [lit, shade], SIDE, None) == ([top, touching], [])


def test_a_weak_peak_in_a_blend_of_a_neighbour_and_the_floor_is_that_neighbour_s_edge() -> None:
    # A yellow cube (L 62, a 2, b 48) at (38, 40) on purple print (L 45, a 30, b -35), cube
    # side 12. Their blend half way, (53.5, 16, 6.5), is reddish: a red peak there, 8 pixels
    # off (closer than touching tops), filling 0.7 of its box, is the yellow's blurred edge.
    yellow, red = COLOURS.index(Colour.YELLOW), COLOURS.index(Colour.RED)
    cube = np.array([62.0, 2.0, 48.0], np.float32)
    purple = np.array([45.0, 30.0, -35.0], np.float32)
    blend = (0.5 * (cube + purple)).astype(np.float32)
    top = Found(yellow, 38.0, 40.0, 1.0, 5.0, red)
    edge = Found(red, 46.0, 40.0, 0.7, 1.0, yellow)
    assert at_neighbours_edge([top, edge], [cube, blend], [purple, purple], SIDE) == [False, True]
    # A red cube lying there is red, off that blend (its box filled as the edge's was).
    own = np.array([45.0, 45.0, 30.0], np.float32)
    assert at_neighbours_edge([top, edge], [cube, own], [purple, purple], SIDE) == [False, False]
    # The blend again: where a touching cube's top would lie, or filling its box too well to
    # be an edge, it is a cube of its own.
    touching = Found(red, 48.0, 40.0, 0.7, 1.0, yellow)
    assert at_neighbours_edge([top, touching], [cube, blend], [purple, purple], SIDE) == [
        False,
        False,
    ]
    filled = Found(red, 46.0, 40.0, 0.9, 1.0, yellow)
    assert at_neighbours_edge([top, filled], [cube, blend], [purple, purple], SIDE) == [
        False,
        False,
    ]
    # On a light floor white lies at the floor's end of every blend: a white peak is kept.
    grey = np.array([80.0, 0.0, 3.0], np.float32)
    white = Found(COLOURS.index(Colour.WHITE), 46.0, 40.0, 0.7, 1.0, yellow)
    light = (0.9 * grey + 0.1 * cube).astype(np.float32)
    assert at_neighbours_edge([top, white], [cube, light], [grey, grey], SIDE) == [False, False]


# A cube coloured as its model: all the way from the floor, on the way.
CUBE = (1.0, 0.0)


def test_a_weak_peak_beside_a_cube_coloured_nearer_the_floor_than_its_model_is_shade() -> None:
    # Light floor (L 80), black's model L 30: a peak of L 70 lies a fifth of the way from the
    # floor to black, one of L 36 most of the way.
    floor = np.array([80.0, 0.0, 0.0], np.float32)
    black_model = np.array([30.0, 0.0, 0.0], np.float32)
    pale, dark = (np.array([value, 0.0, 0.0], np.float32) for value in (70.0, 36.0))
    assert toward_model(pale, floor, black_model) == pytest.approx((0.2, 0.0))
    assert toward_model(dark, floor, black_model) == pytest.approx((0.88, 0.0))
    # A red cube at (38, 40) and a weak black peak 10 pixels off (cube side 12).
    red, black = COLOURS.index(Colour.RED), COLOURS.index(Colour.BLACK)
    top = Found(red, 38.0, 40.0, 1.0, 5.0, black)
    peak = Found(black, 48.0, 40.0, 0.5, 1.0, red)
    assert at_foot_shade([top, peak], [CUBE, (0.2, 0.0)], SIDE) == [False, True]
    # The shade round a cube's foot can fill three quarters of a box (path-traced A 013 drop
    # 0: 0.76, teal floor darkened round a red cube): it is shade all the same.
    wide = Found(black, 48.0, 40.0, 0.76, 1.0, red)
    assert at_foot_shade([top, wide], [CUBE, (0.2, 0.0)], SIDE) == [False, True]
    # Half way from the floor to black is shade still: shade is what darkens a floor towards
    # black. Half way from the floor to white, a white cube half hidden lies as near.
    assert at_foot_shade([top, peak], [CUBE, (0.5, 0.0)], SIDE) == [False, True]
    pale_peak = Found(COLOURS.index(Colour.WHITE), 48.0, 40.0, 0.5, 1.0, red)
    assert at_foot_shade([top, pale_peak], [CUBE, (0.5, 0.0)], SIDE) == [False, False]
    # Coloured most of the way to black it may be a black cube half hidden: it stays.
    assert at_foot_shade([top, peak], [CUBE, (0.88, 0.0)], SIDE) == [False, False]
    # So does a peak that fills its box well, and one farther than a working side off.
    filled = Found(black, 48.0, 40.0, 0.9, 1.0, red)
    assert at_foot_shade([top, filled], [CUBE, (0.2, 0.0)], SIDE) == [False, False]
    far = Found(black, 38.0 + 1.1 * SIDE, 40.0, 0.5, 1.0, red)
    assert at_foot_shade([top, far], [CUBE, (0.2, 0.0)], SIDE) == [False, False]
    # Beside a black cube the pale peak is shade all the same: a second black cube there
    # would show black. Alone, nothing casts it.
    own = Found(black, 38.0, 40.0, 1.0, 5.0, red)
    assert at_foot_shade([own, peak], [CUBE, (0.2, 0.0)], SIDE) == [False, True]
    assert at_foot_shade([peak], [(0.2, 0.0)], SIDE) == [False]


def test_a_filled_peak_is_foot_shade_only_as_a_blend_of_floor_and_model() -> None:
    # Purple print (53, 44, -48) and red's model (39, 42, 8), stretched towards that floor
    # (path-traced B 111): the floor beside a red cube, lit red, fills a red peak's box.
    floor = np.array([53.0, 44.0, -48.0], np.float32)
    red_model = np.array([39.0, 42.0, 8.0], np.float32)
    reddened = (0.7 * floor + 0.3 * red_model).astype(np.float32)
    toward, off = toward_model(reddened, floor, red_model)
    assert toward == pytest.approx(0.3, abs=1e-4)
    assert off == pytest.approx(0.0, abs=1e-4)
    # The same share of the way, half a way's length off every blend: a cube half hidden
    # (its box takes in the cube over it), not the floor.
    way = float(np.linalg.norm(red_model - floor))
    aside = (reddened + np.array([0.0, 0.5 * way, 0.0])).astype(np.float32)
    assert toward_model(aside, floor, red_model)[1] == pytest.approx(0.5, abs=1e-3)
    red, blue = COLOURS.index(Colour.RED), COLOURS.index(Colour.BLUE)
    top = Found(red, 38.0, 40.0, 1.0, 12.0, blue)
    peak = Found(red, 48.0, 40.0, 0.9, 3.0, blue)
    assert at_foot_shade([top, peak], [CUBE, (0.3, 0.0)], SIDE) == [False, True]
    assert at_foot_shade([top, peak], [CUBE, (0.3, 0.5)], SIDE) == [False, False]
    # Farther along the way it may be a red cube.
    assert at_foot_shade([top, peak], [CUBE, (0.6, 0.0)], SIDE) == [False, False]
    # A well-filled black or brown peak on the way to the floor's shade may be a dark cube
    # whose edges blend into the floor (rendered trays lost real black cubes so).
    black = COLOURS.index(Colour.BLACK)
    dark = Found(black, 48.0, 40.0, 0.9, 3.0, red)
    assert at_foot_shade([top, dark], [CUBE, (0.3, 0.0)], SIDE) == [False, False]


def _wall_face() -> tuple[NDArray[np.bool_], NDArray[np.float32], Found]:
    """A view whose floor ends at row 40 (below it the camera sees the wall's inner face),
    no evidence yet, and a black cube leaning over the wall: its top shows whole on the
    wall's face."""
    near_floor = np.zeros((60, 90), np.bool_)
    near_floor[: 40 + 2, :] = True
    maps = np.zeros((len(COLOURS), 60, 90), np.float32)
    black = COLOURS.index(Colour.BLACK)
    maps[black, 41:50, 60:69] = 1.0
    return near_floor, maps, Found(black, 64.0, 45.0, 1.0, 5.0, 0)


def test_a_shaded_strip_along_a_wall_is_no_cube_and_a_top_over_the_wall_is() -> None:
    near_floor, maps, top = _wall_face()
    # A strip of shade along the wall's foot, a third of a side high: a black "cube" there.
    maps[top.colour, 43:47, 10:30] = 1.0
    strip = Found(top.colour, 20.0, 45.0, 0.6, 5.0, 0)
    # A cube on the floor is not looked at, however its evidence lies.
    floor = Found(top.colour, 40.0, 20.0, 0.6, 5.0, 0)
    shade = np.zeros_like(near_floor)
    shade[43:47, 10:30] = True
    kept, strips = without_wall_strips([strip, top, floor], maps, near_floor, SIDE, shade)
    assert kept == [top, floor]
    assert strips == [strip]


def test_a_wide_strip_of_shade_along_a_wall_is_no_cube() -> None:
    # Under a row of cubes against the wall the strip of shade on its face is as high as a
    # cube's top, but it is shade in the shadow's hue; a cube's top there is not.
    near_floor, maps, top = _wall_face()
    maps[top.colour, 41:50, 10:40] = 1.0
    strip = Found(top.colour, 25.0, 45.0, 0.8, 5.0, 0)
    shade = np.zeros_like(near_floor)
    shade[41:50, 10:40] = True
    # A speck of shade (a cube's edge) leaves a top over the wall a top.
    shade[45, 60] = True
    kept, strips = without_wall_strips([strip, top], maps, near_floor, SIDE, shade)
    assert kept == [top]
    assert strips == [strip]
    # Without the shade the strip is wide enough to pass for a cube.
    nothing = np.zeros_like(near_floor)
    assert without_wall_strips([strip, top], maps, near_floor, SIDE, nothing) == ([strip, top], [])


def test_a_strip_over_the_wall_joined_to_a_cube_on_the_floor_is_measured_without_it() -> None:
    # A black cube on the floor by the wall, its face seen below it over the wall's edge and
    # joined to its top (path-traced B 103 drop 1: a leaning yellow counted twice); alone the
    # face is half a side high.
    near_floor, maps, top = _wall_face()
    maps[:] = 0.0
    maps[top.colour, 30:46, 60:69] = 1.0
    cube = Found(top.colour, 64.0, 35.0, 1.0, 5.0, 0)
    face = Found(top.colour, 64.0, 44.0, 0.9, 5.0, 0)
    # A black cube whose top shows whole over the wall beside it is still a cube.
    maps[top.colour, 41:50, 74:83] = 1.0
    beside = Found(top.colour, 78.0, 45.0, 1.0, 5.0, 0)
    nothing = np.zeros_like(near_floor)
    kept, strips = without_wall_strips([cube, face, beside], maps, near_floor, SIDE, nothing)
    assert kept == [cube, beside]
    assert strips == [face]


def test_a_side_face_in_shade_the_room_s_light_tints_is_found_along_the_shadow_line() -> None:
    # A warm lamp and a bluish room: shade takes more red than blue away. The white cube's
    # side face keeps (1 - 0.9 * direction) of its top's linear light per channel, which
    # turns it bluish (Lab a and b fall well off the top's scaled, shade_gap 21), yet it lies
    # on the set-up's shadow line.
    white, black = COLOURS.index(Colour.WHITE), COLOURS.index(Colour.BLACK)
    direction = np.array([0.3, 0.5, 0.81]) / np.linalg.norm([0.3, 0.5, 0.81])
    line = ShadowLine((direction[0], direction[1], direction[2]), deepest=1.0, spread=0.05)
    top_light = np.array([0.6, 0.7, 0.8])  # B, G, R, linear
    top, face = (_lab_of(light) for light in (top_light, top_light * (1.0 - 0.9 * direction)))
    assert shade_gap(face, top) > SIDE_GAP
    cube = Found(white, 38.0, 40.0, 1.0, 5.0, black)
    peak = Found(black, 45.0, 40.0, 0.5, 1.0, white)
    assert without_side_faces([cube, peak], [top, face], SIDE, None) == ([cube, peak], [])
    assert without_side_faces([cube, peak], [top, face], SIDE, line) == ([cube], [peak])
    # A black cube there is far deeper than any shade, and not of its tint.
    black_top = _lab_of(np.array([0.03, 0.03, 0.03]))
    assert without_side_faces([cube, peak], [top, black_top], SIDE, line) == ([cube, peak], [])


def _lab_of(light: np.ndarray) -> np.ndarray:
    """The Lab colour of linear B, G, R light (0..1)."""
    encoded = np.where(light <= 0.0031308, light * 12.92, 1.055 * light ** (1 / 2.4) - 0.055)
    lab = cv2.cvtColor(encoded.reshape(1, 1, 3).astype(np.float32), cv2.COLOR_BGR2Lab)
    return np.asarray(lab, np.float32).reshape(3)


def test_a_thin_dark_peak_beside_a_cube_is_shade_unless_dark_cube_fills_its_box() -> None:
    # A white cube at (20, 30) and, a cube's side to its right, a black peak whose box
    # black evidence only half fills, in a patch darker than the empty floor (shade in the
    # gap): shade. Filled with black, or with black and brown together (a cube between the
    # two), it is a cube; so is a red peak as thin (no shade passes for red), the same thin
    # black with nothing beside it, and one whose box mostly looks like the empty floor (a
    # cube on print of its own colour).
    white, black, brown, red = (
        COLOURS.index(c) for c in (Colour.WHITE, Colour.BLACK, Colour.BROWN, Colour.RED)
    )
    maps = np.zeros((len(COLOURS), 60, 80), np.float32)
    maps[black, 20:40, 32:40] = 1.0  # the right half of the peak's box only
    changed = np.zeros((60, 80), np.bool_)
    changed[20:40, 14:40] = True
    top = (white, 20, 30, 1.0)
    thin = (black, 32, 30, 0.5)
    assert without_thin_dark([top, thin], maps, changed, SIDE) == ([top], [thin])
    assert without_thin_dark([thin], maps, changed, SIDE) == ([thin], [])
    assert without_thin_dark([top, (red, 32, 30, 0.5)], maps, changed, SIDE)[1] == []
    assert without_thin_dark([top, (black, 32, 30, 0.9)], maps, changed, SIDE)[1] == []
    split = maps.copy()
    split[brown, 20:40, 26:32] = 1.0
    assert without_thin_dark([top, thin], split, changed, SIDE) == ([top, thin], [])
    like_floor = changed.copy()
    like_floor[:, 29:33] = False
    assert without_thin_dark([top, thin], maps, like_floor, SIDE) == ([top, thin], [])


def test_a_thin_dark_peak_that_throws_a_found_shadow_is_the_cube_and_not_its_shade() -> None:
    # A lamp throws shadows 10 pixels up (cube side 12). A brown peak at (32, 30) whose box
    # brown evidence only half fills, and where its shadow falls a weak red peak in the grey
    # floor's own shade: the brown casts that shadow, so it is the cube. With no light known,
    # it is thin shade beside a peak as before; so it is when the peak above is lighter than
    # the floor (no shadow), and when the brown lies in a white cube's shadow itself.
    white, brown, red = (COLOURS.index(c) for c in (Colour.WHITE, Colour.BROWN, Colour.RED))
    maps = np.zeros((len(COLOURS), 60, 80), np.float32)
    maps[brown, 20:40, 32:40] = 1.0  # the right half of the peak's box only
    changed = np.zeros((60, 80), np.bool_)
    changed[14:40, 26:40] = True
    floor = np.full((60, 80), 50.0, np.float32)
    lightness = floor.copy()
    lightness[14:34, 26:39] = 30.0  # the brown cube and its shadow above it
    light = ((0.0, -10.0), _grey(lightness), _grey(floor))
    thin = (brown, 32, 30, 0.5)
    found = [thin, (red, 32, 20, 0.5)]
    assert without_thin_dark(found, maps, changed, SIDE, light) == (found, [])
    assert without_thin_dark(found, maps, changed, SIDE) == ([found[1]], [thin])
    lit = lightness.copy()
    lit[14:26, 26:39] = 70.0
    lit_light = ((0.0, -10.0), _grey(lit), _grey(floor))
    assert without_thin_dark(found, maps, changed, SIDE, lit_light) == ([found[1]], [thin])
    below = [*found, (white, 32, 40, 1.0)]
    assert without_thin_dark(below, maps, changed, SIDE, light)[1] == [thin]


def test_a_thin_peak_closer_to_a_firmer_one_than_a_cube_can_lie_in_the_floors_shade_is_shade() -> (
    None
):
    # Blue print (L 60). A black cube at (20, 30); two thirds of a side to its right a blue
    # peak half filling its box, where the picture is the print in shade (the black's shadow
    # on blue print): shade. A cube beside the black would lie 0.83 sides off or more, fill
    # its box, and show its own colour: each of those keeps the peak; so does being no
    # darker than the floor, and having no firmer peak beside it.
    black, blue = COLOURS.index(Colour.BLACK), COLOURS.index(Colour.BLUE)
    floor = np.zeros((60, 80, 3), np.float32)
    floor[:, :] = (60.0, -5.0, -40.0)
    factor = (40.0 + 16.0) / (60.0 + 16.0)
    shaded = floor.copy()
    shaded[:, :] = (40.0, -5.0 * factor, -40.0 * factor)
    cube = (black, 20, 30, 1.0)
    thin = (blue, 28, 30, 0.5)
    assert without_close_shade([cube, thin], SIDE, shaded, floor) == ([cube], [thin])
    far = (blue, 31, 30, 0.5)
    assert without_close_shade([cube, far], SIDE, shaded, floor)[1] == []
    assert without_close_shade([cube, (blue, 28, 30, 0.7)], SIDE, shaded, floor)[1] == []
    assert without_close_shade([(black, 20, 30, 0.5), thin], SIDE, shaded, floor)[1] == []
    tinted = shaded.copy()
    tinted[:, :, 1] += 14.0  # 14 off the print in shade: a colour of its own
    assert without_close_shade([cube, thin], SIDE, tinted, floor)[1] == []
    assert without_close_shade([cube, thin], SIDE, floor, floor)[1] == []


def _blue_evidence(width: int, strength: float, height: int = int(SIDE)) -> NDArray[np.float32]:
    """Evidence maps with blue of `strength` over one patch `width` by `height` at (10, 10);
    the other colours have none."""
    maps = np.zeros((len(COLOURS), 40, 60), np.float32)
    maps[0, 10 : 10 + height, 10 : 10 + width] = strength
    return maps


def _split(
    cubes: list[Found], maps: NDArray[np.float32], overhead: Overhead | None = None
) -> tuple[list[Found], list[Found]]:
    """`without_split_cubes` on these evidence maps, one cube's worth a side squared, seen by
    a camera at `overhead` (None: not known)."""
    patches = [evidence_patches(plane) for plane in maps]
    areas = np.full(len(COLOURS), SIDE * SIDE)
    return without_split_cubes(cubes, patches, maps, areas, SIDE, overhead)


def test_one_cube_found_twice_is_one_but_two_short_of_evidence_side_by_side_stay_two() -> None:
    # One cube's worth of evidence is a side squared; peaks 0.9 sides apart.
    pair = [Found(0, 13.0, 16.0, 1.0, 5.0, 1), Found(0, 23.8, 16.0, 0.7, 5.0, 1)]
    # A square patch, 1.2 cubes' worth: one cube (its top and a side face); the weaker peak goes.
    assert _split(pair, _blue_evidence(14, 1.0)) == ([pair[0]], [pair[1]])
    # As much evidence in an oblong two sides long (two cubes, half in shade): both stay.
    assert _split(pair, _blue_evidence(24, 0.6)) == (pair, [])
    # 1.75 cubes' worth in the square (two cubes, one leaning on the other): both stay.
    assert _split(pair, _blue_evidence(14, 1.5)) == (pair, [])
    # Peaks a side and a half apart are never one cube, even in a square patch short of two.
    apart = [pair[0], Found(0, 31.0, 16.0, 0.7, 5.0, 1)]
    assert _split(apart, _blue_evidence(22, 0.3, 20)) == (apart, [])


def test_one_cube_and_the_side_face_a_leaning_camera_sees_are_one_however_long() -> None:
    # A top and the face beside it that a camera looking 0.6 off straight down sees: an
    # oblong 1.5 sides long (its pixels' box 1.55 times as long as wide), 1.1 cubes' worth,
    # peaked at both ends 1.08 sides apart.
    pair = [Found(0, 13.0, 16.0, 1.0, 5.0, 1), Found(0, 26.0, 16.0, 0.7, 5.0, 1)]
    maps = _blue_evidence(18, 0.75)
    # Without the camera's place, the peaks are as far apart as two touching cubes', and
    # their patch too oblong for one cube found twice.
    assert _split(pair, maps) == (pair, [])
    # A view straight from above the picture (scale 1), whose pair lies 416 pixels right of
    # the picture's middle: the nominal lens (focal length 693) looks at it 0.6 off straight
    # down.
    matrix = np.array([[1.0, 0.0, -800.0], [0.0, 1.0, -283.5], [0.0, 0.0, 1.0]])
    overhead = camera_over(matrix, (800, 600))
    assert overhead is not None
    assert overhead.slants(np.array([[19.5, 16.0]]))[0] == pytest.approx(0.6, abs=0.01)
    assert _split(pair, maps, overhead) == ([pair[0]], [pair[1]])
    # The camera sees the faces turned towards the point below it (far off to the left): an
    # oblong across that way is two cubes.
    across = [Found(0, 16.0, 13.0, 1.0, 5.0, 1), Found(0, 16.0, 26.0, 0.7, 5.0, 1)]
    assert _split(across, _blue_evidence(12, 0.75, 18), overhead) == (across, [])
    # Where it looks straight down, no face shows: the oblong stays two cubes.
    below = camera_over(
        matrix @ np.array([[1.0, 0.0, 420.0], [0.0, 1.0, 0.0], [0, 0, 1.0]]), (800, 600)
    )
    assert _split(pair, maps, below) == (pair, [])


def test_one_cube_found_twice_in_a_heap_is_one() -> None:
    # The same square patch of one cube's top and side face, joined to a heap of two cubes
    # below it whose evidence spreads wider than a cube (side faces, a leaning cube).
    pair = [Found(0, 13.0, 16.0, 1.0, 5.0, 1), Found(0, 23.8, 16.0, 0.7, 5.0, 1)]
    maps = _blue_evidence(14, 1.0)
    maps[0, 21:36, 10:40] = 1.0
    heap = [Found(0, 17.0, 28.0, 1.0, 5.0, 1), Found(0, 32.0, 28.0, 1.0, 5.0, 1)]
    # The whole patch holds 4.2 cubes' worth for four peaks: nothing short there. The part
    # nearer to the pair than to the heap's cubes holds 1.35 for two.
    assert _split(pair + heap, maps) == ([pair[0], *heap], [pair[1]])

"""Matching a picture's light to the empty tray's, and telling shadow from cube, on pictures
built by hand so the right answer is known exactly."""

from __future__ import annotations

import cv2
import numpy as np

from companion.core.cubes import Colour
from companion.devices.tray_render import CalibrationSet
from companion.vision import Profile, read_tray
from companion.vision.arrays import grown
from companion.vision.cube_regions import cube_regions
from companion.vision.found import Found
from companion.vision.likelihood import cast_shadows
from companion.vision.patches import evidence_patches, patch_masses
from companion.vision.profile import encode_png
from companion.vision.segment import Reference, compare
from companion.vision.setup_noise import COVER_REACH, quiet_differences, unstable_pixels
from companion.vision.shadow import SHADE_STEPS, ShadowLine, darkening, learn, linear

SIDE = 11.0


def _tray(height: int = 90, width: int = 120) -> np.ndarray:
    """An empty tray view: a smooth two-tone print (orange to beige) with a dark blotch."""
    ramp = np.linspace(0.0, 1.0, width, dtype=np.float32)[None, :, None]
    orange = np.array([60, 140, 220], np.float32)
    beige = np.array([150, 190, 215], np.float32)
    # The lamp is brighter towards the bottom: some of the tray clips first when overexposed.
    lamp = np.linspace(0.75, 1.0, height, dtype=np.float32)[:, None, None]
    picture = (orange * (1 - ramp) + beige * ramp) * lamp
    picture[30:50, 20:45] *= 0.7
    return np.clip(picture, 0, 255).astype(np.uint8)


def _expose(picture: np.ndarray, factor: float) -> np.ndarray:
    """The same scene at another exposure: linear light times `factor`, back to sRGB 8-bit."""
    light = linear(picture) * np.float32(factor)
    srgb = np.where(light <= 0.0031308, light * 12.92, 1.055 * np.power(light, 1 / 2.4) - 0.055)
    return np.clip(np.round(srgb * 255.0), 0, 255).astype(np.uint8)


def _reference(empty: np.ndarray) -> Reference:
    inside = np.ones(empty.shape[:2], np.bool_)
    return Reference.prepare(empty, inside, SIDE)


def test_another_exposure_of_the_empty_tray_changes_nothing() -> None:
    empty = _tray()
    reference = _reference(empty)
    for factor in (0.6, 0.8, 1.25):
        comparison = compare(_expose(empty, factor), reference)
        assert comparison.changed.mean() < 0.01, factor


def test_clipped_highlights_of_the_empty_tray_are_no_cube() -> None:
    # The calibration shot was overexposed: the lower part clips in red. A darker shot shows
    # detail there that the empty tray never had; it is still only the tray.
    empty = _expose(_tray(), 2.2)
    assert 0.3 < (empty[:, :, 2] == 255).mean() < 0.95
    reference = _reference(empty)
    comparison = compare(_expose(_tray(), 1.0), reference)
    assert comparison.changed.mean() < 0.02


def test_a_cube_on_the_tray_changes_under_any_exposure() -> None:
    empty = _tray()
    scene = empty.copy()
    scene[40:52, 70:82] = (160, 60, 30)  # a blue cube's top
    reference = _reference(empty)
    for factor in (0.7, 1.0, 1.3):
        comparison = compare(_expose(scene, factor), reference)
        assert comparison.changed[43:49, 73:79].all(), factor
        assert comparison.changed[:, :60].mean() < 0.02, factor


def test_a_white_cube_on_a_print_the_camera_clips_in_red_changes() -> None:
    # A peach print the camera clips in red: a white cube's top there is as bright in red and
    # of nearly the same hue, but it lifts blue and green far beyond any exposure step.
    empty = np.zeros((90, 120, 3), np.uint8)
    empty[:] = (150, 180, 235)
    scene = empty.copy()
    scene[40:52, 70:82] = (195, 222, 250)
    reference = _reference(empty)
    for factor in (1.0, 1.1):
        comparison = compare(_expose(scene, factor), reference)
        assert comparison.changed[43:49, 73:79].all(), factor
        assert comparison.changed[:, :60].mean() < 0.02, factor


def test_a_channel_the_camera_clipped_is_the_trays_when_counting() -> None:
    # Twice the exposure clips red over half the print: the level mapping cannot bring back
    # what was cut off, so that channel says nothing there. Counting takes it as the tray's;
    # a cube still shows in the other channels.
    empty = _tray()
    brighter = _expose(empty, 2.0)
    assert (brighter[:, :, 2] == 255).mean() > 0.4
    inside = np.ones(empty.shape[:2], np.bool_)
    calibrating = compare(brighter, Reference.prepare(empty, inside, SIDE))
    assert calibrating.changed.mean() > 0.1
    counting = Reference.prepare(empty, inside, SIDE, counting=True)
    assert compare(brighter, counting).changed.mean() < 0.01
    scene = empty.copy()
    scene[40:52, 70:82] = (160, 60, 30)  # a blue cube's top
    assert compare(_expose(scene, 2.0), counting).changed[43:49, 73:79].all()


def _camera(light: np.ndarray) -> np.ndarray:
    """8-bit levels of linear `light` through sRGB and a camera's S (darks lifted, as the
    simulated camera does): a change of exposure then moves dark levels unlike bright ones."""
    light = np.clip(light, 0.0, 1.0)
    srgb = np.where(light <= 0.0031308, light * 12.92, 1.055 * np.power(light, 1 / 2.4) - 0.055)
    curved = srgb + 0.24 * np.sin(2 * np.pi * srgb) * (1 - srgb) * srgb
    return np.clip(np.round(curved * 255.0), 0, 255).astype(np.uint8)


def test_a_dark_wall_round_the_floor_keeps_its_colour_under_another_exposure() -> None:
    # A beige floor inside dark purple walls. The floor has none of the walls' levels; mapped
    # by the overall gain, they drift by several units (a purple wall then looks like black
    # cubes). The level mapping learns from the walls' foot as well.
    height, width, wall = 90, 120, 14
    light = np.empty((height, width, 3), np.float32)
    light[:] = np.array([0.30, 0.45, 0.55], np.float32)
    light *= np.linspace(0.8, 1.0, width, dtype=np.float32)[None, :, None]
    floor = np.zeros((height, width), np.bool_)
    floor[wall:-wall, wall:-wall] = True
    light[~floor] = (0.06, 0.002, 0.035)
    reference = Reference.prepare(_camera(light), floor, SIDE)
    foot = cv2.dilate(floor.astype(np.uint8), np.ones((21, 21), np.uint8)).astype(np.bool_)
    foot &= ~floor
    for factor in (0.6, 0.75, 1.3):
        comparison = compare(_camera(light * np.float32(factor)), reference)
        drift = np.linalg.norm(comparison.lab[foot] - reference.lab[foot], axis=1)
        assert float(np.median(drift)) < 1.0, factor
        assert comparison.changed.mean() < 0.01, factor


def _shadowed(empty: np.ndarray, direction: np.ndarray, depth: float) -> np.ndarray:
    """The tray with a shadow: linear light times 1 - depth * direction, per channel."""
    light = linear(empty) * (np.float32(1.0) - np.float32(depth) * direction)
    srgb = np.where(light <= 0.0031308, light * 12.92, 1.055 * np.power(light, 1 / 2.4) - 0.055)
    return np.clip(np.round(srgb * 255.0), 0, 255).astype(np.uint8)


def test_the_shadow_line_is_learned_and_holds_on_any_print() -> None:
    # The room's light is bluer than the lamp: a shadow takes away more red than blue.
    direction = np.array([0.45, 0.55, 0.70], np.float32)
    direction /= np.linalg.norm(direction)
    empty = _tray()
    deficits = []
    for depth in (0.3, 0.5, 0.7, 0.9):
        shade = darkening(_shadowed(empty, direction, depth), linear(empty))
        deficits.append(shade.reshape(-1, 3))
    line = learn(deficits)
    assert line is not None
    assert float(np.dot(line.direction, direction)) > 0.99
    assert 0.85 <= line.deepest <= 1.0
    # A shadow of a depth in between, over both halves of the print, is on the line...
    shadow = darkening(_shadowed(empty, direction, 0.6), linear(empty))
    assert line.test(shadow, linear(empty)).mean() > 0.95
    # ...and a brown cube is not: its colour does not depend on the floor beneath it.
    brown = np.zeros_like(empty)
    brown[:] = (40, 60, 110)
    assert line.test(darkening(brown, linear(empty)), linear(empty)).mean() < 0.2


def test_a_shadow_holds_on_print_one_channel_hardly_lights() -> None:
    # A dark green print has next to no blue: a few levels of camera noise there are a
    # large share of its light, and must not make a shadow look like something else.
    direction = np.array([0.65, 0.62, 0.44], np.float32)
    direction /= np.linalg.norm(direction)
    line = ShadowLine((0.65, 0.62, 0.44), deepest=1.0, spread=0.25)
    empty = np.zeros((60, 60, 3), np.uint8)
    empty[:] = (14, 58, 32)
    noise = np.random.default_rng(5).normal(0.0, 2.5, empty.shape)
    shaded = np.clip(_shadowed(empty, direction, 0.6) + noise, 0, 255).astype(np.uint8)
    floor = linear(empty)
    assert line.test(darkening(shaded, floor), floor).mean() > 0.9
    # A black cube there is not a shadow: it is no darker in blue than the print.
    black = np.zeros_like(empty)
    black[:] = (16, 16, 18)
    assert line.test(darkening(black, floor), floor).mean() < 0.1


def test_a_dark_cube_on_light_print_is_on_the_shadow_line_but_not_in_its_hue() -> None:
    # Path-traced set B, set-up 105: cream print under a daylight lamp, a nearly grey
    # shadow line. A brown cube (Lab 45, 11, 15) there lost 70-80% of every channel, as
    # deep shade does, and the angle test takes it for shade.
    line = ShadowLine((0.559, 0.568, 0.604), deepest=1.18, spread=0.094)
    direction = np.array(line.direction, np.float32)
    empty = np.zeros((20, 20, 3), np.uint8)
    empty[:] = _bgr_of((84.0, 0.0, 29.0))
    floor = linear(empty)
    noise = np.random.default_rng(7).normal(0.0, 2.0, empty.shape)
    for depth in (0.3, 0.7, 1.1):
        shade = np.clip(_shadowed(empty, direction, depth) + noise, 0, 255).astype(np.uint8)
        deficit = darkening(shade, floor)
        assert line.test(deficit, floor).mean() > 0.9
        assert line.keeps_hue(deficit, floor).mean() > 0.95
    brown = np.zeros_like(empty)
    brown[:] = _bgr_of((45.0, 11.0, 15.0))
    brown = np.clip(brown + noise, 0, 255).astype(np.uint8)
    deficit = darkening(brown, floor)
    assert line.test(deficit, floor).mean() > 0.9
    # What light it kept is not what the shadow leaves: too little green, too much red.
    assert line.keeps_hue(deficit, floor).mean() < 0.05


def _bgr_of(lab: tuple[float, float, float]) -> np.ndarray:
    """One Lab colour (L 0..100) as an 8-bit BGR pixel."""
    pixel = cv2.cvtColor(np.array([[lab]], np.float32), cv2.COLOR_Lab2BGR)[0, 0]
    return np.clip(np.round(pixel * 255.0), 0, 255).astype(np.uint8)


def test_a_colour_in_deeper_shade_keeps_its_hue_under_grey_light_and_takes_the_rooms_tint() -> None:
    brown_and_white = np.array([[41.0, 8.0, 13.0], [78.0, 1.0, 5.0]], np.float32)
    # Shade as grey as the lamp: every channel loses the same share, and L + 16, a and b
    # shrink by one factor (Lab's cube root), as `colours.shade_gaps` has it.
    grey = ShadowLine((0.577, 0.577, 0.577), 1.0, 0.1).darkened(brown_and_white)
    assert grey.shape == (2, SHADE_STEPS, 3)
    assert np.allclose(grey[:, 0], brown_and_white, atol=0.3)
    factor = (grey[0, :, 0] + 16.0) / (41.0 + 16.0)
    assert np.allclose(grey[0, :, 1], 8.0 * factor, atol=0.6)
    assert np.allclose(grey[0, :, 2], 13.0 * factor, atol=0.6)
    # The room's bluer light left in shade (a warm lamp hidden: red loses most): a white
    # cube there turns blue, b falling below 0.
    bluish = ShadowLine((0.48, 0.58, 0.66), 1.16, 0.1).darkened(brown_and_white)
    assert np.all(np.diff(bluish[1, :, 0]) < 0)
    assert bluish[1, -1, 2] < -5.0
    # No deeper than DEPTH_ALLOWANCE times the deepest shadow seen: all of a channel's light
    # taken would be no shade, but darkness.
    shallow = ShadowLine((0.48, 0.58, 0.66), 0.5, 0.1).darkened(brown_and_white)
    assert shallow[1, -1, 0] > bluish[1, -1, 0] + 10.0


def test_the_floor_a_wall_shades_is_told_on_every_print() -> None:
    # Cream and teal checks; a band along the left wall lies in the umbra, lit by the room
    # alone. Each print is darker there by what the deepest shade keeps, as the shadow
    # line has it; the rest is lit, whatever the print.
    line = ShadowLine((0.64, 0.57, 0.52), deepest=1.1, spread=0.1)
    direction = np.array(line.direction, np.float32)
    rows, columns = np.mgrid[0:80, 0:120]
    lit = np.where(
        ((rows // 20 + columns // 20) % 2 == 0)[..., None], (170, 215, 230), (150, 190, 60)
    )
    empty = lit.astype(np.uint8)
    band = columns < 25
    empty[band] = _shadowed(empty, direction, line.deepest)[band]
    noisy = empty + np.random.default_rng(3).normal(0.0, 2.0, empty.shape)
    light = linear(np.clip(noisy, 0, 255).astype(np.uint8))
    floor = np.ones(band.shape, np.bool_)
    shaded = line.shaded_floor(light, floor)
    # (Noise spreads the dark teal's shade beyond the bins of its lit squares: some of the
    # band is missed, 14.5% here.)
    assert shaded[band].mean() > 0.8
    assert shaded[~band].mean() < 0.02
    # A print seen only in shade has no lit pixels to be told by: taken as lit.
    dark_only = np.where(band[..., None], _shadowed(empty, direction, line.deepest), empty)
    dark_only[band] = (40, 40, 120)
    alone = line.shaded_floor(linear(dark_only.astype(np.uint8)), floor)
    assert alone[band].mean() < 0.02


def test_a_cube_on_floor_only_the_room_lights_darkens_it_evenly() -> None:
    # On floor in a wall's shade, a cube hides some of the room's light: each channel loses
    # the same share, which the room's line takes as shade and the lamp's does not.
    line = ShadowLine((0.8, 0.5, 0.33), deepest=0.9, spread=0.08)
    empty = np.zeros((20, 20, 3), np.uint8)
    empty[:] = (60, 90, 40)
    floor = linear(empty)
    grey = np.array(line.room_light.direction, np.float32)
    shade = np.clip(_shadowed(empty, grey, 0.6), 0, 255).astype(np.uint8)
    deficit = darkening(shade, floor)
    assert line.room_light.test(deficit, floor).mean() > 0.9
    assert line.test(deficit, floor).mean() < 0.1


def test_too_few_shadow_pixels_learn_no_line() -> None:
    assert learn([np.zeros((10, 3), np.float32)]) is None
    assert learn([]) is None


def test_shade_that_darkens_one_channel_alone_still_finds_the_floor_in_shade() -> None:
    # The blue channel alone darkened: the plane across that axis was once undefined (NaN).
    line = ShadowLine((1.0, 0.0, 0.0), 0.6, 0.1)
    light = np.full((20, 20, 3), 0.5, np.float32)
    light[:, :10, 0] = 0.1
    shaded = line.shaded_floor(light, np.ones((20, 20), np.bool_))
    assert shaded[:, :10].all() and not shaded[:, 10:].any()


def test_shadows_are_cast_along_the_offset_only() -> None:
    casters = np.zeros((40, 40), np.bool_)
    casters[10:16, 10:16] = True
    cast = cast_shadows(casters, (8.0, 0.0))
    assert cast[12, 24]  # beside the cube, on the far side from the light
    assert not cast[12, 4]  # on the lit side
    assert not cast[30, 12]  # below it


def test_patch_masses_count_the_cubes_in_each_patch() -> None:
    plane = np.zeros((30, 60), np.float32)
    plane[5:15, 5:15] = 1.0  # one cube's worth
    plane[5:15, 30:50] = 1.0  # two cubes' worth, one found
    found = [Found(0, 10.0, 10.0, 1.0, 5.0, 1), Found(0, 40.0, 10.0, 1.0, 5.0, 1)]
    mass, count = patch_masses(evidence_patches(plane), found)
    assert sorted(zip(mass.tolist(), count.tolist(), strict=True)) == [(100.0, 1), (200.0, 1)]
    # The same patches in a view cropped at row 2, column 3: the cubes there count alike.
    moved = [Found(0, c.x - 3.0, c.y - 2.0, 1.0, 5.0, 1) for c in found]
    patches = evidence_patches(plane)
    assert patches is not None
    _, moved_count = patch_masses(patches.moved(2, 3), moved)
    assert moved_count.tolist() == count.tolist()
    empty_mass, empty_count = patch_masses(evidence_patches(np.zeros((5, 5), np.float32)), [])
    assert len(empty_mass) == len(empty_count) == 0


def test_calibration_learns_the_shadow_and_the_noise_map(
    cal: CalibrationSet, profile: Profile
) -> None:
    assert profile.shadow is not None
    assert abs(np.linalg.norm(profile.shadow.direction) - 1.0) < 1e-6
    noise = profile.noise_map()
    assert noise is not None and noise.shape == (profile.view_height, profile.view_width)
    # The shadow offset points from the cubes to their shade in the calibration pictures.
    assert isinstance(profile.shadow.offset, tuple)
    assert profile.shadow.deepest > 0.0
    assert profile.colours[Colour.WHITE].cube_area > 0.0


def test_a_glint_in_most_pictures_is_unstable_but_cubes_on_one_spot_are_not() -> None:
    # Seven calibration pictures. Four hold a cube on the same spot, each its own colour
    # (cubes from a tower land in the same places); four show the same glint elsewhere.
    empty = _tray()
    cube_colours = [(200, 60, 30), (30, 40, 200), (40, 160, 40), (235, 235, 235)]
    views = {}
    for index, colour in enumerate(Colour):
        picture = empty.copy()
        if index < len(cube_colours):
            picture[40:51, 60:71] = cube_colours[index]
        if index >= 3:
            picture[5:9, 100:112] = 255
        views[colour] = picture
    unstable = unstable_pixels(views, _reference(empty))
    assert unstable[5:9, 100:112].all()
    assert not unstable[40:51, 60:71].any()
    assert unstable.mean() < 0.02


def test_a_spot_where_most_calibration_cubes_landed_still_shows_a_cube() -> None:
    # Four of the seven calibration pictures hold a cube on the same spot (a tower drops its
    # cubes in the same places). What the shots differ by there, with nothing on it, is what
    # the other three show: a cube lying there later must still stand out.
    empty = _tray()
    reference = _reference(empty)
    grain = np.random.default_rng(3)
    pictures = []
    for index in range(7):
        noise = grain.integers(-2, 3, empty.shape)
        picture = np.clip(empty.astype(np.int16) + noise, 0, 255).astype(np.uint8)
        if index < 4:
            picture[40:51, 60:71] = (30, 40, 200)
        pictures.append(picture)
    comparisons = [compare(p, reference) for p in pictures]
    differences = [c.difference for c in comparisons]
    covered = [grown(cube_regions(c, reference).mask, COVER_REACH) for c in comparisons]
    quiet = quiet_differences(differences, covered)
    spot = (slice(40, 51), slice(60, 71))
    # (The median of all seven pictures is a cube's difference there.)
    assert float(np.median(np.stack(differences), axis=0)[spot].min()) > 20.0
    assert float(quiet[spot].max()) < 3.0
    later = empty.copy()
    later[40:51, 60:71] = (40, 160, 40)
    counting = Reference.prepare(empty, reference.inside, SIDE, local_noise=quiet)
    assert compare(later, counting).changed[spot].mean() > 0.9
    # A pixel every picture covers has no quiet shot to tell its noise: none is assumed.
    everywhere = [np.ones(empty.shape[:2], np.bool_)] * 7
    assert not quiet_differences(differences, everywhere).any()


def test_a_cube_where_the_set_up_flickered_at_calibration_is_still_counted(
    cal: CalibrationSet, profile: Profile
) -> None:
    # Calibration marks as unstable what changed alike in most of its pictures: often a
    # shaded band along a wall, just where cubes come to rest. Counting asks a change there
    # to stand out from what the shots differed by (the noise map) instead of ignoring it, so
    # cubes lying on such pixels are still counted. (A shot read surely: one with a cube
    # found only by a doubt, as one resting on another, tests something else.)
    shot = next(
        s
        for s in cal.tests
        if s.counts.total >= 3
        and (reading := read_tray(s.image, profile)).confident
        and reading.counts == s.counts
    )
    view = profile.view
    centres = np.array([[c.x, c.y] for c in shot.cubes], np.float64).reshape(-1, 1, 2)
    spots = cv2.perspectiveTransform(centres, view.homography).reshape(-1, 2)
    flicker = np.zeros((profile.view_height, profile.view_width), np.uint8)
    reach = int(profile.cube_side)
    for x, y in spots:
        flicker[
            max(0, int(y) - reach) : int(y) + reach, max(0, int(x) - reach) : int(x) + reach
        ] = 255
    flickering = Profile(**{**profile.model_dump(), "unstable_png": encode_png(flicker)})
    assert read_tray(shot.image, flickering).counts == shot.counts

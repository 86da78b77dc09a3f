"""Calibration learns a colour from its cubes, not from the shadows they cast."""

from __future__ import annotations

import numpy as np

from companion.vision.cube_regions import cube_regions
from companion.vision.segment import Reference, compare

SIDE = 11


def test_the_long_shadow_of_grey_cubes_on_coloured_print_is_not_learned_as_them() -> None:
    # Under a low lamp two touching grey cubes cast a shadow larger than themselves. On purple
    # print the shadow stays purple (shadow-like) and the grey cubes do not: they are their
    # own pixels, and the darker part of the shade is no cube.
    empty = np.full((70, 90, 3), (170, 50, 150), np.uint8)  # purple print (BGR)
    picture = empty.copy()
    picture[15:26, 20:42] = (60, 60, 60)
    shadow = (slice(26, 50), slice(18, 46))
    picture[shadow] = (picture[shadow] * 0.4).astype(np.uint8)
    reference = Reference.prepare(empty, np.ones(empty.shape[:2], np.bool_), SIDE)
    found = cube_regions(compare(picture, reference), reference)
    assert found.mask[shadow].mean() > 0.9
    assert found.cube[17:24, 22:40].all()
    assert not found.cube[shadow].any()


def test_a_dark_cube_that_looks_like_shade_is_still_its_darker_part() -> None:
    # A dark grey cube on grey print is shadow-like all over: the darker part of the region is
    # the cube, the lighter part its shadow.
    empty = np.full((70, 90, 3), 150, np.uint8)
    picture = empty.copy()
    # A soft shadow: darkest at the cube's foot.
    picture[26:37, 20:31] = np.linspace(80, 130, 11, dtype=np.uint8)[:, None, None]
    picture[15:26, 20:31] = 40
    reference = Reference.prepare(empty, np.ones(empty.shape[:2], np.bool_), SIDE)
    found = cube_regions(compare(picture, reference), reference)
    assert found.cube[17:24, 22:29].all()
    assert not found.cube[31:37, 22:29].any()

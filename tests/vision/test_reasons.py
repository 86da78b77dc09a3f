"""A reading's reasons told back to their templates, and the doubts a second look can settle."""

from __future__ import annotations

import itertools

from companion.core.cubes import COLOURS
from companion.vision import reasons as doubt


def test_every_reason_parses_back_to_its_template_and_what_was_filled_in() -> None:
    for template in doubt.ALL:
        for first, second in itertools.pairwise(COLOURS):
            said = template.format(colour=first.value, other=second.value, limit=7)
            found = doubt.parse(said)
            assert found is not None, said
            wanted = {"colour": first.value, "other": second.value, "limit": "7"}
            assert found == (template, {k: v for k, v in wanted.items() if f"{{{k}}}" in template})
    assert doubt.parse("colour between blue and purple") is None
    assert doubt.parse("a cube may be hidden in a heap!") is None


def test_only_doubts_of_a_hidden_cube_ask_for_a_second_look() -> None:
    assert doubt.cubes_may_hide([doubt.BETWEEN.format(colour="red", other="brown"), doubt.HEAP])
    assert doubt.cubes_may_hide([doubt.HIDDEN_BESIDE.format(colour="white")])
    assert not doubt.cubes_may_hide([doubt.BETWEEN.format(colour="red", other="brown")])
    assert not doubt.cubes_may_hide([doubt.HAND, doubt.MAYBE_CUBE, "a cube may lie hidden"])
    assert not doubt.cubes_may_hide([])

"""Engine refusals and reading reasons in the language shown: known codes and sentences from
the catalogue, anything else in the engine's or device's own English words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.core.box import REAL_BOX
from companion.core.errors import RuleError
from companion.core.events import Progress
from companion.core.game import Game
from companion.core.simulate import simulate_game
from companion.ui import i18n
from companion.ui.explain import CAMERA_REASONS, REFUSALS, reading_reason, refusal
from companion.vision import reasons as doubt


@pytest.fixture()
def german() -> Iterator[None]:
    i18n.set_language("de")
    yield
    i18n.set_language("en")


def _refusal_of_a_bad_sheet_reading() -> RuleError:
    script = simulate_game(2, seed=5, box=REAL_BOX)
    game = Game.new([p.name for p in script.state.players], options=script.log.options,
                    box=REAL_BOX)  # fmt: skip
    for event in script.events:
        if isinstance(event, Progress) and event.vp_spaces:
            wrong = event.model_copy(update={"vp_spaces": 30, "highest_vp": 5})
            with pytest.raises(RuleError) as caught:
                game.apply(wrong)
            return caught.value
        game.apply(event)
    raise AssertionError("no brown turn in the simulated game")


def test_engine_refusals_carry_a_known_code_with_their_figures(german: None) -> None:
    error = _refusal_of_a_bad_sheet_reading()
    assert error.code in REFUSALS
    shown = refusal(error)
    assert shown != error.detail and "30" in shown and "Scheibe" in shown


def test_unknown_codes_fall_back_to_the_engine_text(german: None) -> None:
    plain = RuleError("9.9 made up", "a refusal the app has no words for")
    assert refusal(plain) == "a refusal the app has no words for"
    odd = RuleError("9.9", "with figures", code="ap.not_enough", params={"wrong": 1})
    assert refusal(odd) == "with figures"


def test_reading_reasons_are_translated_with_colour_names(german: None) -> None:
    assert reading_reason("hand in the picture") == "Hand im Bild"
    assert reading_reason("camera unsure: colour between blue and black") == (
        "Kamera unsicher: Farbe zwischen blau und schwarz"
    )
    assert reading_reason("a new sentence from a device") == "a new sentence from a device"


def test_every_camera_reason_has_its_words_in_the_catalogue(german: None) -> None:
    # The table names each reason the vision can give, in the vision's own words.
    assert [template for template, _ in CAMERA_REASONS] == list(doubt.ALL)
    assert all(template == message for template, message in CAMERA_REASONS)
    for template in doubt.ALL:
        said = template.format(colour="brown", other="black", limit=7)
        shown = reading_reason(said)
        assert shown != said, said
        assert "{" not in shown and ("braun" in shown or "{colour}" not in template), shown

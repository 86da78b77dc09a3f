import pytest
from pydantic import ValidationError

from companion.core.cubes import COLOURS, CUBES_PER_COLOUR, Colour, Counts


def test_action_circuit_order_and_codes_are_unique() -> None:
    assert [c.value for c in COLOURS] == [
        "blue",
        "black",
        "red",
        "brown",
        "green",
        "yellow",
        "white",
    ]
    codes = [c.code for c in COLOURS]
    assert len(set(codes)) == 7
    assert len({code[0] + code[1].lower() for code in codes}) == 7


def test_counts_arithmetic() -> None:
    tray = Counts.of({Colour.BLUE: 4, Colour.BLACK: 1, Colour.RED: 1, Colour.GREEN: 2})
    assert tray.total == 8
    assert tray.largest == 4
    assert tray.present() == (Colour.BLUE, Colour.BLACK, Colour.RED, Colour.GREEN)
    assert Counts.full().minus(tray).total == 49 - 8
    assert Counts.full().total == 7 * CUBES_PER_COLOUR
    assert tray.plus(tray)[Colour.BLUE] == 8
    assert str(tray) == "Bu4 Bk1 Rd1 Gn2"


def test_counts_refuse_negative() -> None:
    with pytest.raises(ValueError, match="red"):
        Counts().minus(Counts(red=1))
    with pytest.raises(ValidationError):
        Counts(red=-1)
    with pytest.raises(ValidationError):
        Counts().with_count(Colour.RED, -1)


def test_counts_json_round_trip() -> None:
    tray = Counts(yellow=5, green=1)
    assert Counts.model_validate_json(tray.model_dump_json()) == tray

"""hardware/bom.csv: every line is a valid purchase, and the list covers the documented build."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from wiring_tables import WIRING_MD, load_wiring_svg

REPO = Path(__file__).resolve().parents[2]
BOM = REPO / "hardware" / "bom.csv"
COLUMNS = ("part", "quantity", "example_product", "unit_price_eur", "notes")


class BomLine(BaseModel):
    """One line of the bill of materials; prices are per unit, in euros, approximate."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    part: str = Field(min_length=2)
    quantity: int = Field(gt=0)
    example_product: str = Field(min_length=2)
    unit_price_eur: float = Field(gt=0, lt=1000)
    notes: str = ""


def load_bom(text: str) -> list[BomLine]:
    """The lines of a BOM in CSV text; ValueError naming the line and the problem otherwise."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != COLUMNS:
        raise ValueError(f"line 1: the columns must be {','.join(COLUMNS)}, got {rows[:1]}")
    lines = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(COLUMNS):
            raise ValueError(
                f"line {number}: {len(row)} fields instead of {len(COLUMNS)} "
                "(quote a field that contains a comma)"
            )
        try:
            lines.append(BomLine.model_validate(dict(zip(COLUMNS, row, strict=True))))
        except ValidationError as error:
            raise ValueError(f"line {number}: {error}") from error
    return lines


@pytest.fixture(scope="module")
def bom() -> list[BomLine]:
    return load_bom(BOM.read_text(encoding="utf-8"))


def test_bom_parses(bom: list[BomLine]) -> None:
    assert len(bom) >= 10


def test_each_part_is_listed_once(bom: list[BomLine]) -> None:
    parts = [line.part.lower() for line in bom]
    assert len(parts) == len(set(parts))


def _quantity(bom: list[BomLine], pattern: str) -> int:
    found = [
        line.quantity
        for line in bom
        if re.search(pattern, f"{line.part} {line.example_product}", re.IGNORECASE)
    ]
    assert found, f"nothing in bom.csv matches {pattern!r}"
    return sum(found)


@pytest.mark.parametrize(
    "pattern",
    [
        r"Raspberry Pi 4|Raspberry Pi 5",
        r"Camera Module 3|webcam",
        r"7 inch|7\"",
        r"LED ring",
        r"MOSFET",
        r"RP2040|Pico",
        r"TCS34725",
        r"micro-USB",
    ],
)
def test_bom_has_the_parts_the_design_names(bom: list[BomLine], pattern: str) -> None:
    assert _quantity(bom, pattern) >= 1


def test_bom_counts_match_the_wiring(bom: list[BomLine]) -> None:
    wiring_svg = load_wiring_svg()
    devices = {
        row[table.column("device")]
        for table in wiring_svg.read_tables(WIRING_MD.read_text(encoding="utf-8"))
        if "device" in table.columns
        for row in table.rows
    }
    buttons = {d for d in devices if d.endswith("button")}
    beams = {d for d in devices if d.endswith("break-beam")}
    assert len(buttons) == 2 and len(beams) == 2, (buttons, beams)
    assert _quantity(bom, r"push button") == len(buttons)
    assert _quantity(bom, r"break.beam") == len(beams)


def test_readme_total_is_the_bom_total(bom: list[BomLine]) -> None:
    readme = (REPO / "hardware" / "README.md").read_text(encoding="utf-8")
    stated = re.search(r"about (\d+) EUR in all", readme)
    assert stated, "hardware/README.md should state the BOM total as 'about N EUR in all'"
    total = sum(line.quantity * line.unit_price_eur for line in bom)
    assert abs(int(stated.group(1)) - total) <= 0.05 * total, total


HEADER = ",".join(COLUMNS)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("part,qty\nx,1\n", "line 1: the columns"),
        (f"{HEADER}\nLED,0,ring,4.0,\n", "line 2"),
        (f"{HEADER}\nLED,1,ring,-4.0,\n", "greater than 0"),
        (f"{HEADER}\nLED,1.5,ring,4.0,\n", "valid integer"),
        (f"{HEADER}\nLED,1,ring,4.0,a, b\n", "6 fields"),
        (f"{HEADER}\nLED,1,ring\n", "3 fields"),
    ],
)
def test_bad_bom_lines_are_refused_with_their_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_bom(text)

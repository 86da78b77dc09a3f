"""The committed fixture set (tests/fixtures/vision/warm_wood): frozen files, known truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.core.cubes import Colour, Counts
from companion.vision import Profile, calibrate, load_image, read_tray

FIXTURE = Path(__file__).parents[1] / "fixtures" / "vision" / "warm_wood"


@pytest.fixture(scope="module")
def truth() -> dict[str, Counts]:
    data = json.loads((FIXTURE / "truth.json").read_text())
    return {record["image"]: Counts.of(record["counts"]) for record in data["pictures"]}


@pytest.fixture(scope="module")
def fixture_profile() -> Profile:
    empty = load_image(FIXTURE / "empty.jpg")
    return calibrate(empty, {c: load_image(FIXTURE / f"{c.value}.jpg") for c in Colour})


def test_fixture_pictures_are_right_or_unsure(
    fixture_profile: Profile, truth: dict[str, Counts]
) -> None:
    exact = 0
    for name, counts in truth.items():
        reading = read_tray(load_image(FIXTURE / name), fixture_profile)
        if reading.confident:
            assert reading.counts == counts, name
        if counts.total == 0:
            assert reading.counts == Counts(), name
        exact += reading.counts == counts
    assert exact >= 2


def test_fixture_folder_calibrates_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(FIXTURE), "--out", str(out)]) == 0
    assert "640x480" in capsys.readouterr().out
    pictures = sorted(str(p) for p in FIXTURE.glob("test_*.jpg"))
    assert main(["count", *pictures, "--profile", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(pictures)

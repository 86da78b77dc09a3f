"""`companion app` refuses bad options with status 2 and a message, before opening a window."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main


@pytest.mark.parametrize("size", ["big", "800", "100x100", "800x-1"])
def test_bad_size_is_refused_with_status_2(size: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["app", "--size", size]) == 2
    assert "--size" in capsys.readouterr().err


def test_screenshots_into_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "shots.png"
    target.write_bytes(b"")
    assert main(["app", "--screenshots", str(target)]) == 2
    assert "directory" in capsys.readouterr().err


def test_unknown_language_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["app", "--lang", "fr"])
    assert stop.value.code == 2

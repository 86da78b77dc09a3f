"""`companion game simulate/replay` and the golden logs checked in under tests/fixtures/core.

To regenerate the golden files after a deliberate change of the simulator or the output:
`UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/core/test_cli_and_golden.py`, then review
the diff before committing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "core"
GOLDEN = [(2, 1), (4, 7)]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(("players", "seed"), GOLDEN)
def test_golden_simulated_logs_and_replays(
    capsys: pytest.CaptureFixture[str], players: int, seed: int
) -> None:
    status, log_text, _ = _run(
        capsys, "game", "simulate", "--players", str(players), "--seed", str(seed)
    )
    assert status == 0
    log_path = FIXTURES / f"sim-{players}p-seed{seed}.json"
    replay_path = FIXTURES / f"replay-{players}p-seed{seed}.json"
    status, replay_text, _ = _run(capsys, "game", "replay", str(log_path), "--json")
    if os.environ.get("UPDATE_GOLDEN"):
        log_path.write_text(log_text)
        status, replay_text, _ = _run(capsys, "game", "replay", str(log_path), "--json")
        replay_path.write_text(replay_text)
    assert status == 0
    assert log_text == log_path.read_text()
    assert replay_text == replay_path.read_text()
    summary = json.loads(replay_text)
    assert summary["finished"] and len(summary["players"]) == players
    for player in summary["players"]:
        assert sum(player["breakdown"].values()) == player["vp"]


def test_simulate_is_identical_for_the_same_seed(capsys: pytest.CaptureFixture[str]) -> None:
    first = _run(capsys, "game", "simulate", "--players", "3")
    second = _run(capsys, "game", "simulate", "--players", "3", "--seed", "0")
    other = _run(capsys, "game", "simulate", "--players", "3", "--seed", "1")
    assert first == second and first[1] != other[1]
    log = json.loads(first[1])
    assert log["players"] and log["options"] and log["box"]["test_box"] and log["events"]


def test_simulate_with_the_real_box(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, text, _ = _run(capsys, "game", "simulate", "--players", "3", "--real-box")
    assert status == 0
    log = json.loads(text)
    assert log["box"]["progress_track"] is None and not log["box"]["test_box"]
    assert any(e.get("highest_vp") is not None for e in log["events"])
    path = tmp_path / "real.json"
    path.write_text(text)
    status, out, _ = _run(capsys, "game", "replay", str(path), "--json")
    assert status == 0 and json.loads(out)["finished"]


def test_replay_readable_and_unfinished(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = json.loads((FIXTURES / "sim-2p-seed1.json").read_text())
    log["events"] = log["events"][:40]
    path = tmp_path / "part.json"
    path.write_text(json.dumps(log))
    status, out, _ = _run(capsys, "game", "replay", str(path))
    assert status == 0 and "unfinished" in out and "in the tower" in out
    status, out, _ = _run(capsys, "game", "replay", str(path), "--json")
    assert status == 0 and json.loads(out)["finished"] is False
    status, out, _ = _run(capsys, "game", "replay", str(FIXTURES / "sim-4p-seed7.json"))
    assert status == 0 and "winner:" in out


def test_illegal_log_names_the_event(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = json.loads((FIXTURES / "sim-2p-seed1.json").read_text())
    log["events"][5] = {"kind": "take_gold", "player": 1 - log["events"][5].get("player", 0)}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log))
    status, out, err = _run(capsys, "game", "replay", str(path))
    assert status == 2 and out == ""
    assert "event 6" in err and "Traceback" not in err
    status, _, err = _run(capsys, "game", "replay", str(tmp_path / "missing.json"))
    assert status == 2 and "cannot read" in err


def test_corrupt_log_exits_2_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.json"
    path.write_text('{"format": "tower-companion/amerigo-log", "events": [')
    result = subprocess.run(
        [sys.executable, "-m", "companion", "game", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "Invalid JSON" in result.stderr

"""The install step puts the package's own protocol module on the board, byte for byte."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from companion.devices.chute import cubeproto
from companion.devices.chute.firmware_sim import (
    FIRMWARE,
    FirmwareSimError,
    find_tool,
    stage_firmware,
)


def test_the_staged_protocol_module_is_the_packages_own(tmp_path: Path) -> None:
    staged = stage_firmware(tmp_path)
    assert [p.name for p in staged] == [
        "chute.py",
        "cubeproto.py",
        "hostlink.py",
        "main.py",
        "tcs34725.py",
    ]
    assert (tmp_path / "cubeproto.py").read_bytes() == Path(cubeproto.__file__).read_bytes()
    for name in ("chute.py", "hostlink.py", "main.py", "tcs34725.py"):
        assert (tmp_path / name).read_bytes() == (FIRMWARE / name).read_bytes()


def test_no_second_copy_of_the_protocol_lives_in_the_firmware_folder() -> None:
    # One module, one place: the board's copy is made at install time only.
    assert not list(FIRMWARE.rglob("cubeproto.py"))


def test_install_without_mpremote_says_how_to_get_it(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    script = tmp_path / "install.sh"
    # A copy outside the repository, so the repository's .venv/bin/mpremote is not found either.
    (tmp_path / "firmware").mkdir()
    (tmp_path / "companion" / "devices" / "chute").mkdir(parents=True)
    for f in FIRMWARE.glob("*.py"):
        (tmp_path / "firmware" / f.name).write_bytes(f.read_bytes())
    (tmp_path / "companion/devices/chute/cubeproto.py").write_bytes(
        Path(cubeproto.__file__).read_bytes()
    )
    script = tmp_path / "firmware" / "install.sh"
    script.write_bytes((FIRMWARE / "install.sh").read_bytes())
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env)
    assert result.returncode == 1
    assert "pip install mpremote" in result.stderr


def test_install_rejects_unknown_options() -> None:
    result = subprocess.run(
        ["bash", str(FIRMWARE / "install.sh"), "--frobnicate"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "unknown option" in result.stderr


def test_a_missing_socat_is_an_error_that_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FirmwareSimError, match="apt-get install socat"):
        find_tool("socat", venv_first=False)

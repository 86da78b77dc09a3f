"""The one settings file: defaults match the wiring, files and environment override them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.settings import Settings, SettingsError, load_settings


def test_defaults_match_the_documented_wiring() -> None:
    settings = load_settings(environ={})
    pins = settings.gpio.pins
    assert (pins.next_button, pins.undo_button, pins.led_ring, pins.tray_beam) == (17, 27, 18, 22)
    assert settings.sensor.vid_pid == "2e8a:0005"
    assert settings.camera.index == 0
    assert (settings.gpio.backend, settings.camera.source, settings.sensor.backend) == (
        "auto",
        "auto",
        "auto",
    )


def test_json_file_overrides_some_fields(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"gpio": {"pins": {"tray_beam": 23}}, "camera": {"index": 2}}))
    settings = load_settings(path, environ={})
    assert settings.gpio.pins.tray_beam == 23
    assert settings.gpio.pins.next_button == 17
    assert settings.camera.index == 2


def test_toml_file_named_by_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "tower.toml"
    path.write_text('[sensor]\nport = "/dev/cube-sensor"\nusb_pid = "000A"\n')
    settings = load_settings(environ={"COMPANION_SETTINGS": str(path)})
    assert settings.sensor.port == "/dev/cube-sensor"
    assert settings.sensor.vid_pid == "2e8a:000a"


def test_environment_chooses_back_ends_over_the_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"gpio": {"backend": "real"}, "camera": {"source": "0"}}))
    env = {"COMPANION_GPIO": "MOCK", "COMPANION_CAMERA": "sim", "COMPANION_SENSOR": "off"}
    settings = load_settings(path, environ=env)
    assert settings.gpio.backend == "mock"
    assert settings.camera.source == "sim"
    assert settings.sensor.backend == "off"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"COMPANION_GPIO": "maybe"}, "gpio.backend"),
        ({"COMPANION_SENSOR": "usb"}, "sensor.backend"),
    ],
)
def test_bad_back_end_names_say_what_is_accepted(env: dict[str, str], expected: str) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(environ=env)
    message = str(raised.value)
    assert expected in message
    assert "COMPANION_GPIO=auto|real|mock|off" in message
    assert "environment" in message


def test_two_parts_on_one_pin_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"gpio": {"pins": {"undo_button": 17}}}))
    with pytest.raises(SettingsError, match="share BCM pin"):
        load_settings(path, environ={})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid"),
        ("[1, 2]", "must hold an object"),
        ('{"gpio": {"pins": {"tray_beam": 40}}}', "gpio.pins.tray_beam"),
        ('{"camera": {"fps": 3}}', "camera.fps"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(SettingsError, match=message):
        load_settings(path, environ={})


def test_missing_file_says_how_to_get_defaults(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="unset COMPANION_SETTINGS"):
        load_settings(tmp_path / "absent.json", environ={})


def test_settings_are_frozen() -> None:
    settings = Settings()
    with pytest.raises(ValueError, match="frozen"):
        settings.camera.index = 3  # type: ignore[misc]

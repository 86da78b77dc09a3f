"""The one settings file: GPIO pins, the chute sensor's USB id, the camera, and the back-ends.

Defaults describe the wiring documented in hardware/ (BCM pin numbers). A JSON or TOML file may
override any of them; environment variables pick the back-ends last, so that `make run`, tests
and the Pi's systemd unit can each choose without editing a file:

- `COMPANION_SETTINGS=path.json|path.toml`: the settings file to read (none: the defaults);
- `COMPANION_GPIO=auto|real|mock|off`;
- `COMPANION_CAMERA=auto|real|sim|off|<spec>` (a device index, a video file, a URL,
  `picamera2`);
- `COMPANION_SENSOR=auto|real|sim|off`.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

GpioBackend = Literal["auto", "real", "mock", "off"]
SensorBackend = Literal["auto", "real", "sim", "off"]

SETTINGS_ENV = "COMPANION_SETTINGS"
GPIO_ENV = "COMPANION_GPIO"
CAMERA_ENV = "COMPANION_CAMERA"
SENSOR_ENV = "COMPANION_SENSOR"


class SettingsError(ValueError):
    """A settings file or variable that cannot be used; the message says what to change."""


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Pins(_Section):
    """GPIO pins, BCM numbering (not header pin numbers)."""

    next_button: int = Field(default=17, ge=0, le=27)
    undo_button: int = Field(default=27, ge=0, le=27)
    led_ring: int = Field(default=18, ge=0, le=27, description="PWM-capable pin for the LED ring")
    tray_beam: int = Field(default=22, ge=0, le=27, description="IR break-beam at the tray entry")


class CameraSettings(_Section):
    """Where frames come from and how they are taken."""

    source: str = Field(
        default="auto",
        description="auto, real, sim, off, a device index, a video file, a URL or picamera2",
    )
    index: int = Field(default=0, ge=0, description="camera device index for `real` over OpenCV")
    profile: str | None = Field(
        default=None,
        description="the calibration profile from `companion calibrate` for this camera set-up",
    )
    width: int = Field(default=800, ge=16)
    height: int = Field(default=600, ge=16)
    warmup_s: float = Field(
        default=1.5, ge=0, description="seconds of auto exposure before it is locked"
    )
    frame_timeout_s: float = Field(
        default=2.0, gt=0, description="a frame later than this means the camera is stuck"
    )
    led_level: float = Field(default=0.8, ge=0, le=1, description="LED ring brightness 0..1")


class ChuteSensorSettings(_Section):
    """The USB chute sensor (RP2040 running MicroPython)."""

    backend: SensorBackend = "auto"
    usb_vid: str = Field(default="2e8a", pattern=r"^[0-9a-fA-F]{4}$")
    usb_pid: str = Field(default="0005", pattern=r"^[0-9a-fA-F]{4}$")
    port: str | None = Field(
        default=None, description="a serial port or pyserial URL; none: find the board by VID:PID"
    )
    offline_after_s: float = Field(default=3.0, gt=0)
    calibration: str | None = Field(
        default=None,
        description="a chute calibration JSON file for this sensor; none: the typical values",
    )

    @property
    def vid_pid(self) -> str:
        """`vvvv:pppp` in lower-case hex, as udev and pyserial's hwgrep write it."""
        return f"{self.usb_vid.lower()}:{self.usb_pid.lower()}"


class GpioSettings(_Section):
    """Buttons, LED ring and break-beam."""

    backend: GpioBackend = "auto"
    pins: Pins = Pins()
    button_bounce_s: float = Field(default=0.05, ge=0)


class Settings(_Section):
    """Everything device-related the app needs to know; every field has a working default."""

    gpio: GpioSettings = GpioSettings()
    camera: CameraSettings = CameraSettings()
    sensor: ChuteSensorSettings = ChuteSensorSettings()

    @field_validator("gpio")
    @classmethod
    def _pins_differ(cls, gpio: GpioSettings) -> GpioSettings:
        used = gpio.pins.model_dump()
        numbers = list(used.values())
        if len(set(numbers)) != len(numbers):
            clash = sorted(n for n in set(numbers) if numbers.count(n) > 1)
            names = [k for k, v in used.items() if v in clash]
            raise ValueError(f"pins {', '.join(names)} share BCM pin(s) {clash}; give each its own")
        return gpio


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SettingsError(
            f"cannot read settings file {path}: {error.strerror or error}; "
            f"fix the path or unset {SETTINGS_ENV} to use the defaults"
        ) from error
    try:
        if path.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        else:
            data = json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise SettingsError(f"settings file {path} is not valid: {error}") from error
    if not isinstance(data, dict):
        raise SettingsError(f"settings file {path} must hold an object of sections, not {data!r}")
    return data


def load_settings(
    path: Path | str | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Settings from `path` (or $COMPANION_SETTINGS, or none), then back-ends from the environment.

    Raises SettingsError with a message naming the bad field and what would be accepted.
    """
    env = os.environ if environ is None else environ
    chosen = path if path is not None else env.get(SETTINGS_ENV) or None
    data: dict[str, Any] = _read_file(Path(chosen)) if chosen is not None else {}
    overrides = {
        ("gpio", "backend"): env.get(GPIO_ENV),
        ("camera", "source"): env.get(CAMERA_ENV),
        ("sensor", "backend"): env.get(SENSOR_ENV),
    }
    for (section, key), value in overrides.items():
        if value:
            block = data.setdefault(section, {})
            if not isinstance(block, dict):
                raise SettingsError(f"settings section {section!r} must be an object")
            block[key] = value.strip().lower() if key == "backend" else value.strip()
    try:
        return Settings.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        where = f"settings file {chosen}" if chosen is not None else "environment"
        raise SettingsError(
            f"bad settings in {where}: {problems} "
            f"(back-ends: {GPIO_ENV}=auto|real|mock|off, {SENSOR_ENV}=auto|real|sim|off)"
        ) from error

"""A still picture from the device stack, as the calibration wizard takes one from a real
camera: from the running feed (simulated camera) or from a camera opened for it alone."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.devices.frames import SourceUnavailable
from companion.devices.health import Health
from companion.devices.stack import Devices
from companion.settings import Settings
from companion.ui import harness


def _clip(tmp_path: Path) -> Path:
    """A short recording standing in for a camera: dark frames, then a bright green one."""
    clip = tmp_path / "tray.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for _ in range(2):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.write(np.full((48, 64, 3), (0, 200, 0), np.uint8))
    writer.release()
    return clip


def _settings(camera: str) -> Settings:
    return Settings.model_validate(
        {"camera": {"source": camera, "width": 640, "height": 480},
         "sensor": {"backend": "off"}, "gpio": {"backend": "off"}}
    )  # fmt: skip


def test_still_from_a_camera_not_yet_calibrated(tmp_path: Path) -> None:
    with Devices(_settings(str(_clip(tmp_path))), lambda _r: None) as devices:
        assert devices.camera_kind == "real"
        picture = devices.still()
    # The camera is opened for the picture alone and warmed up: the third frame is kept.
    assert picture.shape == (48, 64, 3) and picture.dtype == np.uint8
    blue, green, red = (float(picture[..., i].mean()) for i in range(3))
    assert green > 150 and blue < 40 and red < 40


def test_still_from_the_running_simulated_camera_is_a_fresh_copy() -> None:
    with Devices(_settings("sim"), lambda _r: None) as devices:
        deadline = time.monotonic() + 60
        while devices.health()["camera"].state is not Health.OK:
            assert time.monotonic() < deadline, devices.health()["camera"]
            time.sleep(0.05)
        before = time.monotonic()
        one = devices.still()
        two = devices.still()
        assert devices._latest is not None and devices._latest.timestamp >= before
    assert one.shape == (480, 640, 3) and two.shape == one.shape
    assert one.flags.writeable and one is not two


def test_no_camera_no_still() -> None:
    with (
        Devices(_settings("off"), lambda _r: None) as devices,
        pytest.raises(SourceUnavailable, match=r"camera\.source"),
    ):
        devices.still()


def test_wizard_takes_its_pictures_from_the_device_stack(app: Any, tmp_path: Path) -> None:
    with Devices(_settings(str(_clip(tmp_path))), lambda _r: None) as devices:
        earlier = app.__dict__.get("grab_picture")
        app.grab_picture = devices.still
        try:
            app.show("calibration")
            screen = app.screen("calibration")
            screen.restart()
            harness.tap(screen.ids.take)
            assert len(screen.pictures) == 1 and screen.pictures[0].shape == (48, 64, 3)
            assert "Step 2 of 8" in screen.ids.step.text
        finally:
            app.grab_picture = earlier
            screen.restart()

"""The simulated tower and camera (no hardware here) feed the phase screen from their threads."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core.events import PirateRevealed, SetupDrop
from companion.core.options import RuleOptions
from companion.core.state import Stage
from companion.ui import harness
from companion.ui.bridge import attach_devices


@pytest.mark.slow
def test_drop_now_reading_arrives_and_one_tap_confirms(app: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("COMPANION_GPIO", "off")
    monkeypatch.setenv("COMPANION_CAMERA", "sim")
    bridge = attach_devices(app)
    try:
        app.controller.new_game(["Ada", "Bruno"], RuleOptions())
        assert app.controller.apply(PirateRevealed(value=2))
        devices = app.devices
        assert harness.wait_until(lambda: devices.simulated, timeout=30)
        assert harness.wait_until(lambda: str(devices.health()["camera"].state) == "ok", timeout=60)
        phase = app.screen("phase")
        harness.frames(2)
        harness.tap(phase.ids.drop_now)
        assert harness.wait_until(lambda: app.controller.pending is not None, timeout=60)
        harness.frames(2)
        shown = phase.drop_panel.counts()
        assert shown == app.controller.pending.counts
        assert shown.total > 0
        harness.tap(phase.drop_panel.ids.confirm)
        assert app.controller.game.events[-1] == SetupDrop(counts=shown)
        assert app.controller.state.stage in (Stage.DROP, Stage.TURNS)
        assert bridge.received == 1
    finally:
        app.devices.stop()
        del app.devices

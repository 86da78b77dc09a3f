"""The simulated tower and camera (no hardware here) feed the phase screen from their threads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from companion.core.events import PirateRevealed, SetupDrop
from companion.core.options import RuleOptions
from companion.core.state import Stage
from companion.devices.readings import cubes_may_hide
from companion.ui import harness
from companion.ui.bridge import ReadingBridge, attach_devices


@pytest.fixture
def bridge(app: Any, monkeypatch: Any) -> Iterator[ReadingBridge]:
    """The app's simulated devices, started and seeing the tray, at the set-up drop."""
    monkeypatch.setenv("COMPANION_GPIO", "off")
    monkeypatch.setenv("COMPANION_CAMERA", "sim")
    bridge = attach_devices(app)
    try:
        app.controller.new_game(["Ada", "Bruno"], RuleOptions())
        assert app.controller.apply(PirateRevealed(value=2))
        devices = app.devices
        assert harness.wait_until(lambda: devices.simulated, timeout=30)
        assert harness.wait_until(lambda: str(devices.health()["camera"].state) == "ok", timeout=60)
        yield bridge
    finally:
        app.devices.stop()
        del app.devices


@pytest.fixture
def camera_only(monkeypatch: Any) -> None:
    """A table with the camera and no chute sensor (ask for it before `bridge`)."""
    monkeypatch.setenv("COMPANION_SENSOR", "off")


def _drop(app: Any) -> Any:
    phase = app.screen("phase")
    harness.frames(2)
    harness.tap(phase.ids.drop_now)
    assert harness.wait_until(lambda: app.controller.pending is not None, timeout=60)
    harness.frames(2)
    return phase


@pytest.mark.slow
def test_drop_now_reading_arrives_and_one_tap_confirms(app: Any, bridge: ReadingBridge) -> None:
    phase = _drop(app)
    shown = phase.drop_panel.counts()
    assert shown == app.controller.pending.counts
    assert shown.total > 0
    harness.tap(phase.drop_panel.ids.confirm)
    assert app.controller.game.events[-1] == SetupDrop(counts=shown)
    assert app.controller.state.stage in (Stage.DROP, Stage.TURNS)
    assert bridge.received == 1


@pytest.mark.slow
def test_the_simulated_hand_spreads_a_heap_and_the_camera_reads_it_again(
    app: Any, camera_only: None, bridge: ReadingBridge
) -> None:
    # Most of the 49 cubes land in the tray, heaped: the camera says some may lie hidden,
    # and the simulated tower's hand is offered to spread them. The camera's second look is
    # news (other counts, or sure), never fewer cubes. (Which frame it reads depends on this
    # machine's speed; test_sim_camera checks the counts with the frames fixed.)
    phase = _drop(app)
    first = app.controller.pending
    assert first.kind == "drop" and cubes_may_hide(first.reasons)
    assert phase.ids.spread_now.opacity == 1
    harness.tap(phase.ids.spread_now)
    assert harness.wait_until(
        lambda: app.controller.pending is not None and app.controller.pending.kind == "second look",
        timeout=60,
    )
    harness.frames(2)
    again = app.controller.pending
    assert again.counts != first.counts or again.confident
    assert again.counts.total >= first.counts.total
    assert phase.drop_panel.counts() == again.counts
    assert phase.ids.spread_now.opacity == 0
    harness.tap(phase.drop_panel.ids.confirm)
    assert app.controller.game.events[-1] == SetupDrop(counts=again.counts)

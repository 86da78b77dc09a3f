"""Device readings into the UI: device threads post, the main thread applies.

The reading service calls back from its own thread; every callback here is wrapped with Kivy's
`mainthread`, so widgets and the game are only ever touched on the UI thread.
"""

from __future__ import annotations

import time
from typing import Any

from kivy.clock import mainthread

from companion.core.cubes import Counts
from companion.core.odds import next_drop_tower
from companion.core.state import Stage
from companion.ui.controller import Controller, PendingReading


def pending_from_drop(reading: Any) -> PendingReading | None:
    """A reading service `DropReading` as a reading for the phase screen (None: no counts)."""
    from companion.devices.readings import Outcome

    if reading.counts is None:
        return None
    return PendingReading(
        counts=reading.counts,
        source=str(reading.source),
        confident=reading.outcome is Outcome.ACCEPTED,
        confidence=1.0 if reading.outcome is Outcome.ACCEPTED else 0.5,
        reasons=tuple(reading.reasons),
        picture=reading.picture,
    )


class ReadingBridge:
    """Receives readings and health changes from any thread; hands them to the controller."""

    def __init__(self, controller: Controller, description: str) -> None:
        self.controller = controller
        self.description = description
        self.received = 0
        self.last_problem = ""
        self.health: dict[str, Any] = {}
        self.last_applied_at = 0.0
        """time.perf_counter() when the latest reading reached the controller (benchmark)."""

    @mainthread  # type: ignore[misc]
    def post_reading(self, reading: PendingReading) -> None:
        """From any thread: show this reading on the phase screen for confirmation."""
        self.received += 1
        self.controller.offer_reading(reading)
        self.last_applied_at = time.perf_counter()

    def on_drop_reading(self, reading: Any) -> None:
        """The reading service's callback (its thread)."""
        pending = pending_from_drop(reading)
        if pending is not None:
            self.post_reading(pending)

    @mainthread  # type: ignore[misc]
    def on_health(self, health: Any) -> None:
        """The reading service's health callback (its thread): remember the latest problem."""
        self.health[str(health.source)] = health
        if not health.usable and str(health.state) != "off":
            self.last_problem = f"{health.source}: {health.message}"


def possible_next(controller: Controller) -> Counts | None:
    """Each colour's most cubes the coming drop can show (dropped plus still in the tower)."""
    state = controller.state
    if state is None or state.stage not in (Stage.DROP, Stage.SETUP_DROP):
        return None
    _phase, inside = next_drop_tower(state)
    return Counts.from_tuple(list(inside))


def attach_devices(app: Any) -> ReadingBridge | None:
    """Start the reading service for the app and connect it through a bridge.

    Without a calibrated camera or a chute sensor the service still runs (both inputs off) and
    the players type counts in; the device screen says what is missing.
    """
    try:
        from companion.devices.readings import ReadingService
    except ImportError:  # pragma: no cover - devices are part of the package
        return None
    bridge = ReadingBridge(app.controller, "reading service (camera, chute sensor, hand)")
    service = ReadingService(bridge.on_drop_reading, bridge.on_health)
    service.start()
    app.bridge = bridge
    app.reading_service = service

    def expect_drop() -> None:
        possible = possible_next(app.controller)
        if possible is not None and getattr(app, "_expecting", None) != app.controller.revision:
            app._expecting = app.controller.revision
            service.expect_drop(possible)

    app.controller.subscribe(expect_drop)
    app.bind(on_stop=lambda *_: service.stop())
    return bridge

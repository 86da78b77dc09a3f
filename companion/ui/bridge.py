"""Device readings into the UI: device threads post, the main thread applies.

The reading service calls back from its own thread; every callback here is wrapped with Kivy's
`mainthread`, so widgets and the game are only ever touched on the UI thread.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from kivy.clock import mainthread

from companion.core.state import Stage
from companion.ui.controller import Controller, PendingReading


def pending_from_drop(reading: Any) -> PendingReading | None:
    """A reading service `DropReading` as a reading for the phase screen (None: no counts)."""
    from companion.devices.readings import Outcome

    if reading.counts is None:
        return None
    return PendingReading(
        kind=str(reading.kind),
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

    @mainthread  # type: ignore[untyped-decorator]
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

    @mainthread  # type: ignore[untyped-decorator]
    def describe(self, description: str) -> None:
        """From any thread: what the readings come from, for the device screen."""
        self.description = description

    @mainthread  # type: ignore[untyped-decorator]
    def on_health(self, health: Any) -> None:
        """The reading service's health callback (its thread): remember the latest problem."""
        self.health[str(health.source)] = health
        if not health.usable and str(health.state) != "off":
            self.last_problem = f"{health.source}: {health.message}"


def attach_devices(app: Any) -> ReadingBridge:
    """Start the devices the settings choose (the simulated tower and camera when there is no
    hardware; GPIO off off a Pi) and connect their readings to the app through a bridge.

    Device start-up (the simulated camera calibrates itself) runs on its own thread, so the
    first screen does not wait for it. A settings problem is shown, never raised: the players
    can always type counts in.
    """
    from companion.settings import SettingsError, load_settings

    bridge = ReadingBridge(app.controller, "")
    app.bridge = bridge
    try:
        settings = load_settings()
    except SettingsError as error:
        bridge.description = "typed in by hand"
        bridge.last_problem = str(error)
        return bridge
    from companion.devices.stack import Devices

    devices = Devices(
        settings,
        bridge.on_drop_reading,
        bridge.on_health,
        on_next=mainthread(lambda *_: next_pressed(app)),
        on_undo=mainthread(lambda *_: app.controller.undo()),
    )
    app.devices = devices

    def start() -> None:
        devices.start()
        if devices.camera_kind == "sim":
            app.grab_picture = SimulatedCalibrationPictures().next_picture
        elif devices.camera_kind == "real":
            # The wizard's pictures come from the real camera: one still per step.
            app.grab_picture = devices.still
        bridge.describe(f"camera {devices.camera_kind}, chute sensor {devices.sensor_kind}"
                        + (" (simulated tower)" if devices.simulated else ""))  # fmt: skip

    threading.Thread(target=start, name="devices-start", daemon=True).start()
    app.bind(on_stop=lambda *_: devices.stop())
    return bridge


def drop_now(app: Any) -> bool:
    """The players drop the due cubes now: the devices watch (the simulated tower drops them)."""
    devices = getattr(app, "devices", None)
    state = app.controller.state
    if devices is None or state is None or state.stage not in (Stage.DROP, Stage.SETUP_DROP):
        return False
    devices.drop(state)
    return True


def spread_now(app: Any) -> bool:
    """The players spread the tray's cubes apart for the camera (the simulated tower's hand
    does it; at a real table they need no button)."""
    devices = getattr(app, "devices", None)
    return devices is not None and bool(devices.spread())


def next_pressed(app: Any) -> None:
    """The hardware 'next' button: drop when a drop is due and unread, else confirm it."""
    controller = app.controller
    state = controller.state
    if state is None or state.stage not in (Stage.DROP, Stage.SETUP_DROP):
        return
    if controller.pending is None:
        drop_now(app)
    else:
        controller.confirm_counts(controller.pending.counts)


class SimulatedCalibrationPictures:
    """What the simulated camera shows during the calibration wizard: the empty tray, then a
    tray holding only the cubes of each colour in turn (the person's part, simulated)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.taken = 0
        self._set: Any = None

    def next_picture(self) -> Any:
        """The next picture the wizard asks for (BGR array); starts over after the last."""
        from companion.devices.tray_render import calibration_set

        if self._set is None:
            self._set = calibration_set(self.seed, tests=0)
        pictures = [self._set.empty, *(shot for _c, shot in self._set.colours)]
        picture = pictures[self.taken % len(pictures)].image
        self.taken += 1
        return picture
